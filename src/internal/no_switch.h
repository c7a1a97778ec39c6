/* SPDX-License-Identifier: MIT */
/*
 * Sections a user-level scheduler must not switch a task out of (the ult
 * backend, docs/ult.md; the threads backend ignores them). Two kinds:
 *  - a trace record: the scheduler records PREEMPT / RESUME / MIGRATE into
 *    the switched-out task's stream, whose ring has a single producer;
 *  - a job's START or COMPLETE together with the task's in_job flag, so
 *    that the scheduler, which reads in_job, traces a PREEMPT exactly
 *    between a START and its COMPLETE.
 * rts_no_switch_depth is the calling kernel thread's nesting depth; a
 * scheduler's signal handler that finds it nonzero leaves its work in
 * rts_no_switch_deferred, run once when the outermost section ends. The
 * section never spans a switch, so the kernel thread's TLS is the task's.
 */
#ifndef RTS_INTERNAL_NO_SWITCH_H
#define RTS_INTERNAL_NO_SWITCH_H

#include <signal.h>
#include <stdatomic.h>

#include "internal/export.h"

extern __thread volatile sig_atomic_t rts_no_switch_depth __attribute__((tls_model("initial-exec")));
extern __thread void (*volatile rts_no_switch_deferred)(void) __attribute__((tls_model("initial-exec")));

/* Run and clear the deferred work (the section has ended). */
void rts_no_switch_run_deferred(void);

static inline void rts_no_switch_enter(void)
{
	rts_no_switch_depth = rts_no_switch_depth + 1; /* only this thread and its handlers */
	atomic_signal_fence(memory_order_seq_cst);
}

static inline void rts_no_switch_exit(void)
{
	atomic_signal_fence(memory_order_seq_cst);
	rts_no_switch_depth = rts_no_switch_depth - 1;
	if (rts_unlikely(rts_no_switch_deferred != NULL) && rts_no_switch_depth == 0)
		rts_no_switch_run_deferred();
}

#endif
