/* SPDX-License-Identifier: MIT */
/*
 * rts_cond_t: a condition variable in the image of pthread_cond_t that keeps
 * priority inheritance across the wait.
 *
 * With an RTS_PROTO_PIP mutex, waiters sleep with FUTEX_WAIT_REQUEUE_PI and
 * signal / broadcast move them with FUTEX_CMP_REQUEUE_PI straight onto the
 * mutex's PI futex: a woken waiter never runs unboosted while the signaller
 * still holds the mutex, and the signaller inherits its priority meanwhile.
 * With an RTS_PROTO_NONE mutex it is a plain futex condition variable.
 *
 * Waiters are woken highest (kernel) priority first, FIFO among equal
 * priorities: the kernel's futex queues are priority lists.
 *
 * Process-shared: the condition variable remembers its mutex as an offset
 * from itself, not as a pointer, so a condvar and its mutex placed in one
 * MAP_SHARED mapping work in every process that maps it, at any address.
 * (A pshared condvar must therefore live in the same mapping as its mutex.)
 *
 * All functions return 0 or a positive error number.
 */
#ifndef RTSCHED_COND_H
#define RTSCHED_COND_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <rtsched/mutex.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of rts_cond_t.s.flags, set at init. */
#define RTS_COND_F_PSHARED   0x00000100u
#define RTS_COND_F_REALTIME  0x00000200u /* timedwait deadlines on CLOCK_REALTIME */

/*
 * The fields are the library's; a program only declares, initialises
 * (rts_cond_init or RTS_COND_INITIALIZER) and passes the object.
 *
 * seq:     process-shared: the futex word waiters sleep on; every signal
 *          and broadcast that finds a waiter increments it.
 * flags:   RTS_COND_F_*.
 * waiters: process-private: the waiters queued in `queue` (bit 31: destroy
 *          sleeps until they leave); process-shared: threads between
 *          registering (with the mutex held) and leaving the wait.
 *          Signal and broadcast make no system call when it is 0.
 * lock:    process-private: a PI futex word guarding `queue` and `waiters`.
 * mutex_offset: (char *)mutex - (char *)cond of the mutex the waiters use.
 * picv:    PI-CV state (helpers, waiter queue), made by the first
 *          rts_cond_helper_add; NULL for a plain PI condition variable.
 * queue:   process-private: the waiters, one record per waiting thread.
 * incarnation: process-private: this condvar's number in the library's
 *          registry of live condvars (0: not yet waited on).
 */
struct rts_cond_s {
	uint32_t seq;
	uint32_t flags;
	uint32_t waiters;
	uint32_t lock;
	int64_t mutex_offset;
	void *picv;
	void *queue;
	uint64_t incarnation;
};

typedef union rts_cond {
	struct rts_cond_s s;
	uint8_t size_[64];
	uint64_t align_;
} rts_cond_t;

#define RTS_COND_INIT(flags_) { .s = { .seq = 0, .flags = (flags_) } }
#define RTS_COND_INITIALIZER RTS_COND_INIT(0)

typedef struct rts_condattr {
	uint32_t flags;
} rts_condattr_t;

int rts_condattr_init(rts_condattr_t *attr);
int rts_condattr_destroy(rts_condattr_t *attr);
int rts_condattr_setpshared(rts_condattr_t *attr, int pshared);
int rts_condattr_getpshared(const rts_condattr_t *attr, int *pshared);
/* CLOCK_MONOTONIC (the default) or CLOCK_REALTIME; EINVAL otherwise. */
int rts_condattr_setclock(rts_condattr_t *attr, clockid_t clock);
int rts_condattr_getclock(const rts_condattr_t *attr, clockid_t *clock);

/* attr may be NULL: process-private, CLOCK_MONOTONIC. */
int rts_cond_init(rts_cond_t *cond, const rts_condattr_t *attr);
/*
 * EBUSY while a thread is blocked on cond. As POSIX allows, a condvar may be
 * destroyed, and its memory freed or reused, as soon as no thread is
 * blocked on it, e.g. right after a broadcast while the woken threads have
 * not yet returned: they no longer touch it. (A waiter that timed out or
 * was cancelled and is still leaving needs a moment: destroy waits for it.)
 * Process-shared condvars are the exception: their waiters share one kernel
 * futex queue and a count in the object, and a woken waiter leaves the count
 * only once it owns the mutex again, so destroy returns EBUSY until the
 * woken waiters have returned; a waiter whose process was killed while it
 * waited stays counted (destroy EBUSY for good; rts_cond_init starts the
 * object afresh when no live thread waits).
 */
