/* SPDX-License-Identifier: MIT */
/*
 * Process-shared rts_cond: one futex word, `seq`, with requeue-PI for PIP
 * mutexes. (Process-private condvars queue per-thread records instead,
 * cond_private.c; a record in one process's memory cannot be reached from
 * another, so shared condvars keep every waiter on the one word.)
 *
 * Wait (the caller owns the mutex):
 *   1. snapshot = seq                (acquire)
 *   2. waiters += 1                  (release)
 *   3. unlock the mutex
 *   4. sleep while seq == snapshot   (FUTEX_WAIT_REQUEUE_PI or FUTEX_WAIT_BITSET),
 *      a cancellation point
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
 * The cost of one word: a woken waiter leaves (step 5) after it owns the
 * mutex, so destroy returns EBUSY until the woken waiters have taken the
 * mutex and left; and a cancelled waiter cannot tell whether the signal
 * that moved seq chose it, so it passes one on (a spurious wake-up at
 * worst, never a lost one).
 *
 * All waiters at one time must use the same mutex (POSIX); it is stored as an
 * offset from the condvar so that a process-shared pair works in processes
 * that map it at different addresses.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>

#include <rtsched/cond.h>

#include "internal/backend.h"
#include "internal/cancel.h"
#include "internal/cond_object.h"
#include "internal/mutex.h"
#include "internal/robust_list.h"
#include "internal/tid.h"

#define REQUEUE_RETRY_LIMIT (1u << 16)

static rts_futex_word *seq_word(rts_cond_t *c)
{
	return (rts_futex_word *)&c->s.seq;
}

/*
 * The word of the waiters' mutex, for the kernel only: never read or written
 * here (another process may have rewritten the offset). NULL when it cannot
 * be a mutex's word (misaligned): EINVAL. The kernel answers a wrong address
 * with EFAULT or, since its waiters asked for another word, EINVAL.
 */
static rts_futex_word *bound_mutex_word(rts_cond_t *c)
{
	int64_t offset = atomic_load_explicit((_Atomic int64_t *)&c->s.mutex_offset,
					      memory_order_relaxed);
	if (offset % (int64_t)_Alignof(rts_mutex_t) != 0)
		return NULL;
	return (rts_futex_word *)((uintptr_t)c + (uintptr_t)offset);
}

/* Record for signallers whether the waiters' mutex is PIP (the caller owns it). */
static void note_protocol(rts_cond_t *c, bool pi)
{
	bool noted = rts_cond_flags_load(c) & RTS_COND_F_PIP;
	if (pi && !noted)
		__atomic_fetch_or(&c->s.flags, RTS_COND_F_PIP, __ATOMIC_RELAXED);
	else if (!pi && noted)
		__atomic_fetch_and(&c->s.flags, ~RTS_COND_F_PIP, __ATOMIC_RELAXED);
}

struct wait_frame {
	rts_cond_t *c;
	rts_mutex_t *m;
	uint32_t snapshot;
	bool pi;
	bool robust_pending;
};

/* Cancelled in step 4: own the mutex again, pass on a signal it may have taken, leave. */
static void cancelled(void *arg)
{
	struct wait_frame *f = arg;
	if (f->robust_pending)
		rts_robust_list_clear_pending();
	rts_mutex_own_again(f->m, f->pi);
	if (atomic_load_explicit(seq_word(f->c), memory_order_relaxed) != f->snapshot)
		rts_cond_shared_wake(f->c, false); /* still counted: the condvar lives */
	atomic_fetch_sub_explicit(rts_cond_waiters(f->c), 1, memory_order_relaxed);
}

