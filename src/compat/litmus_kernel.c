/* SPDX-License-Identifier: MIT */
/*
 * The LITMUS^RT kernel features a stock kernel lacks, declared so that
 * LITMUS programs build unchanged and refused at run time with the reason
 * (ENOTSUP, litmus_last_error): reservations, null_call. The control page
 * is one that -llitmus keeps for the thread (the job's release, deadline
 * and number), which no kernel reads. Non-preemptive sections cannot report
 * failure (void in liblitmus): the section runs preemptible and enter_np
 * says so once on stderr.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "litmus_internal.h"

#define CTRL_PAGE_BYTES 4096 /* LITMUS^RT maps one page; programs may poke beyond the struct */

static pthread_key_t ctrl_key;
static pthread_once_t ctrl_key_once = PTHREAD_ONCE_INIT;

static void ctrl_page_unmap(void *page)
{
	munmap(page, CTRL_PAGE_BYTES);
}

static void ctrl_key_make(void)
{
	pthread_key_create(&ctrl_key, ctrl_page_unmap);
}

/*
 * The calling thread's control page: a page of its own that -llitmus keeps
 * (no kernel reads or writes it): the current job's release, deadline and
 * number, and enter_np's nesting; irq_count and np.preempt stay 0.
 */
LITMUS_EXPORT struct control_page *get_ctrl_page(void)
{
	struct litmus_thread *self = litmus_self();
	if (self->ctrl)
		return self->ctrl;
	pthread_once(&ctrl_key_once, ctrl_key_make);
	void *page = mmap(NULL, CTRL_PAGE_BYTES, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		litmus_fail(errno, "get_ctrl_page: mmap: %s", strerror(errno));
		return NULL;
	}
	self->ctrl = page;
	pthread_setspecific(ctrl_key, page); /* unmapped when the thread exits */
	litmus_ctrl_page_update(self);
	litmus_ok();
	return self->ctrl;
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
	struct control_page *ctrl = get_ctrl_page(); /* as liblitmus: the page counts the nesting */
	if (ctrl)
		ctrl->sched.np.flag++;
	if (!atomic_flag_test_and_set_explicit(&said, memory_order_relaxed))
		fprintf(stderr, "enter_np: a stock kernel has no non-preemptive sections; this "
				"section runs preemptible (rtsched -llitmus)\n");
}

LITMUS_EXPORT void exit_np(void)
{
	struct control_page *ctrl = litmus_self()->ctrl;
	if (ctrl && ctrl->sched.np.flag)
		ctrl->sched.np.flag--;
}

LITMUS_EXPORT int requested_to_preempt(void)
{
	return 0; /* nothing asks: the kernel preempts the section at will */
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
