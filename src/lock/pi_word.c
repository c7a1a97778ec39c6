/* SPDX-License-Identifier: MIT */
/*
 * A PI futex word as a lock, after the fast CAS 0 -> TID failed: the PIP
 * protocol's word, MPCP's global word, and the library's internal locks
 * (internal/pi_word.h) all take it here.
 *
 * The kernel orders a hand-over; for the C memory model (and for
 * ThreadSanitizer, which cannot see the kernel) the release before
 * FUTEX_UNLOCK_PI pairs with the acquire after FUTEX_LOCK_PI returns.
 */
#include <errno.h>
#include <stdatomic.h>

#include "internal/backend.h"
#include "internal/pi_word.h"
#include "internal/timespec.h"

int rts_pi_word_lock(rts_futex_word *word, uint32_t tid, const struct timespec *deadline_mono,
		     bool pshared)
{
	const struct rts_backend *backend = rts_backend();
	for (;;) {
		uint32_t v = atomic_load_explicit(word, memory_order_relaxed);
		if ((v & RTS_FUTEX_TID_MASK) == tid)
			return EDEADLK;
		if (v == 0) {
			if (atomic_compare_exchange_strong_explicit(word, &v, tid, memory_order_acquire,
								    memory_order_relaxed))
				return 0;
			continue;
		}
		if (deadline_mono && !rts_timespec_valid(deadline_mono))
			return EINVAL;
		int ret = backend->pi_block(word, deadline_mono, pshared);
		switch (ret) {
		case 0: {
			uint32_t got = atomic_fetch_and_explicit(word, ~RTS_FUTEX_OWNER_DIED,
								 memory_order_acquire);
			return (got & RTS_FUTEX_OWNER_DIED) ? EOWNERDEAD : 0;
		}
		case -EAGAIN: /* the owner is exiting: its state is being cleaned up */
		case -EINTR:
			continue;
		case -ESRCH: /* the owner died and the word is not robust: it never unlocks */
			return ENOTRECOVERABLE;
		case -ENOMEM:
			return EAGAIN;
		default: /* -ETIMEDOUT, -EDEADLK (a cycle of PI waiters) */
			return -ret;
		}
	}
}

int rts_pi_word_unlock(rts_futex_word *word, uint32_t tid, bool pshared)
{
	uint32_t expected = tid;
	if (atomic_compare_exchange_strong_explicit(word, &expected, 0, memory_order_release,
						    memory_order_relaxed))
		return 0;
	/* Waiters: the kernel hands the word over. Publish the critical section
	 * first (a no-op RMW, release). */
	atomic_fetch_or_explicit(word, 0, memory_order_release);
	int ret = rts_backend()->pi_wake(word, pshared);
	return ret < 0 ? -ret : 0;
}
