/* SPDX-License-Identifier: MIT */
/* What the mutex files (sync/mutex.c, lock/word_protocols.c) share with each other and with the condition variable. */
#ifndef RTS_INTERNAL_MUTEX_H
#define RTS_INTERNAL_MUTEX_H

#include <stddef.h>
#include <stdbool.h>

#include <rtsched/mutex.h>

#include "internal/futex.h"

_Static_assert(sizeof(rts_mutex_t) == 64, "rts_mutex_t is part of the ABI: 64 bytes");
_Static_assert(offsetof(struct rts_mutex_s, robust_next) - offsetof(struct rts_mutex_s, word) == 32,
	       "robust list node must sit where glibc's pthread_mutex_t keeps its own");
_Static_assert(offsetof(struct rts_mutex_s, robust_prev) + sizeof(void *) ==
	       offsetof(struct rts_mutex_s, robust_next), "prev pointer precedes next");

static inline rts_futex_word *rts_mutex_word(rts_mutex_t *m)
{
	return (rts_futex_word *)&m->s.word;
}

static inline _Atomic uint32_t *rts_mutex_flags(rts_mutex_t *m)
{
	return (_Atomic uint32_t *)&m->s.flags;
}

static inline uint32_t rts_mutex_flags_load(rts_mutex_t *m)
{
	return atomic_load_explicit(rts_mutex_flags(m), memory_order_relaxed);
}

static inline int rts_mutex_protocol(uint32_t flags)
{
	return (int)(flags & RTS_MUTEX_F_PROTO_MASK);
}

static inline bool rts_mutex_is_pshared(uint32_t flags)
{
	return flags & RTS_MUTEX_F_PSHARED;
}

/* Set and clear flag bits (the robust states, which only the owner changes). */
static inline void rts_mutex_flags_update(rts_mutex_t *m, uint32_t set, uint32_t clear)
{
	uint32_t old = atomic_load_explicit(rts_mutex_flags(m), memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(rts_mutex_flags(m), &old, (old & ~clear) | set,
						      memory_order_release, memory_order_relaxed))
		;
}

/* The RTS_MUTEX_F_* bits of an attribute (NULL: the defaults); EINVAL if uninitialised. */
int rts_mutexattr_flags(const rts_mutexattr_t *attr, uint32_t *flags);

/*
 * Finish an acquisition the kernel made on the caller's behalf (requeue-PI
 * from a condition variable): robust-list bookkeeping, owner-died and
 * not-recoverable states. Same return values as rts_mutex_lock.
 */
int rts_mutex_acquired_by_kernel(rts_mutex_t *m);

/* Robust mutexes: announce a coming acquisition to the kernel (list_op_pending). */
int rts_mutex_robust_announce(rts_mutex_t *m);

#endif
