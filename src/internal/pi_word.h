/* SPDX-License-Identifier: MIT */
/*
 * A PI futex word (kernel PI format: owner TID | OWNER_DIED | WAITERS) used
 * as a lock: the slow paths (src/lock/pi_word.c), and the library's own
 * internal locks on top of them.
 */
#ifndef RTS_INTERNAL_PI_WORD_H
#define RTS_INTERNAL_PI_WORD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "internal/export.h"
#include "internal/futex.h"
#include "internal/tid.h"

/*
 * Acquire through the kernel, the owner inheriting the caller's priority
 * meanwhile (deadline on CLOCK_MONOTONIC, NULL: none): 0; EOWNERDEAD (the
 * caller owns it, its previous owner died holding it); EDEADLK (the caller
 * owns it already, or a cycle of PI waiters); ETIMEDOUT; EINVAL (a bad
 * deadline); ENOTRECOVERABLE (its owner died and the word is not robust);
 * EAGAIN (no kernel memory).
 */
int rts_pi_word_lock(rts_futex_word *word, uint32_t tid, const struct timespec *deadline_mono,
		     bool pshared);
/* Release, handing the word to its top waiter: 0, or EPERM when not the owner. */
int rts_pi_word_unlock(rts_futex_word *word, uint32_t tid, bool pshared);

/*
 * The library's internal locks (queues, tables, registries): one PI word
 * each, zero when free, never the public rts_mutex (which dispatches on a
 * protocol and runs hand-over hooks). No system call when uncontended.
 * Used only as here (never relocked, never unlocked by another thread) the
 * lock cannot fail but for an owner that died holding it (ENOTRECOVERABLE),
 * which callers cannot repair; they go on, as the lock is then held for good.
 */
static inline void rts_pi_lock(rts_futex_word *word, bool pshared)
{
	uint32_t tid = rts_self_tid(), free_word = 0;
	if (rts_likely(atomic_compare_exchange_strong_explicit(word, &free_word, tid,
							       memory_order_acquire,
							       memory_order_relaxed)))
		return;
	rts_pi_word_lock(word, tid, NULL, pshared);
}

static inline void rts_pi_unlock(rts_futex_word *word, bool pshared)
{
	uint32_t owned = rts_self_tid();
	if (rts_likely(atomic_compare_exchange_strong_explicit(word, &owned, 0, memory_order_release,
							       memory_order_relaxed)))
		return;
	rts_pi_word_unlock(word, rts_self_tid(), pshared);
}

#endif
