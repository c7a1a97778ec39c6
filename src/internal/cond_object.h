/* SPDX-License-Identifier: MIT */
/*
 * The condition variable object as every condvar file sees it (its ABI size,
 * its flags, waiter word and clock) and what they share: cond.c (the public
 * calls, dispatching by kind), cond_private.c (process-private: a queue of
 * per-thread waiter records), cond_shared.c (process-shared: one futex word
 * and a waiter count), cond_fifo.c (with a FIFO mutex) and picv.c (PI-CV).
 */
#ifndef RTS_INTERNAL_COND_OBJECT_H
#define RTS_INTERNAL_COND_OBJECT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rtsched/cond.h>

#include "internal/mutex.h"
#include "internal/tid.h"

_Static_assert(sizeof(rts_cond_t) == 64, "rts_cond_t is part of the ABI: 64 bytes");

/* Bit of rts_cond_t.s.flags: waiters use an RTS_PROTO_FIFO mutex (set by their wait). */
#define RTS_COND_F_FIFO 0x00010000u
/*
 * Bit of rts_cond_t.s.flags, process-shared condvars: waiters use an
 * RTS_PROTO_PIP mutex (set or cleared by each wait), so that a signaller
 * chooses requeue-PI without reading the mutex: its offset is only handed
 * to the kernel, which checks it against what the waiters asked for.
 */
#define RTS_COND_F_PIP 0x00020000u

static inline uint32_t rts_cond_flags_load(const rts_cond_t *c)
{
	return __atomic_load_n(&c->s.flags, __ATOMIC_RELAXED);
}

/* The RTS_COND_F_* bits of an attribute (NULL: the defaults); EINVAL if uninitialised. */
int rts_condattr_flags(const rts_condattr_t *attr, uint32_t *flags);

static inline _Atomic uint32_t *rts_cond_waiters(rts_cond_t *c)
{
	return (_Atomic uint32_t *)&c->s.waiters;
}

static inline clockid_t rts_cond_clock(const rts_cond_t *c)
{
	return (rts_cond_flags_load(c) & RTS_COND_F_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
}

/*
 * After a wait: own m again. requeue_pi: the wait slept with
 * FUTEX_WAIT_REQUEUE_PI, so the kernel may have given the caller m already
 * (its word holds the caller's TID: finish that acquisition); otherwise, or
 * if it did not, lock m. Same returns as rts_mutex_lock.
 */
static inline int rts_mutex_own_again(rts_mutex_t *m, bool requeue_pi)
{
	uint32_t owner = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed) &
			 RTS_FUTEX_TID_MASK;
	if (requeue_pi && owner == rts_self_tid())
		return rts_mutex_acquired_by_kernel(m);
	return rts_mutex_lock(m);
}

/*
 * The two algorithms. The caller of wait has checked the arguments and that
 * it owns m; deadline is absolute on the condvar's clock (NULL: none). Each
 * returns 0 or a positive error number, with m held again after a wait.
 * Both waits are cancellation points (pthread_cancel).
 */
int rts_cond_private_wait(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline);
int rts_cond_private_wake(rts_cond_t *c, bool all);
int rts_cond_private_destroy(rts_cond_t *c);

/*
 * cond_registry.c: live process-private condvars, for cancelled waiters that
 * pass a signal on (lock order: the registry lock, then a queue lock).
 * rts_cond_incarnation registers the condvar at its first wait (the caller
 * owns the waiters' mutex, so one at a time) and returns its incarnation
 * (0: no memory, not registered).
 */
uint64_t rts_cond_incarnation(rts_cond_t *c);
bool rts_cond_registered(rts_cond_t *c);
void rts_cond_registry_lock(void);
void rts_cond_registry_unlock(void);
bool rts_cond_registry_holds(const rts_cond_t *c, uint64_t incarnation); /* under the lock */
/*
 * The process-private algorithm (cond_private.c) follows the pointers in a
 * condvar (its queue) and takes its lock word, so it does so only for a
 * condvar this process registered and whose incarnation field still says so
 * (a condvar in shared memory may be rewritten by another process, issue 33).
 * rts_cond_admit, at every private wait: registers c if needed (starting its
 * queue words afresh when no waiter of this process can be in it) and gives
 * its incarnation; EINVAL when it is registered and its field was rewritten,
 * ENOMEM. rts_cond_trusted: whether a signal may follow c's queue (takes the
 * registry lock; _locked: under it).
 */
int rts_cond_admit(rts_cond_t *c, uint64_t *incarnation);
bool rts_cond_trusted(const rts_cond_t *c);
bool rts_cond_trusted_locked(const rts_cond_t *c);
void rts_cond_registry_leave(const rts_cond_t *c);                      /* under the lock */

/*
 * cond_fifo.c: with an RTS_PROTO_FIFO mutex (both pshared settings): seed
 * 000's COND_WAIT / COND_REQUEUE. wake needs the caller to own the mutex
 * (EPERM otherwise); destroy is EBUSY while a thread waits in the condvar's queue.
 */
/* pshared: the condvar's flag as the caller read it, once (cond.c, bind_mutex). */
int rts_cond_fifo_wait(rts_cond_t *c, bool pshared, rts_mutex_t *m,
		       const struct timespec *deadline);
int rts_cond_fifo_wake(rts_cond_t *c, bool pshared, bool all);
int rts_cond_fifo_destroy(rts_cond_t *c);

int rts_cond_shared_wait(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline);
int rts_cond_shared_wake(rts_cond_t *c, bool all);
int rts_cond_shared_destroy(rts_cond_t *c);

#endif