/* Step 4: the kernel's answer (0: woken, and for PIP owning the mutex). */
static int sleep_on_seq(struct wait_frame *f, const struct timespec *deadline)
{
	const struct rts_backend *backend = rts_backend();
	rts_cond_t *c = f->c;
	clockid_t clock = rts_cond_clock(c);
	rts_futex_word *mutex_word = rts_mutex_word(f->m);
	int slept;
	pthread_cleanup_push(cancelled, f);
	do {
		int cancel_type = rts_cancel_async_begin();
		slept = f->pi ? backend->cond_block(seq_word(c), f->snapshot, deadline, clock,
						    mutex_word, true)
			      : backend->block(seq_word(c), f->snapshot, deadline, clock, true);
		rts_cancel_async_end(cancel_type);
	} while (slept == -EINTR);
	pthread_cleanup_pop(0);
	return slept;
}

int rts_cond_shared_wait(rts_cond_t *c, rts_mutex_t *m, const struct timespec *deadline)
{
	uint32_t mflags = rts_mutex_flags_load(m);
	struct wait_frame f = { .c = c, .m = m, .pi = rts_mutex_protocol(mflags) == RTS_PROTO_PIP };
	note_protocol(c, f.pi);

	f.snapshot = atomic_load_explicit(seq_word(c), memory_order_acquire);
	atomic_fetch_add_explicit(rts_cond_waiters(c), 1, memory_order_release);
	int ret = rts_mutex_unlock(m);
	if (ret) {
		atomic_fetch_sub_explicit(rts_cond_waiters(c), 1, memory_order_relaxed);
		return ret;
	}

	/* A failed announce loses only the recovery of a dead owner, not the wait. */
	f.robust_pending = f.pi && (mflags & RTS_MUTEX_F_ROBUST) && rts_mutex_robust_announce(m) == 0;
	int slept = sleep_on_seq(&f, deadline);
	if (f.robust_pending && slept != 0)
		rts_robust_list_clear_pending();
	int lock_ret = rts_mutex_own_again(m, f.pi);
	bool timed_out = slept == -ETIMEDOUT &&
			 atomic_load_explicit(seq_word(c), memory_order_relaxed) == f.snapshot;
	atomic_fetch_sub_explicit(rts_cond_waiters(c), 1, memory_order_relaxed);
	if (lock_ret)
		return lock_ret;
	if (slept == -EINVAL)
		return EINVAL; /* waiters on this condvar named other mutexes */
	return timed_out ? ETIMEDOUT : 0;
}

/* Move one (nr_requeue 0) or all (INT_MAX) sleepers onto the PIP mutex's word. */
static int requeue_pi(rts_cond_t *c, rts_futex_word *mutex_word, uint32_t seq, int nr_requeue)
{
	const struct rts_backend *backend = rts_backend();
	if (!mutex_word)
		return EINVAL;
	/* Bounded like the FIFO lock's retries: a process that rewrites seq in a
	 * loop makes the signal fail instead of spinning it. */
	for (uint32_t tries = 0; tries < REQUEUE_RETRY_LIMIT; tries++) {
		int ret = backend->cond_requeue(seq_word(c), seq, nr_requeue, mutex_word, true);
		if (ret >= 0)
			return 0;
		if (ret == -EFAULT)
			return EINVAL; /* the offset names no mapped word: the condvar was rewritten */
		if (ret != -EAGAIN)
			return -ret;
		/* A concurrent signal moved seq on: retry with its value. */
		seq = atomic_load_explicit(seq_word(c), memory_order_acquire);
	}
	return ENOTRECOVERABLE;
}

int rts_cond_shared_wake(rts_cond_t *c, bool all)
{
	if (atomic_load_explicit(rts_cond_waiters(c), memory_order_acquire) == 0)
		return 0;
	uint32_t seq = atomic_fetch_add_explicit(seq_word(c), 1, memory_order_acq_rel) + 1;
	if (rts_cond_flags_load(c) & RTS_COND_F_PIP)
		return requeue_pi(c, bound_mutex_word(c), seq, all ? INT_MAX : 0);
	int ret = rts_backend()->wake(seq_word(c), all ? INT_MAX : 1, true);
	return ret < 0 ? -ret : 0;
}

int rts_cond_shared_destroy(rts_cond_t *c)
{
	return atomic_load_explicit(rts_cond_waiters(c), memory_order_acquire) ? EBUSY : 0;
}
