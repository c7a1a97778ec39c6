/* SPDX-License-Identifier: MIT */
/*
 * The LITMUS^RT kernel features a stock kernel lacks, declared so that
 * LITMUS programs build unchanged and refused at run time with the reason
 * (ENOTSUP, litmus_last_error): the control page, reservations, null_call.
 * Non-preemptive sections cannot report failure (void in liblitmus): the
 * section runs preemptible and enter_np says so once on stderr, as
 * liblitmus itself does when its control page is missing.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include "litmus_internal.h"

LITMUS_EXPORT struct control_page *get_ctrl_page(void)
{
	litmus_fail(ENOTSUP, "get_ctrl_page: a stock kernel shares no LITMUS^RT control page "
			     "(get_job_no, get_current_budget give the job's state)");
	return NULL;
}

LITMUS_EXPORT int reservation_create(int rtype, void *config)
{
	(void)config; /* nothing to create it in */
	return litmus_fail(ENOTSUP, "reservation_create: type %d: reservations are LITMUS^RT's "
				    "P-RES plugin; rtsched's are rtsched run's servers "
				    "(docs/reservations.md)",
			   rtype);
}

LITMUS_EXPORT int null_call(cycles_t *timestamp)
{
	(void)timestamp; /* the kernel would write its cycle count here */
	return litmus_fail(ENOTSUP, "null_call: LITMUS^RT's timed empty system call does not "
				    "exist on a stock kernel");
}

LITMUS_EXPORT void enter_np(void)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;
	if (!atomic_flag_test_and_set_explicit(&said, memory_order_relaxed))
		fprintf(stderr, "enter_np: a stock kernel has no non-preemptive sections; this "
				"section runs preemptible (rtsched -llitmus)\n");
}

LITMUS_EXPORT void exit_np(void)
{
}

LITMUS_EXPORT int requested_to_preempt(void)
{
	return 0;
}

LITMUS_EXPORT int read_litmus_stats(int *ready, int *total)
{
	int waiting = get_nr_ts_release_waiters();
	if (waiting < 0)
		return 0;
	*ready = waiting;
	*total = waiting; /* the real-time tasks not yet waiting are unknown */
	return 1;
}
