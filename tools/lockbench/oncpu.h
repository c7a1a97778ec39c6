/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's context switches and on-CPU time, from a perf
 * software event (PERF_COUNT_SW_CONTEXT_SWITCHES) opened for that thread
 * alone. Its time_running advances only while the thread is on a CPU: the
 * scheduler's perf hooks stop it when the thread is switched out (in
 * prepare_task_switch) and restart it when it is switched back in (in
 * finish_task_switch). So between two reads, running_ns is the time the
 * thread itself executed, user and kernel, without the time it was blocked,
 * waiting on the run queue, or in the other threads' part of the switches.
 */
#ifndef LOCKBENCH_ONCPU_H
#define LOCKBENCH_ONCPU_H

#include <stddef.h>
#include <stdint.h>

struct lb_oncpu {
	int fd;
	/*
	 * running_ns between two back-to-back reads (the median of a few): the
	 * part of the reads themselves that a bracketed operation's running_ns
	 * includes, to subtract.
	 */
	uint64_t read_cost_ns;
};

struct lb_oncpu_stamp {
	uint64_t switches;
	uint64_t running_ns;
};

/* Open for the calling thread. 0, or -errno with a message in reason. */
int lb_oncpu_open(struct lb_oncpu *c, char *reason, size_t reason_size);
void lb_oncpu_close(struct lb_oncpu *c);

/* One read (a system call). A failed read leaves *s zero. */
void lb_oncpu_read(const struct lb_oncpu *c, struct lb_oncpu_stamp *s);

#endif
