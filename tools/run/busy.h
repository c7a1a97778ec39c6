/* SPDX-License-Identifier: MIT */
/* The busy work of the compute action and of a server's service. */
#ifndef RTSCHED_RUN_BUSY_H
#define RTSCHED_RUN_BUSY_H

#include <stdint.h>

/* Busy until the calling task (or thread) has used `ns` more CPU time
 * (rts_task_cputime_ns): preemption does not shorten it, under any backend. */
void run_busy_ns(int64_t ns);

#endif
