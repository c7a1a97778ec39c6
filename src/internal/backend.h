/* SPDX-License-Identifier: MIT */
/*
 * The execution backend: how a task blocks, is woken, inherits priority,
 * changes priority, and learns who and where it is (docs/architecture.md, "C library"). Lock,
 * condition-variable and task code decides *what* to do with its words in
 * user space; every time it must sleep, wake somebody, interrupt a blocked
 * task or change a priority it calls the backend, never the kernel
 * directly. The threads backend (platform/backend_threads.c) maps the calls
 * onto futexes, the kernel's rt_mutex PI, signals and sched_setattr; a
 * user-level scheduler backend implements the same calls over its own run
 * queues, as one more file and one more entry in rts_backend_by_name.
 *
 * What a backend must guarantee:
 *  - Identity: self_id is the calling task's identity, nonzero and at most
 *    RTS_FUTEX_TID_MASK; lock words store it as their owner. It is stable
 *    for the task's life. The library caches it per kernel thread
 *    (internal/tid.h), so a backend whose tasks move between kernel threads
 *    must keep that cache right when it switches tasks.
 *  - PI words: a word in the kernel's PI format (owner identity | OWNER_DIED
 *    | WAITERS) is owned by the task whose identity it holds. pi_block makes
 *    that owner (and transitively whatever it blocks on) run at least at the
 *    caller's priority until the word is handed over, and hands it over
 *    highest priority first, FIFO among equals; if the owner ends, the word
 *    goes to a blocked task with OWNER_DIED set.
 *  - block / wake: block returns only when woken, on a mismatch, at the
 *    deadline, or when interrupted; a wake after the word changed is never
 *    lost (the compare and the sleep are one step).
 *  - interrupt: a task blocked in pi_block or block returns from it (-EINTR
 *    or, for the threads backend, through the RTS_WAKE_SIGNAL handler,
 *    internal/wake_signal.h); a task not blocked is not disturbed beyond a
 *    spurious return of its next block.
 *  - Priorities: get_attr / set_attr read and change a task's scheduling
 *    attributes (the kernel's struct sched_attr); a change is in force when
 *    set_attr returns.
 *  - Calls with signals blocked: every operation may be called with any
 *    signal mask; none of them changes it. Async-signal-safe (callable from
 *    a signal handler): wake, pi_wake, interrupt, self_id, current_cpu.
 *  - Cancellation: block, pi_block and cond_block are single system calls
 *    in the threads backend, so callers may make them cancellation points
 *    (internal/cancel.h); another backend must keep them cancellable or say
 *    so.
 *
 * Every operation returns 0 (or a count) on success and -errno on failure.
 * Words are 32-bit futex words.
 */
#ifndef RTS_INTERNAL_BACKEND_H
#define RTS_INTERNAL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <rtsched/task.h>

