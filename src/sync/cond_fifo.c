/* SPDX-License-Identifier: MIT */
/*
 * rts_cond with an RTS_PROTO_FIFO mutex: seed 000's condition variable
 * (Züpke, §IV.B), process-private or shared (in the mutex's lock domain).
 *
 * The paper's words, over the condvar's fields:
 *   C  = seq:  incremented by every signal / broadcast that moves a waiter;
 *   Q' = lock: slot number of the first waiter's record (0: none);
 *   waiters:   how many records the condvar's queue holds;
 *   (shared) the domain and the condvar's id in it, over `queue`: a shared
 *   condvar's identity, as its address differs between processes.
 *
 * Wait (the caller owns m):
 *   1. COND_WAIT: queue the own record at the tail of the condvar's queue,
 *      remembering the mutex (as an offset from the condvar) for the
 *      requeue, while still owning m: no signal can come in between, so the
 *      paper's compare of C (and its ABA on C) is not needed;
 *   2. unlock m (a hand-over to the mutex's next waiter if it has one);
 *   3. sleep on the own record until it is GRANTED: the mutex's unlock gives
 *      it m once a signal or broadcast has moved it into m's queue. The
 *      waiter returns owning m and touches the condvar no more.
 * Signal / broadcast (the caller owns m, as in the paper): COND_REQUEUE
 * moves the condvar's head (signal) or its whole queue (broadcast) onto the
 * tail of m's queue, in O(1), and sets WAITERS in m's word. Nobody is woken
 * and no system call is made: each moved waiter is woken by the unlock that
 * hands it m, one at a time, in FIFO order (no thundering herd).
 *
 * Global FIFO order: the moved waiters come after the threads already in
 * m's queue and keep their own order among themselves.
 *
 * Timeout and cancellation (DEQUEUE, both queue locks in index order): a
 * waiter still in the condvar's queue leaves it and locks m (ETIMEDOUT, or
 * its cleanup handlers run owning m). One that a signal or broadcast has
 * moved stays in m's queue and waits for the hand-over: the wait has
 * succeeded (0); a cancelled waiter that a signal had chosen passes the
 * signal on once it owns m (process-private condvars, through the registry
 * of live condvars, cond_registry.c: the condvar may have been destroyed
 * meanwhile; a shared condvar's signal is consumed, a spurious loss that
 * only cancellation in that instant causes).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/uio.h>
#include <unistd.h>

#include <rtsched/cond.h>

#include "internal/backend.h"
#include "internal/cond_object.h"
#include "internal/fifo_mutex.h"
#include "internal/fifo_queue.h"
#include "internal/mutex.h"
#include "internal/tid.h"

struct fifo_cond {
	rts_futex_word counter;    /* C (seq) */
	uint32_t flags;
	_Atomic uint32_t waiters;
	_Atomic uint32_t head;     /* Q' (lock) */
	int64_t mutex_offset;
	void *picv;
	uint32_t domain_id;        /* shared: over `queue` */
	uint32_t object_id;
	uint64_t incarnation;
};
_Static_assert(sizeof(struct fifo_cond) == sizeof(struct rts_cond_s), "fits rts_cond_t");
_Static_assert(offsetof(struct fifo_cond, counter) == offsetof(struct rts_cond_s, seq) &&
	       offsetof(struct fifo_cond, waiters) == offsetof(struct rts_cond_s, waiters) &&
	       offsetof(struct fifo_cond, head) == offsetof(struct rts_cond_s, lock) &&
	       offsetof(struct fifo_cond, domain_id) == offsetof(struct rts_cond_s, queue) &&
	       offsetof(struct fifo_cond, incarnation) == offsetof(struct rts_cond_s, incarnation),
	       "the FIFO condvar's words lie over the fields the header names");

static struct fifo_cond *fifo_cond_of(rts_cond_t *c)
{
	return (struct fifo_cond *)(void *)c;
}

/*
 * The condvar's words and identity. pshared: its flag as the public call read
 * it, once (cond.c): another process may rewrite a shared condvar's flags,
 * and every choice of one call follows that one read.
 */
