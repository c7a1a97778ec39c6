/* SPDX-License-Identifier: MIT */
/*
 * How an RTS_PROTO_FIFO mutex uses the 64 bytes of rts_mutex_t, and its
 * identity in its scope; shared by the protocol (lock/fifo_mutex.c) and the
 * condition variable (sync/cond_fifo.c).
 *
 * The paper's two words (seed 000, §IV.A), next to each other:
 *   S = state: owner TID | RTS_FIFO_WAITERS (bit 31)
 *         0            free (then the queue is empty: no barging)
 *         T            held by T, nobody queued
 *         T | WAITERS  held by T, the queue may be non-empty: T's unlock
 *                      hands the mutex to the head (MUTEX_WAKE)
 *   Q = head: slot number of the first waiter's record in the scope, 0: none.
 * The public word (owner TID in bits 0..29) is S, so rts_mutex_destroy and
 * the condvar's owner checks work unchanged.
 *
 * Identity (key): a private mutex is its address; a shared one is the id the
 * domain gave it at init (its address differs between processes), shifted
 * so that it never equals a condvar's key (cond_fifo.c).
 */
#ifndef RTS_INTERNAL_FIFO_MUTEX_H
#define RTS_INTERNAL_FIFO_MUTEX_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <rtsched/mutex.h>

#include "internal/fifo_queue.h"
#include "internal/mutex.h"

struct fifo_mutex {
	rts_futex_word state;  /* S */
	uint32_t flags;        /* RTS_MUTEX_F_* */
	_Atomic uint32_t head; /* Q */
	uint32_t domain_id;    /* shared: the domain's id; private: 0 */
	uint32_t object_id;    /* shared: the mutex's id in the domain */
	uint32_t unused;
	void *robust_prev, *robust_next; /* never robust */
};
_Static_assert(sizeof(struct fifo_mutex) <= sizeof(rts_mutex_t), "fits rts_mutex_t");
_Static_assert(offsetof(struct fifo_mutex, state) == offsetof(struct rts_mutex_s, word) &&
	       offsetof(struct fifo_mutex, flags) == offsetof(struct rts_mutex_s, flags),
	       "S and the flags are where every protocol keeps them");

static inline struct fifo_mutex *rts_fifo_mutex_of(rts_mutex_t *m)
{
	return (struct fifo_mutex *)(void *)m;
}

/* The key of a shared object id (the low 32 bits are the condvars'). */
static inline uint64_t rts_fifo_shared_key(uint32_t object_id)
{
	return (uint64_t)object_id << 32;
}

/* The scope, words and key of m; EINVAL when its domain is not open here. */
static inline int rts_fifo_mutex_ref_of(rts_mutex_t *m, uint32_t flags,
					struct rts_fifo_mutex_ref *out)
{
	struct fifo_mutex *f = rts_fifo_mutex_of(m);
	bool pshared = rts_mutex_is_pshared(flags);
	out->scope = rts_fifo_scope_of(pshared ? f->domain_id : 0);
	if (!out->scope || (pshared && !out->scope->pshared))
		return EINVAL;
	out->state = &f->state;
	out->head = &f->head;
	out->key = pshared ? rts_fifo_shared_key(f->object_id) : (uint64_t)(uintptr_t)m;
	out->lock = rts_fifo_lock_index(out->key);
	return 0;
}

#endif
