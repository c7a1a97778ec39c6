/* SPDX-License-Identifier: MIT */
/*
 * The futex-word protocols: RTS_PROTO_NONE and RTS_PROTO_PIP, robust or
 * not (one file: they differ only in how a thread sleeps and wakes).
 *
 * The word (see <rtsched/mutex.h>) is in the kernel's PI-futex format for
 * both protocols. States, with T the owner's TID:
 *
 *   0                      unlocked
 *   T                      locked, nobody sleeps in the kernel
 *   T | WAITERS            locked, somebody may sleep in the kernel: the
 *                          unlocker must call the backend
 *   OWNER_DIED [| WAITERS] robust: the owner died holding it; the next locker
 *                          takes it over and gets EOWNERDEAD
 *
 * NONE: the fast path is one CAS 0 -> T; contention sets WAITERS and sleeps
 * with FUTEX_WAIT_BITSET; unlock is CAS T -> 0, or exchange with 0 and
 * FUTEX_WAKE when WAITERS was set. A thread that has slept always sets WAITERS
 * when it takes the lock, since it cannot know whether others still sleep.
 *
 * PIP: the fast path is the same CAS; everything else is the kernel's: with
 * FUTEX_LOCK_PI2 the kernel sets WAITERS, boosts the owner and hands the
 * lock over at FUTEX_UNLOCK_PI (the new owner's TID is written by the kernel).
 *
 * The fast paths themselves are inline in mutex.c; this file has what
 * follows when they fail, and everything for robust mutexes.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>

#include <rtsched/mutex.h>

#include "internal/backend.h"
#include "internal/lock_protocol.h"
#include "internal/mutex.h"
#include "internal/pi_word.h"
#include "internal/robust_list.h"
#include "internal/tid.h"
#include "internal/timespec.h"

static bool is_robust(uint32_t flags)
{
	return flags & RTS_MUTEX_F_ROBUST;
}

static bool is_pi(uint32_t flags)
{
	return rts_mutex_protocol(flags) == RTS_PROTO_PIP;
}

/*
 * Whether the NONE protocol's FUTEX_WAIT / FUTEX_WAKE on the word are
 * process-shared. A robust mutex's always are: at thread exit the kernel
 * wakes a waiter of a dead owner's word with a shared FUTEX_WAKE, which does
 * not match a waiter sleeping with FUTEX_PRIVATE_FLAG (glibc's robust mutexes
 * do the same, PTHREAD_ROBUST_MUTEX_PSHARED). PI words need no such care: the
 * kernel hands them over through their pi_state.
 */
static bool plain_futex_shared(uint32_t flags)
{
	return rts_mutex_is_pshared(flags) || is_robust(flags);
}

/*
 * The caller now owns a word whose previous owner died. Only a robust mutex
 * reports it: a word that is not robust is never on a robust list, so the
 * mark came from a write by another process (or a list it misdirected), and
 * such a mutex has no consistent / not-recoverable states to offer.
 */
static int mark_inconsistent(rts_mutex_t *m, uint32_t flags)
{
	if (!is_robust(flags))
		return 0;
	rts_mutex_flags_update(m, RTS_MUTEX_F_INCONSISTENT, 0);
	return EOWNERDEAD;
}

