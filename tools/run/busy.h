/* SPDX-License-Identifier: MIT */
/* The busy work of the compute action and of a server's service. */
#ifndef RTSCHED_RUN_BUSY_H
#define RTSCHED_RUN_BUSY_H

#include <stdint.h>

/* Busy until the thread has used `ns` more CPU time: preemption does not shorten it. */
void run_busy_ns(int64_t ns);

#endif
