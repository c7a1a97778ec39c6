/* SPDX-License-Identifier: MIT */
/*
 * rts_cond: a condition variable on one futex word, `seq`, with requeue-PI
 * for PIP mutexes.
 *
 * Wait (the caller owns the mutex):
 *   1. snapshot = seq                (acquire)
 *   2. waiters += 1                  (release)
 *   3. unlock the mutex
 *   4. sleep while seq == snapshot   (FUTEX_WAIT_REQUEUE_PI or FUTEX_WAIT_BITSET)
 *   5. own the mutex again (the kernel gave it, or lock it), waiters -= 1
 *
 * Signal / broadcast: if waiters > 0, seq += 1 and move one / all sleepers
 * (FUTEX_CMP_REQUEUE_PI onto the mutex, or FUTEX_WAKE).
 *
 * Why no wake-up is lost: a signaller that reads waiters == 0 ran before the
 * waiter's step 2, so that waiter was not yet waiting. One that reads
 * waiters > 0 increments seq after the waiter's step 1 (the release in step 2
 * pairs with the signaller's acquire read of waiters), so the waiter either
 * sleeps already and is moved, or its step 4 finds seq changed and returns.
 *
 * Exactness: when every waiter sleeps in step 4, a signal wakes exactly one,
 * the kernel's top waiter (highest priority, FIFO among equals). A waiter
 * caught between steps 3 and 4 by a signal returns too (a spurious wake-up,
 * which POSIX allows). A timed wait that times out returns ETIMEDOUT only if
 * seq has not moved since its snapshot: had a signal chosen it (requeued it
 * and then the deadline passed while it waited for the mutex), seq would have
 * moved, and it reports the wake-up instead, so no signal is swallowed.
 *
 * All waiters at one time must use the same mutex (POSIX); it is stored as an
 * offset from the condvar so that a process-shared pair works in processes
 * that map it at different addresses.
 *
 * Once a condvar has had a helper (rts_cond_helper_add), every wait and wake
 * goes through the PI-CV path of picv.c instead.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include <rtsched/cond.h>

#include "internal/backend.h"
#include "internal/cond.h"
#include "internal/export.h"
#include "internal/mutex.h"
#include "internal/picv.h"
#include "internal/robust_list.h"
#include "internal/tid.h"
#include "internal/timespec.h"

static rts_futex_word *seq_word(rts_cond_t *c)
{
	return (rts_futex_word *)&c->s.seq;
}

static _Atomic uint32_t *waiters_count(rts_cond_t *c)
{
	return (_Atomic uint32_t *)&c->s.waiters;
}

static _Atomic int64_t *mutex_offset(rts_cond_t *c)
{
	return (_Atomic int64_t *)&c->s.mutex_offset;
}

static bool cond_pshared(const rts_cond_t *c)
{
	return c->s.flags & RTS_COND_F_PSHARED;
}

static clockid_t cond_clock(const rts_cond_t *c)
{
	return (c->s.flags & RTS_COND_F_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
}

RTS_EXPORT int rts_cond_init(rts_cond_t *c, const rts_condattr_t *attr)
{
	uint32_t flags;
	if (!c)
		return EINVAL;
	int ret = rts_condattr_flags(attr, &flags);
	if (ret)
		return ret;
	memset(c, 0, sizeof(*c));
	c->s.flags = flags;
	return 0;
}

RTS_EXPORT int rts_cond_destroy(rts_cond_t *c)
{
	if (!c)
		return EINVAL;
	if (rts_picv_of(c))
		return rts_picv_destroy(c);
	return atomic_load_explicit(waiters_count(c), memory_order_acquire) ? EBUSY : 0;
}

/* Check the pair and record the mutex for signallers. */
static int bind_mutex(rts_cond_t *c, rts_mutex_t *m)
{
	uint32_t mflags = rts_mutex_flags_load(m);
	if (rts_mutex_is_pshared(mflags) != cond_pshared(c))
		return EINVAL; /* futex keys of the two words would not match */
	uint32_t owner = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed) &
			 RTS_FUTEX_TID_MASK;
	if (owner != rts_self_tid())
		return EPERM;
	int64_t offset = (char *)m - (char *)c;
	int64_t bound = atomic_load_explicit(mutex_offset(c), memory_order_relaxed);
	if (bound != offset) {
		if (atomic_load_explicit(waiters_count(c), memory_order_relaxed) != 0)
			return EINVAL; /* others wait with another mutex */
		atomic_store_explicit(mutex_offset(c), offset, memory_order_relaxed);
	}
	return 0;
}

static rts_mutex_t *bound_mutex(rts_cond_t *c)
{
	return (rts_mutex_t *)((char *)c + atomic_load_explicit(mutex_offset(c),
								 memory_order_relaxed));
}