static void cond_ref_of(rts_cond_t *c, bool pshared, int64_t mutex_offset,
			struct rts_fifo_cond_ref *out)
{
	struct fifo_cond *f = fifo_cond_of(c);
	out->counter = &f->counter;
	out->head = &f->head;
	out->waiters = &f->waiters;
	out->key = pshared ? rts_fifo_shared_key(f->object_id) : (uint64_t)(uintptr_t)c;
	out->lock = rts_fifo_lock_index(out->key);
	out->mutex_offset = mutex_offset;
}

/* At a wait (the caller owns m): make the condvar a FIFO one of m's scope. */
static int adopt(rts_cond_t *c, bool pshared, rts_mutex_t *m, const struct rts_fifo_mutex_ref *mref)
{
	struct fifo_cond *f = fifo_cond_of(c);
	if (pshared) {
		uint32_t domain_id = rts_fifo_mutex_of(m)->domain_id;
		if (f->domain_id != domain_id || f->object_id == 0) {
			if (atomic_load_explicit(&f->waiters, memory_order_relaxed) != 0)
				return EINVAL;
			f->domain_id = domain_id;
			f->object_id = atomic_fetch_add_explicit(&mref->scope->next_object_id, 1,
								 memory_order_relaxed) + 1;
		}
	}
	if (!(rts_cond_flags_load(c) & RTS_COND_F_FIFO))
		__atomic_fetch_or(&f->flags, RTS_COND_F_FIFO, __ATOMIC_RELAXED);
	return 0;
}

struct wait_frame {
	rts_cond_t *c;
	rts_mutex_t *m;
	struct rts_fifo_mutex_ref mref;
	struct rts_fifo_cond_ref cref;
	struct rts_fifo_record *r;
	uint64_t incarnation; /* private: the condvar's, in the registry */
};

/* A moved waiter: wait for the hand-over of m. Whether a signal (not a broadcast) had chosen it. */
static bool await_grant(struct wait_frame *f)
{
	bool signalled = atomic_load_explicit(&f->r->state, memory_order_relaxed) == RTS_FIFO_MOVED;
	rts_fifo_sleep(f->mref.scope, f->r, NULL, CLOCK_MONOTONIC, false);
	return signalled;
}

/* Leave the wait early: 0 (moved: m handed over) or `why`, owning m either way. */
static int leave(struct wait_frame *f, int why, bool *signalled)
{
	*signalled = false;
	enum rts_fifo_left where = rts_fifo_cond_dequeue(&f->mref, &f->cref, f->r);
	if (where == RTS_FIFO_LEFT_COND || where == RTS_FIFO_LOST) {
		int ret = rts_mutex_lock(f->m);
		return ret ? ret : where == RTS_FIFO_LOST ? ENOTRECOVERABLE : why;
	}
	if (where == RTS_FIFO_IN_MUTEX)
		*signalled = await_grant(f);
	atomic_store_explicit(&f->r->state, RTS_FIFO_IDLE, memory_order_relaxed);
	return 0;
}

/* Cancelled while asleep: own m again before the caller's handlers run; pass a signal on. */
static void cancelled(void *arg)
{
	struct wait_frame *f = arg;
	bool signalled;
	leave(f, ECANCELED, &signalled);
	if (!signalled || !f->incarnation)
		return;
	rts_cond_registry_lock();
	if (rts_cond_registry_holds(f->c, f->incarnation))
		rts_cond_fifo_wake(f->c, false, false); /* incarnation: a private condvar */
	rts_cond_registry_unlock();
}

static int sleep_cancellable(struct wait_frame *f, const struct timespec *deadline, clockid_t clock)
{
	int ret;
	pthread_cleanup_push(cancelled, f);
	ret = rts_fifo_sleep(f->mref.scope, f->r, deadline, clock, true);
	pthread_cleanup_pop(0);
	return ret;
}