static int lock_plain(rts_mutex_t *m, uint32_t flags, uint32_t tid,
		      const struct timespec *deadline)
{
	rts_futex_word *word = rts_mutex_word(m);
	const struct rts_backend *backend = rts_backend();
	bool slept = false;
	uint32_t v = atomic_load_explicit(word, memory_order_relaxed);
	for (;;) {
		uint32_t owner = v & RTS_FUTEX_TID_MASK;
		if (owner == tid)
			return EDEADLK;
		if (owner == 0) {
			uint32_t want = tid | (v & RTS_FUTEX_WAITERS) | (slept ? RTS_FUTEX_WAITERS : 0);
			if (atomic_compare_exchange_weak_explicit(word, &v, want, memory_order_acquire,
								  memory_order_relaxed))
				return (v & RTS_FUTEX_OWNER_DIED) ? mark_inconsistent(m, flags) : 0;
			continue;
		}
		if (!(v & RTS_FUTEX_WAITERS)) {
			if (!atomic_compare_exchange_weak_explicit(word, &v, v | RTS_FUTEX_WAITERS,
								   memory_order_relaxed,
								   memory_order_relaxed))
				continue;
			v |= RTS_FUTEX_WAITERS;
		}
		if (deadline && !rts_timespec_valid(deadline))
			return EINVAL;
		int ret = backend->block(word, v, deadline, CLOCK_MONOTONIC, plain_futex_shared(flags));
		if (ret == -ETIMEDOUT)
			return ETIMEDOUT;
		if (is_robust(flags) &&
		    (rts_mutex_flags_load(m) & RTS_MUTEX_F_NOTRECOVERABLE))
			return ENOTRECOVERABLE;
		slept = true;
		v = atomic_load_explicit(word, memory_order_relaxed);
	}
}

/* The PI word through the kernel; a dead owner's word makes the mutex inconsistent. */
static int lock_pi(rts_mutex_t *m, uint32_t flags, uint32_t tid, const struct timespec *deadline)
{
	int ret = rts_pi_word_lock(rts_mutex_word(m), tid, deadline, rts_mutex_is_pshared(flags));
	return ret == EOWNERDEAD ? mark_inconsistent(m, flags) : ret;
}

static int release_word(rts_mutex_t *m, uint32_t flags, uint32_t tid, bool wake_all)
{
	rts_futex_word *word = rts_mutex_word(m);
	if (is_pi(flags))
		return rts_pi_word_unlock(word, tid, rts_mutex_is_pshared(flags));
	uint32_t old = atomic_exchange_explicit(word, 0, memory_order_release);
	if (old & RTS_FUTEX_WAITERS)
		rts_backend()->wake(word, wake_all ? INT_MAX : 1, plain_futex_shared(flags));
	return 0;
}

static int word_unlock(rts_mutex_t *m, uint32_t flags)
{
	uint32_t tid = rts_self_tid();
	uint32_t v = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed);
	if ((v & RTS_FUTEX_TID_MASK) != tid)
		return EPERM;
	if (!is_robust(flags))
		return release_word(m, flags, tid, false);
	if (!rts_robust_list_holds(m))
		return EPERM; /* the word shows our TID, but we never took it */

	bool give_up = flags & RTS_MUTEX_F_INCONSISTENT;
	if (give_up)
		rts_mutex_flags_update(m, RTS_MUTEX_F_NOTRECOVERABLE, RTS_MUTEX_F_INCONSISTENT);
	rts_robust_list_remove(m, is_pi(flags));
	int ret = release_word(m, flags, tid, give_up);
	rts_robust_list_clear_pending();
	return ret;
}

int rts_mutex_robust_announce(rts_mutex_t *m)
{
	int ret = rts_robust_list_check();
	if (ret == 0)
		rts_robust_list_pending(m, is_pi(rts_mutex_flags_load(m)));
	return ret;
}

/*
 * After an attempt on a robust mutex: link it into the robust list when the
 * caller got it; a mutex made unrecoverable while the caller waited (PI hands
 * it over to each waiter in turn) is passed on at once.
 */
static int finish_robust(rts_mutex_t *m, uint32_t flags, uint32_t tid, int ret)
{
	if (ret != 0 && ret != EOWNERDEAD) {
		rts_robust_list_clear_pending();
		return ret;
	}
	if (rts_robust_list_add(m, is_pi(flags)) != 0) {
		release_word(m, flags, tid, false);
		return EAGAIN;
	}
	if (rts_mutex_flags_load(m) & RTS_MUTEX_F_NOTRECOVERABLE) {
		rts_robust_list_remove(m, is_pi(flags));
		release_word(m, flags, tid, true);
		rts_robust_list_clear_pending();
		return ENOTRECOVERABLE;
	}
	return ret;
}

