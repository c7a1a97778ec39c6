/* SPDX-License-Identifier: MIT */
/*
 * RTS_PROTO_FIFO: the deterministic fast user-space mutex of seed 000
 * (Züpke, §IV.A). Words: internal/fifo_mutex.h; queues and their locks:
 * internal/fifo_queue.h, internal/fifo_scope.h.
 *
 * Uncontended, lock is one CAS S: 0 -> T and unlock one CAS T -> 0, both
 * inline in sync/mutex.c (no system call). Contended:
 *   lock:   set WAITERS in S (CAS), then MUTEX_WAIT with the S it saw: under
 *           the queue lock, if S is unchanged the caller is queued at the
 *           tail, and it sleeps on its own record until it is GRANTED (the
 *           unlocker wrote the caller's TID into S: it owns the mutex). If S
 *           changed (an unlock in between), it tries again: no lost wake-up.
 *   unlock: the CAS T -> 0 fails on WAITERS: MUTEX_WAKE hands the mutex to
 *           the head of the queue and wakes it (one FUTEX_WAKE), or frees it
 *           when the queue is empty.
 * Strict FIFO, no barging: S is 0 only while the queue is empty (a hand-over
 * writes the new owner straight into S), so a newcomer's CAS 0 -> T can
 * never overtake a queued thread.
 *
 * Timed lock: at the deadline the waiter DEQUEUEs itself (it leaves the
 * queue, clearing WAITERS if it was the last), unless it was granted the
 * mutex meanwhile, which it then owns.
 *
 * The lock's retries (S changed between the read and MUTEX_WAIT) are
 * bounded: every retry means another thread changed S, and a well-behaved
 * program never does that RETRY_LIMIT times in a row; a process writing S
 * in a loop makes the call fail with ENOTRECOVERABLE instead of hanging it.
 *
 * Not robust (EINVAL at init): the paper's mutex has no owner-died state.
 * Process-shared mutexes need a lock domain (rts_mutexattr_setdomain).
 */
#include <errno.h>
#include <stdatomic.h>

#include <rtsched/mutex.h>

#include "internal/ceiling_mutex.h"
#include "internal/fifo_mutex.h"
#include "internal/lock_protocol.h"
#include "internal/mutex.h"
#include "internal/tid.h"
#include "internal/timespec.h"

#define RETRY_LIMIT (1u << 16)

static int fifo_init(rts_mutex_t *m, uint32_t flags, const rts_mutexattr_t *attr)
{
	int ceiling, partition;
	uint32_t domain_id;
	rts_mutexattr_ceiling_fields(attr, &ceiling, &partition, &domain_id);
	bool pshared = rts_mutex_is_pshared(flags);
	if ((flags & RTS_MUTEX_F_ROBUST) || pshared != (domain_id != 0))
		return EINVAL;
	struct rts_fifo_scope *s = rts_fifo_scope_of(domain_id);
	if (!s)
		return pshared ? EINVAL : ENOMEM;
	struct fifo_mutex *f = rts_fifo_mutex_of(m);
	if (pshared) {
		f->domain_id = domain_id;
		f->object_id = atomic_fetch_add_explicit(&s->next_object_id, 1,
							 memory_order_relaxed) + 1;
	}
	f->flags = flags;
	return 0;
}

static int fifo_trylock(rts_mutex_t *m, uint32_t flags)
{
	(void)flags;
	uint32_t expected = 0;
	return atomic_compare_exchange_strong_explicit(rts_mutex_word(m), &expected, rts_self_tid(),
						       memory_order_acquire, memory_order_relaxed)
		       ? 0
		       : EBUSY;
}

/* Queued at S == seen: sleep until granted or the deadline. */
static int wait_queued(const struct rts_fifo_mutex_ref *ref, struct rts_fifo_record *r,
		       const struct timespec *deadline)
{
	int ret = rts_fifo_sleep(ref->scope, r, deadline, CLOCK_MONOTONIC, false);
	if (ret == ETIMEDOUT && rts_fifo_mutex_dequeue(ref, r))
		return ETIMEDOUT;
	atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
	return 0; /* granted: S holds the caller's TID */
}

static int fifo_lock(rts_mutex_t *m, uint32_t flags, const struct timespec *deadline)
{
	uint32_t tid = rts_self_tid();
	rts_futex_word *word = rts_mutex_word(m);
	struct rts_fifo_mutex_ref ref;
	int ret = rts_fifo_mutex_ref_of(m, flags, &ref);
	if (ret)
		return ret;
	struct rts_fifo_record *r = NULL;
	for (uint32_t tries = 0; tries < RETRY_LIMIT; tries++) {
		uint32_t v = atomic_load_explicit(word, memory_order_relaxed);
		if ((v & RTS_FUTEX_TID_MASK) == tid)
			return EDEADLK;
		if (v == 0) {
			if (atomic_compare_exchange_weak_explicit(word, &v, tid, memory_order_acquire,
								  memory_order_relaxed))
				return 0;
			continue;
		}
		if ((v & RTS_FUTEX_TID_MASK) == 0)
			return EINVAL; /* waiters but no owner: no state this protocol makes */
		if (!(v & RTS_FIFO_WAITERS)) {
			if (!atomic_compare_exchange_weak_explicit(word, &v, v | RTS_FIFO_WAITERS,
								   memory_order_relaxed,
								   memory_order_relaxed))
				continue;
			v |= RTS_FIFO_WAITERS;
		}
		if (deadline && !rts_timespec_valid(deadline))
			return EINVAL;
		if (!r && !(r = rts_fifo_self_record(ref.scope)))
			return EAGAIN; /* RTS_FIFO_RECORDS threads wait in this scope already */
		ret = rts_fifo_mutex_enqueue(&ref, r, v);
		if (ret == 0)
			return wait_queued(&ref, r, deadline);
		if (ret != EAGAIN)
			return ret;
	}
	return ENOTRECOVERABLE;
}

static int fifo_unlock(rts_mutex_t *m, uint32_t flags)
{
	uint32_t tid = rts_self_tid();
	uint32_t v = atomic_load_explicit(rts_mutex_word(m), memory_order_relaxed);
	if ((v & RTS_FUTEX_TID_MASK) != tid)
		return EPERM;
	if (!(v & RTS_FIFO_WAITERS) &&
	    atomic_compare_exchange_strong_explicit(rts_mutex_word(m), &v, 0, memory_order_release,
						    memory_order_relaxed))
		return 0;
	/* WAITERS was or has just been set: MUTEX_WAKE decides under the queue lock */
	struct rts_fifo_mutex_ref ref;
	int ret = rts_fifo_mutex_ref_of(m, flags, &ref);
	return ret ? ret : rts_fifo_mutex_wake(&ref);
}

const struct rts_lock_protocol rts_protocol_fifo = {
	.name = "FIFO",
	.init = fifo_init,
	.lock = fifo_lock,
	.trylock = fifo_trylock,
	.unlock = fifo_unlock,
	.timed = true,
};
