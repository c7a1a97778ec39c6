/* SPDX-License-Identifier: MIT */
/*
 * The execution backend: how a task blocks, is woken and inherits priority
 * (DESIGN §3). Lock and condition-variable code decides *what* to do with its
 * words in user space; every time it must sleep or wake somebody it calls the
 * backend, never the kernel directly. The threads backend maps the calls onto
 * futexes and the kernel's rt_mutex PI; the user-level scheduler backend will
 * implement the same calls over its own run queues, and the ceiling protocols
 * add set_effective_prio beside them. Tasks (src/task/) become tasks and wait
 * for their releases through it too.
 *
 * Every operation returns 0 (or a count) on success and -errno on failure.
 * Words are 32-bit futex words; PI words are in the kernel's PI format
 * (owner TID | FUTEX_OWNER_DIED | FUTEX_WAITERS).
 */
#ifndef RTS_INTERNAL_BACKEND_H
#define RTS_INTERNAL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <rtsched/task.h>

#include "internal/futex.h"

struct rts_backend {
	const char *name;
	/* Sleep while *word == expected, until deadline on clock (NULL: none).
	 * 0 when woken (maybe spuriously), -EAGAIN, -ETIMEDOUT, -EINTR. */
	int (*block)(rts_futex_word *word, uint32_t expected, const struct timespec *deadline,
		     clockid_t clock, bool pshared);
	/* Wake up to count sleepers of word; the number woken. */
	int (*wake)(rts_futex_word *word, int count, bool pshared);
	/* Block until the caller owns the PI word; the owner inherits the caller's
	 * priority meanwhile. Deadline on CLOCK_MONOTONIC (NULL: none).
	 * 0, -ETIMEDOUT, -EDEADLK, -EAGAIN (no PI state memory), -ENOMEM. */
	int (*pi_block)(rts_futex_word *word, const struct timespec *deadline_mono, bool pshared);
	/* Hand the PI word to its highest-priority blocked task (or free it). */
	int (*pi_wake)(rts_futex_word *word, bool pshared);
	/* Sleep on cond while *cond == expected; cond_requeue moves the caller onto
	 * the PI word mutex, and 0 means it returns owning mutex. */
	int (*cond_block)(rts_futex_word *cond, uint32_t expected, const struct timespec *deadline,
			  clockid_t clock, rts_futex_word *mutex, bool pshared);
	/* If *cond == expected, move the top sleeper of cond (and up to nr_requeue
	 * more) onto mutex, waking it if it could take mutex at once. The number moved. */
	int (*cond_requeue)(rts_futex_word *cond, uint32_t expected, int nr_requeue,
			    rts_futex_word *mutex, bool pshared);
	/* Make the calling thread the task `params` describes (cpuset, affinity,
	 * policy). On failure `why` says what was refused and what to change. */
	int (*task_admit)(const struct rts_task_params *params, char *why, size_t why_len);
	/* Sleep until an absolute CLOCK_MONOTONIC time: 0, or -EINTR when interrupted. */
	int (*sleep_until)(int64_t time_ns);
};

extern const struct rts_backend rts_backend_threads;

/* The backend of the calling task. */
static inline const struct rts_backend *rts_backend(void)
{
	return &rts_backend_threads;
}

#endif
