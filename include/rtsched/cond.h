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
 * seq:     the futex word waiters sleep on; every signal and broadcast that
 *          finds a waiter increments it.
 * waiters: threads between registering (with the mutex held) and leaving
 *          rts_cond_wait; signal and broadcast make no system call when 0.
 * mutex_offset: (char *)mutex - (char *)cond of the mutex the waiters use.
 * picv:    PI-CV state (helpers, waiter queue), made by the first
 *          rts_cond_helper_add; NULL for a plain PI condition variable.
 */
struct rts_cond_s {
	uint32_t seq;
	uint32_t flags;
	uint32_t waiters;
	uint32_t reserved0;
	int64_t mutex_offset;
	void *picv;
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
/* EBUSY while threads wait. */
int rts_cond_destroy(rts_cond_t *cond);

/*
 * The caller must own mutex (EPERM otherwise). Returns with the mutex held
 * again: 0, or EOWNERDEAD / ENOTRECOVERABLE from a robust mutex, or EINVAL
 * when waiters use different mutexes at the same time.
 */
int rts_cond_wait(rts_cond_t *cond, rts_mutex_t *mutex);
/* As rts_cond_wait; ETIMEDOUT once the absolute deadline (the condvar's clock) passes. */
int rts_cond_timedwait(rts_cond_t *cond, rts_mutex_t *mutex, const struct timespec *deadline);
/* Wake the highest-priority waiter. Best called with the mutex held. */
int rts_cond_signal(rts_cond_t *cond);
/* Wake every waiter; with a PIP mutex all but one are moved onto the mutex. */
int rts_cond_broadcast(rts_cond_t *cond);

/*
 * PI on condition variables (PI-CV, seed 004): declare thread `tid` (a kernel
 * TID, as gettid() returns) a helper of `cond`: a thread that will make the
 * awaited condition true. While a thread waits on a condition variable with a
 * helper, it lends the helper its priority, transitively: if the helper
 * blocks on a PI mutex or waits on another PI-CV, that owner or helper
 * inherits too; several waiters combine by maximum. The loan ends when the
 * waiter is woken (signal, broadcast, timeout). Helpers may be added or
 * removed while threads wait: the waiters move their loan at once.
 *
 * This version: one helper per condition variable (the kernel's PI through a
 * per-waiter token, docs/picv-design.md); process-private only. Errors:
 * EINVAL (bad tid), ESRCH (no such thread), EEXIST / ENOENT (already / not a
 * helper), ENOTSUP (a second helper, or a process-shared condvar), EBUSY
 * (the first helper of a condvar that plain waiters wait on), ENOMEM.
 *
 * A wait on a PI-CV also returns ESRCH (mutex held again) when its helper
 * exited while it waited, and EDEADLK when waiting would close a donation
 * cycle (the helper waits, directly or through others, for the waiter).
 * With SCHED_DEADLINE threads the kernel's PI lends deadline parameters.
 */
int rts_cond_helper_add(rts_cond_t *cond, pid_t tid);
int rts_cond_helper_del(rts_cond_t *cond, pid_t tid);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_COND_H */