#include "internal/cpu.h"
#include "internal/futex.h"
#include "internal/sched_attr.h"

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
	 * policy; SCHED_DEADLINE's deadline and period: rts_task_dl_deadline_ns,
	 * rts_task_dl_period_ns). On failure `why` says what was refused and what
	 * to change. */
	int (*task_admit)(const struct rts_task_params *params, char *why, size_t why_len);
	/* Sleep until an absolute CLOCK_MONOTONIC time: 0, or -EINTR when interrupted. */
	int (*sleep_until)(int64_t time_ns);
	/* A job of the calling task is released (before its body runs) / has
	 * completed; the threads backend needs neither (NULL: nothing to do). */
	void (*job_released)(void);
	void (*job_completed)(void);
	/* An event-triggered task's next job is released at release_ns, an
	 * activation's time rather than the end of a release sleep: by its
	 * activator just before the wake, or by the task itself when it takes a
	 * queued activation. A backend that orders its tasks by their releases
	 * (the ult backend's keys) orders this one by it (NULL: nothing to do). */
	void (*job_release_at)(rts_task_t *task, int64_t release_ns);

	/*
	 * How tasks run, for a backend that does not make a kernel thread per
	 * task (all NULL for the threads backend):
	 *  - configure: the backend is chosen for `set` under `name` (its full
	 *    name, options included, "ult:cedf:2"); it makes set->backend_state
	 *    or says in `why` what is wrong with the name.
	 *  - task_start: run the task, validated and with its trace stream, the
	 *    backend's way; its body is body(task) (the task layer's
	 *    rts_task_body_without_thread, passed in: a backend never calls up
	 *    into the task layer, src/layers.txt).
	 *  - task_join: return once the task ended; while the set stops, end its
	 *    release sleeps (interrupt).
	 *  - set_destroy: every task has been joined; free set->backend_state.
	 *  - cputime_ns: the calling task's CPU time (NULL: the kernel thread's
	 *    CLOCK_THREAD_CPUTIME_ID), for the job's CPU time in COMPLETE.
	 */
	int (*configure)(rts_taskset_t *set, const char *name, char *why, size_t why_len);
	int (*task_start)(rts_task_t *task, void (*body)(rts_task_t *task), char *why,
			  size_t why_len);
	void (*task_join)(rts_task_t *task);
	void (*set_destroy)(rts_taskset_t *set);
	int64_t (*cputime_ns)(void);

	/* The calling task's identity (see above). */
	uint32_t (*self_id)(void);
	/* Whether task `id` exists. */
	bool (*task_exists)(uint32_t id);
	/* Interrupt task `id` if it is blocked (see above). */
	int (*interrupt)(uint32_t id);
	/* Scheduling attributes of task `id` (0: the caller). */
	int (*get_attr)(uint32_t id, struct rts_sched_attr *attr);
	int (*set_attr)(uint32_t id, const struct rts_sched_attr *attr);
	/* The CPU the caller runs on, -1 if unknown. NULL: the kernel's answer
	 * (rts_kernel_cpu), right for a backend whose tasks run only on kernel
	 * threads pinned to one CPU each, as the ult backend's workers are. */
	int (*current_cpu)(void);
};

extern const struct rts_backend rts_backend_threads;
extern const struct rts_backend rts_backend_ult; /* ult/backend_ult.c, docs/ult.md */

/* The calling thread's backend; NULL means the threads backend (internal/backend.h). */
extern __thread const struct rts_backend *rts_backend_of_thread __attribute__((tls_model("initial-exec")));

/* The backend of the calling task. */
static inline const struct rts_backend *rts_backend(void)
{
	const struct rts_backend *backend = rts_backend_of_thread;
	return backend ? backend : &rts_backend_threads;
}

/*
 * A task's priority for ordering waiters in user-space queues (condvar and
 * PI-CV waiters, RPC requests): its SCHED_FIFO/RR priority; SCHED_DEADLINE
 * above every one of them (RTS_QUEUE_PRIORITY_DEADLINE); any other policy,
 * or a task that has ended, 0. id 0 is the calling task.
 */
#define RTS_QUEUE_PRIORITY_DEADLINE 100

static inline int rts_task_queue_priority(uint32_t id)
{
	struct rts_sched_attr attr = { .size = sizeof(attr) };
	if (rts_backend()->get_attr(id, &attr) != 0)
		return 0;
	switch (attr.sched_policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return (int)attr.sched_priority;
	case SCHED_DEADLINE:
		return RTS_QUEUE_PRIORITY_DEADLINE;
	default:
		return 0;
	}
}

/* The backend called `name` ("threads", "ult"), or whose name `name` starts
 * with, followed by ':' and its options ("ult:pedf"); NULL if none. */
const struct rts_backend *rts_backend_by_name(const char *name);

/*
 * The CPU the caller runs on: the kernel's answer inline (one load of the
 * rseq area) for the threads backend and a backend whose tasks run on
 * pinned kernel threads (current_cpu NULL), any other backend's through its
 * table.
 */
static inline int rts_current_cpu(void)
{
	const struct rts_backend *backend = rts_backend_of_thread;
	return rts_likely(!backend || !backend->current_cpu) ? rts_kernel_cpu()
							     : backend->current_cpu();
}

/* The kernel's SCHED_DEADLINE deadline and period of a task's thread: its own, else the task's. */
static inline int64_t rts_task_dl_deadline_ns(const struct rts_task_params *p)
{
	return p->dl_deadline_ns ? p->dl_deadline_ns : p->deadline_ns;
}

static inline int64_t rts_task_dl_period_ns(const struct rts_task_params *p)
{
	return p->dl_period_ns ? p->dl_period_ns : p->period_ns;
}

#endif