/* Step 4 for a PIP mutex. Returns the kernel's answer; 0 means the caller owns m. */
static int sleep_requeue_pi(rts_cond_t *c, rts_mutex_t *m, uint32_t snapshot,
			    const struct timespec *deadline, bool robust)
{
	const struct rts_backend *backend = rts_backend();
	if (robust && rts_mutex_robust_announce(m) != 0)
		robust = false; /* the wait still works; only death recovery is lost */
	int ret;
	do
		ret = backend->cond_block(seq_word(c), snapshot, deadline, cond_clock(c),
					  rts_mutex_word(m), cond_pshared(c));
	while (ret == -EINTR);
	if (robust && ret != 0)
		rts_robust_list_clear_pending();
	return ret;
}

/* Step 4 for a NONE mutex. */
static int sleep_plain(rts_cond_t *c, uint32_t snapshot, const struct timespec *deadline)
{
	const struct rts_backend *backend = rts_backend();
	int ret;
	do
		ret = backend->block(seq_word(c), snapshot, deadline, cond_clock(c), cond_pshared(c));
	while (ret == -EINTR);
	return ret;
}

static int wait_common(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline)
{
	if (!c || !m)
		return EINVAL;
	int ret = bind_mutex(c, m);
	if (ret)
		return ret;
	if (deadline && !rts_timespec_valid(deadline))
		return EINVAL;
	struct rts_picv *picv = rts_picv_of(c);
	if (picv) {
		struct timespec deadline_mono;
		if (deadline && cond_clock(c) == CLOCK_REALTIME) {
			deadline_mono = rts_timespec_convert(deadline, CLOCK_REALTIME, CLOCK_MONOTONIC);
			deadline = &deadline_mono;
		}
		return rts_picv_wait(picv, m, deadline);
	}
	uint32_t mflags = rts_mutex_flags_load(m);
	bool pi = rts_mutex_protocol(mflags) == RTS_PROTO_PIP;

	uint32_t snapshot = atomic_load_explicit(seq_word(c), memory_order_acquire);
	atomic_fetch_add_explicit(waiters_count(c), 1, memory_order_release);
	ret = rts_mutex_unlock(m);
	if (ret) {
		atomic_fetch_sub_explicit(waiters_count(c), 1, memory_order_relaxed);
		return ret;
	}

	int slept = pi ? sleep_requeue_pi(c, m, snapshot, deadline, mflags & RTS_MUTEX_F_ROBUST)
		       : sleep_plain(c, snapshot, deadline);
	int lock_ret = (pi && slept == 0) ? rts_mutex_acquired_by_kernel(m) : rts_mutex_lock(m);
	bool timed_out = slept == -ETIMEDOUT &&
			 atomic_load_explicit(seq_word(c), memory_order_relaxed) == snapshot;
	atomic_fetch_sub_explicit(waiters_count(c), 1, memory_order_relaxed);
	if (lock_ret)
		return lock_ret;
	if (slept == -EINVAL)
		return EINVAL; /* waiters on this condvar named other mutexes */
	return timed_out ? ETIMEDOUT : 0;
}

RTS_EXPORT int rts_cond_wait(rts_cond_t *c, rts_mutex_t *m)
{
	return wait_common(c, m, NULL);
}

RTS_EXPORT int rts_cond_timedwait(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline)
{
	if (!deadline)
		return EINVAL;
	return wait_common(c, m, deadline);
}

/* Move one (nr_requeue 0) or all (INT_MAX) sleepers onto the PIP mutex. */
static int requeue_pi(rts_cond_t *c, rts_mutex_t *m, uint32_t seq, int nr_requeue)
{
	const struct rts_backend *backend = rts_backend();
	for (;;) {
		int ret = backend->cond_requeue(seq_word(c), seq, nr_requeue, rts_mutex_word(m),
						cond_pshared(c));
		if (ret >= 0)
			return 0;
		if (ret != -EAGAIN)
			return -ret;
		/* A concurrent signal moved seq on: retry with its value. */
		seq = atomic_load_explicit(seq_word(c), memory_order_acquire);
	}
}

static int wake_waiters(rts_cond_t *c, bool all)
{
	if (!c)
		return EINVAL;
	struct rts_picv *picv = rts_picv_of(c);
	if (picv)
		return rts_picv_wake(picv, all);
	if (atomic_load_explicit(waiters_count(c), memory_order_acquire) == 0)
		return 0;
	uint32_t seq = atomic_fetch_add_explicit(seq_word(c), 1, memory_order_acq_rel) + 1;
	rts_mutex_t *m = bound_mutex(c);
	if (rts_mutex_protocol(rts_mutex_flags_load(m)) == RTS_PROTO_PIP)
		return requeue_pi(c, m, seq, all ? INT_MAX : 0);
	int ret = rts_backend()->wake(seq_word(c), all ? INT_MAX : 1, cond_pshared(c));
	return ret < 0 ? -ret : 0;
}

RTS_EXPORT int rts_cond_signal(rts_cond_t *c)
{
	return wake_waiters(c, false);
}

RTS_EXPORT int rts_cond_broadcast(rts_cond_t *c)
{
	return wake_waiters(c, true);
}