int rts_cond_destroy(rts_cond_t *cond);

/*
 * The caller must own mutex (EPERM otherwise). Returns with the mutex held
 * again: 0, or EOWNERDEAD / ENOTRECOVERABLE from a robust mutex, or EINVAL
 * when waiters use different mutexes at the same time.
 *
 * rts_cond_wait and rts_cond_timedwait are cancellation points, as
 * pthread_cond_wait is: a thread cancelled while it waits acts on it at
 * once and runs its cleanup handlers owning the mutex again. A signal that
 * had chosen it is passed on to another waiter (a spurious wake-up at
 * worst, never a lost one).
 */
int rts_cond_wait(rts_cond_t *cond, rts_mutex_t *mutex);
/* As rts_cond_wait; ETIMEDOUT once the absolute deadline (the condvar's clock) passes. */
int rts_cond_timedwait(rts_cond_t *cond, rts_mutex_t *mutex, const struct timespec *deadline);
/* Wake the highest-priority waiter. Best called with the mutex held. */
int rts_cond_signal(rts_cond_t *cond);
/* Wake every waiter; with a PIP mutex all but one are moved onto the mutex. */
int rts_cond_broadcast(rts_cond_t *cond);

/* The most helpers one condition variable can have. */
#define RTS_COND_MAX_HELPERS 32

/*
 * PI on condition variables (PI-CV, seed 004): declare thread `tid` (a kernel
 * TID, as gettid() returns) a helper of `cond`: a thread that will make the
 * awaited condition true. While a thread waits on a condition variable with
 * helpers, it lends its priority to every helper of lower priority,
 * transitively: if a helper blocks on a PI mutex or waits on another PI-CV,
 * that owner or those helpers inherit too; several waiters combine by
 * maximum. The loan ends when the waiter is woken (signal, broadcast,
 * timeout), and every thread goes back to exactly the priority it had.
 * Helpers may be added or removed while threads wait: the waiters move their
 * loan at once.
 *
 * How (docs/picv-design.md): a waiter lends to one helper (its anchor,
 * normally the first added) through the kernel's PI, blocking on a
 * per-waiter PI token; with several helpers it lends to the others through
 * the library's donation graph, which raises them with sched_setattr to
 * max(own priority, donors) and restores them after. The choice is
 * automatic. Process-private only. Raising another thread needs the right to
 * (CAP_SYS_NICE or RLIMIT_RTPRIO); a raise the kernel refuses is skipped.
 *
 * The base priority of a raised helper is remembered when the library first
 * raises it and restored when its last loan ends. A helper that changes its
 * own priority while raised keeps its new setting: the library takes it as
 * the new base the next time it would change or restore that helper.
 *
 * SCHED_DEADLINE: with one helper the kernel's PI lends a SCHED_DEADLINE
 * waiter's deadline parameters to the helper. A deadline cannot be lent with
 * sched_setattr, so a SCHED_DEADLINE thread's wait on a condition variable
 * with two helpers or more returns ENOTSUP (mutex held again). A
 * SCHED_DEADLINE helper is never changed by the library (it already runs
 * above every SCHED_FIFO priority).
 *
 * Errors of add / del: EINVAL (bad tid), ESRCH (no such thread), EEXIST /
 * ENOENT (already / not a helper), ENOSPC (RTS_COND_MAX_HELPERS already),
 * ENOTSUP (a process-shared condvar), EBUSY (the first helper of a condvar
 * that plain waiters wait on), ENOMEM.
 *
 * A wait on a PI-CV also returns, with the mutex held again:
 *  - ESRCH when every helper it lent to exited while it waited (while one of
 *    them lives, it keeps waiting); the library notices an exit when the
 *    waiter's anchor exits, and then drops every helper of the condvar that
 *    has gone;
 *  - EDEADLK when waiting would be a deadlock: every helper waits, directly
 *    or through other PI-CVs, for the waiter (with one helper per condvar:
 *    any cycle). A cycle with a way out, where some thread on it lends on to
 *    a thread that runs or that waits with a timeout, is no deadlock: the
 *    waits go on and the loans combine around the cycle;
 *  - ENOTSUP, SCHED_DEADLINE with several helpers (above).
 * Helpers are named by TID: a TID the kernel reuses after a helper exited
 * names the new thread.
 */
int rts_cond_helper_add(rts_cond_t *cond, pid_t tid);
int rts_cond_helper_del(rts_cond_t *cond, pid_t tid);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_COND_H */
