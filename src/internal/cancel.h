/* SPDX-License-Identifier: MIT */
/*
 * Blocking calls that are cancellation points (pthread_cancel), as
 * pthread_cond_wait is.
 *
 * The library blocks in raw futex system calls, which glibc does not know as
 * cancellation points: with deferred cancellation a cancelled thread would
 * sleep on (glibc's SIGCANCEL handler is SA_RESTART and, for a deferred
 * thread, only records the request). So the system call runs with
 * asynchronous cancellation enabled, and only the system call:
 *
 *     pthread_cleanup_push(undo, &state);
 *     int type = rts_cancel_async_begin();  // acts on a pending request here
 *     ret = <one futex system call>;
 *     rts_cancel_async_end(type);
 *     pthread_cleanup_pop(0);
 *
 * A request that arrives while the thread sleeps interrupts the call and
 * unwinds the thread from the signal handler, running `undo`, which must put
 * right whatever the call may or may not have done (it can run before the
 * call entered the kernel, while it slept, or after it returned). Between
 * begin and end nothing but the system call may run: async-cancel-safe code
 * only: a loop around the call and the look at its answer go outside. This
 * matters beyond the letter of POSIX under ThreadSanitizer, whose runtime
 * takes locks inside instrumented code (an acquire load takes the thread's
 * slot lock) while glibc's cancellation signal does not go through TSan: a
 * thread unwound there leaves the lock held and deadlocks at its next access
 * (a cancelled thread spinning on an acquire load hangs its process at once;
 * test_cond_cancel hung about once in 800 runs of a signal-and-cancel case
 * while a wait's loop test ran inside the region). With cancellation
 * disabled (PTHREAD_CANCEL_DISABLE) both calls change nothing that matters
 * and the wait is not a cancellation point, as POSIX says.
 */
#ifndef RTS_INTERNAL_CANCEL_H
#define RTS_INTERNAL_CANCEL_H

#include <pthread.h>

static inline int rts_cancel_async_begin(void)
{
	int previous = PTHREAD_CANCEL_DEFERRED;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &previous);
	return previous;
}

static inline void rts_cancel_async_end(int previous)
{
	pthread_setcanceltype(previous, NULL);
}

#endif