static int word_lock(rts_mutex_t *m, uint32_t flags, const struct timespec *deadline)
{
	uint32_t tid = rts_self_tid();
	if (!is_robust(flags))
		return is_pi(flags) ? lock_pi(m, flags, tid, deadline)
				    : lock_plain(m, flags, tid, deadline);
	if (flags & RTS_MUTEX_F_NOTRECOVERABLE)
		return ENOTRECOVERABLE;
	int ret = rts_mutex_robust_announce(m);
	if (ret)
		return ret;
	if (rts_robust_list_holds(m)) {
		rts_robust_list_clear_pending();
		return EDEADLK; /* whatever its word says now */
	}
	ret = is_pi(flags) ? lock_pi(m, flags, tid, deadline) : lock_plain(m, flags, tid, deadline);
	return finish_robust(m, flags, tid, ret);
}

int rts_mutex_acquired_by_kernel(rts_mutex_t *m)
{
	uint32_t flags = rts_mutex_flags_load(m);
	/* Acquire: pairs with the release before the FUTEX_UNLOCK_PI that handed it over. */
	uint32_t v = atomic_fetch_and_explicit(rts_mutex_word(m), ~RTS_FUTEX_OWNER_DIED,
					       memory_order_acquire);
	int ret = (v & RTS_FUTEX_OWNER_DIED) ? mark_inconsistent(m, flags) : 0;
	return is_robust(flags) ? finish_robust(m, flags, rts_self_tid(), ret) : ret;
}

/*
 * A robust word free to take without the kernel: unlocked, or abandoned by a
 * dead owner with nobody queued in the kernel (for PI, queued waiters mean the
 * kernel is handing it over to one of them).
 */
static bool takeable(uint32_t v, uint32_t flags)
{
	if (v & RTS_FUTEX_TID_MASK)
		return false;
	return !(is_pi(flags) && (v & RTS_FUTEX_WAITERS));
}

static int trylock_robust(rts_mutex_t *m, uint32_t flags)
{
	if (flags & RTS_MUTEX_F_NOTRECOVERABLE)
		return ENOTRECOVERABLE;
	int ret = rts_mutex_robust_announce(m);
	if (ret)
		return ret;
	uint32_t tid = rts_self_tid();
	uint32_t v = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed);
	ret = EBUSY;
	while (!rts_robust_list_holds(m) && takeable(v, flags)) {
		if (atomic_compare_exchange_weak_explicit(rts_mutex_word(m), &v,
							  tid | (v & RTS_FUTEX_WAITERS),
							  memory_order_acquire, memory_order_relaxed)) {
			ret = (v & RTS_FUTEX_OWNER_DIED) ? mark_inconsistent(m, flags) : 0;
			break;
		}
	}
	return finish_robust(m, flags, tid, ret);
}

static int word_trylock(rts_mutex_t *m, uint32_t flags)
{
	if (is_robust(flags))
		return trylock_robust(m, flags);
	uint32_t expected = 0;
	return atomic_compare_exchange_strong_explicit(rts_mutex_word(m), &expected, rts_self_tid(),
						       memory_order_acquire, memory_order_relaxed)
		       ? 0
		       : EBUSY;
}

static int word_init(rts_mutex_t *m, uint32_t flags, const rts_mutexattr_t *attr)
{
	(void)attr;
	int ret = is_robust(flags) ? rts_robust_list_check() : 0;
	if (ret == 0)
		m->s.flags = flags;
	return ret;
}

const struct rts_lock_protocol rts_protocol_none = {
	.name = "NONE",
	.init = word_init,
	.lock = word_lock,
	.trylock = word_trylock,
	.unlock = word_unlock,
	.timed = true,
};

const struct rts_lock_protocol rts_protocol_pip = {
	.name = "PIP",
	.init = word_init,
	.lock = word_lock,
	.trylock = word_trylock,
	.unlock = word_unlock,
	.timed = true,
};