int rts_cond_fifo_wait(rts_cond_t *c, bool pshared, rts_mutex_t *m,
		       const struct timespec *deadline)
{
	struct wait_frame f = { .c = c, .m = m };
	int ret = rts_fifo_mutex_ref_of(m, rts_mutex_flags_load(m), &f.mref);
	if (ret)
		return ret;
	f.r = rts_fifo_self_record(f.mref.scope);
	if (!f.r)
		return EAGAIN;
	ret = adopt(c, pshared, m, &f.mref);
	if (ret)
		return ret;
	cond_ref_of(c, pshared, (char *)m - (char *)c, &f.cref);
	if (!pshared)
		f.incarnation = rts_cond_incarnation(c);
	clockid_t clock = rts_cond_clock(c);

	ret = rts_fifo_cond_enqueue(&f.mref, &f.cref, f.r);
	if (ret)
		return ret;
	ret = rts_mutex_unlock(m);
	bool signalled;
	if (ret) {
		leave(&f, ret, &signalled);
		return ret;
	}
	if (sleep_cancellable(&f, deadline, clock) == 0) {
		atomic_store_explicit(&f.r->state, RTS_FIFO_IDLE, memory_order_relaxed);
		return 0; /* granted: the caller owns m */
	}
	return leave(&f, ETIMEDOUT, &signalled);
}

/*
 * Whether the mutex a shared condvar's waiter record names may be read here.
 * The record lies in the domain's shared memory, so its offset may be any
 * value another process wrote (issue 33): the address is checked to be an
 * aligned, readable object with one process_vm_readv of the caller's own
 * memory (EFAULT instead of a fault), once per thread for a mutex that it
 * signals through again and again (the broadcast loop stays free of system
 * calls). Then its flags, domain and key must match the waiters' (below).
 */
static __thread rts_mutex_t *mutex_seen_readable __attribute__((tls_model("initial-exec")));

static bool mutex_readable(rts_mutex_t *m)
{
	if ((uintptr_t)m % _Alignof(rts_mutex_t) != 0)
		return false;
	if (m == mutex_seen_readable)
		return true;
	rts_mutex_t copy;
	struct iovec local = { &copy, sizeof(copy) }, remote = { m, sizeof(*m) };
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)sizeof(*m))
		return false;
	mutex_seen_readable = m;
	return true;
}

int rts_cond_fifo_wake(rts_cond_t *c, bool pshared, bool all)
{
	struct fifo_cond *f = fifo_cond_of(c);
	if (atomic_load_explicit(&f->waiters, memory_order_relaxed) == 0)
		return 0;
	struct rts_fifo_scope *s = rts_fifo_scope_of(pshared ? f->domain_id : 0);
	if (!s)
		return EINVAL;
	struct rts_fifo_cond_ref cref;
	int64_t mutex_offset = 0;
	cond_ref_of(c, pshared, 0, &cref);
	int ret = rts_fifo_cond_peek(s, &cref, &mutex_offset);
	if (ret)
		return ret == ENOENT ? 0 : ret;
	/* The waiters' own record says where m is: no pointer comes from a user word. */
	rts_mutex_t *m = (rts_mutex_t *)(void *)((uintptr_t)c + (uintptr_t)mutex_offset);
	if (pshared && !mutex_readable(m))
		return EINVAL;
	uint32_t mflags = rts_mutex_flags_load(m);
	struct rts_fifo_mutex_ref mref;
	if (rts_mutex_protocol(mflags) != RTS_PROTO_FIFO ||
	    rts_mutex_is_pshared(mflags) != pshared)
		return EINVAL;
	ret = rts_fifo_mutex_ref_of(m, mflags, &mref);
	if (ret || mref.scope != s)
		return EINVAL;
	cref.mutex_offset = mutex_offset;
	return rts_fifo_cond_requeue(&mref, &cref, all);
}

int rts_cond_fifo_destroy(rts_cond_t *c)
{
	struct fifo_cond *f = fifo_cond_of(c);
	bool pshared = rts_cond_flags_load(c) & RTS_COND_F_PSHARED; /* read once */
	struct rts_fifo_scope *s = rts_fifo_scope_of(pshared ? f->domain_id : 0);
	struct rts_fifo_cond_ref cref;
	cond_ref_of(c, pshared, 0, &cref);
	if (s && !rts_fifo_cond_idle(s, &cref))
		return EBUSY;
	if (!pshared) {
		rts_cond_registry_lock();
		if (rts_cond_registered(c))
			rts_cond_registry_leave(c);
		rts_cond_registry_unlock();
	}
	return 0;
}
