/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's lock operations (internal/backend.h has the contract,
 * docs/ult.md "Locks and condition variables" the design): block / wake,
 * PI words (pi_block / pi_wake) with inheritance applied by the user-level
 * scheduler, the condvar requeue (cond_block / cond_requeue), and set_attr.
 *
 * Each operation holds off switches (a preemption signal only marks a
 * rescheduling), takes the runtime's wait_lock, compares the word and
 * queues the caller in one step, releases the lock and switches out as
 * blocked. A waker dequeues the waiter under wait_lock and makes it ready
 * under its cluster's lock; a waiter not yet filed as blocked (still on its
 * way out) is marked (wake_pending) and filed ready, so no wake is lost. A
 * waiter made ready by its timeout or an interrupt is still queued: when it
 * runs it takes wait_lock and leaves the queue itself, unless a waker took
 * it first, whose wake then counts (the waker's word hand-over included).
 * No system call is made on any of these paths except to tell another
 * worker to reschedule (a futex wake or a tgkill, as a release does).
 *
 * Words shared between processes (pshared) are refused with -ENOTSUP: the
 * table is this process's runtime's, and the waiters are ULTs.
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "internal/backend.h"
#include "internal/task.h"
#include "internal/timespec.h"
#include "internal/ult.h"

/* The caller, holding off switches with wait_lock taken; NULL (and -err) outside a ULT. */
static struct rts_ult *enter(int *err)
{
	struct rts_ult *self = rts_ult_self();
	if (!self) {
		*err = -EPERM;
		return NULL;
	}
	rts_ult_hold_switches();
	pthread_mutex_lock(&self->cluster->runtime->wait_lock);
	return self;
}

static void leave(struct rts_ult *self)
{
	pthread_mutex_unlock(&self->cluster->runtime->wait_lock);
	rts_ult_allow_switches();
}

/* An absolute deadline on clock as CLOCK_MONOTONIC ns (0: none); -EINVAL if malformed. */
static int64_t timeout_ns_of(const struct timespec *deadline, clockid_t clock, int *err)
{
	if (!deadline)
		return 0;
	if (!rts_timespec_valid(deadline)) {
		*err = -EINVAL;
		return 0;
	}
	struct timespec mono = clock == CLOCK_MONOTONIC
				       ? *deadline
				       : rts_timespec_convert(deadline, clock, CLOCK_MONOTONIC);
	int64_t ns = rts_timespec_to_ns(&mono);
	return ns > 0 ? ns : 1; /* 0 means none */
}

/*
 * The caller is queued (wait_lock held, switches held off): block, then
 * leave the queue if nobody took it out. 0 when woken (for PI: owning the
 * word), -ETIMEDOUT, -EINTR.
 */
static int block_queued(struct rts_ult *self, int64_t timeout_ns)
{
	struct rts_ult_runtime *rt = self->cluster->runtime;
	pthread_mutex_unlock(&rt->wait_lock);
	rts_ult_block_self(timeout_ns); /* returns with switches allowed */
	rts_ult_hold_switches();
	pthread_mutex_lock(&rt->wait_lock);
	int ret = self->wait_result;
	if (self->wait_word) {
		rts_futex_word *word = self->wait_word;
		enum rts_ult_wait_kind kind = self->wait_kind;
		rts_ult_wait_dequeue(rt, self);
		/* block_end is WOKEN only for a spurious return, which a plain block may have */
		ret = self->block_end == RTS_ULT_BLOCK_TIMED_OUT ? -ETIMEDOUT
		      : kind == RTS_ULT_WAIT_PLAIN && self->block_end == RTS_ULT_BLOCK_WOKEN ? 0
											    : -EINTR;
		if (kind == RTS_ULT_WAIT_PI) {
			if (!rts_ult_wait_any(rt, word, RTS_ULT_WAIT_PI))
				atomic_fetch_and_explicit(word, ~RTS_FUTEX_WAITERS, memory_order_relaxed);
			rts_ult_pi_update(rt, rts_ult_word_owner(rt, word));
		}
	}
	leave(self);
	return ret;
}

/*
 * block and cond_block: sleep on `word` while it holds `expected` (the
 * compare and the enqueue are one step under the wait lock), as a plain
 * waiter or as a condvar waiter to be requeued onto `mutex`.
 */
static int block_if_equal(rts_futex_word *word, uint32_t expected, const struct timespec *deadline,
			  clockid_t clock, enum rts_ult_wait_kind kind, rts_futex_word *mutex)
{
	int err = 0;
	int64_t timeout_ns = timeout_ns_of(deadline, clock, &err);
	if (err)
		return err;
	struct rts_ult *self = enter(&err);
	if (!self)
		return err;
	if (atomic_load_explicit(word, memory_order_relaxed) != expected) {
		leave(self);
		return -EAGAIN;
	}
	rts_ult_wait_enqueue(self->cluster->runtime, self, word, kind, mutex);
	return block_queued(self, timeout_ns);
}

int rts_ult_block(rts_futex_word *word, uint32_t expected, const struct timespec *deadline,
		  clockid_t clock, bool pshared)
{
	if (pshared)
		return -ENOTSUP;
	return block_if_equal(word, expected, deadline, clock, RTS_ULT_WAIT_PLAIN, NULL);
}

int rts_ult_wake(rts_futex_word *word, int count, bool pshared)
{
	if (pshared)
		return -ENOTSUP;
	int err = 0;
	struct rts_ult *self = enter(&err);
	if (!self)
		return err;
	struct rts_ult_runtime *rt = self->cluster->runtime;
	int woken = 0;
	struct rts_ult *top;
	while (woken < count && (top = rts_ult_wait_top(rt, word, RTS_ULT_WAIT_PLAIN)) != NULL) {
		rts_ult_wait_wake(rt, top);
		woken++;
	}
	leave(self);
	return woken;
}

/*
 * Under wait_lock: take the free PI word for `u` (keeping OWNER_DIED, and
 * WAITERS if others wait); false if it is not free.
 */
static bool take_free_word(struct rts_ult_runtime *rt, rts_futex_word *word, struct rts_ult *u)
{
	uint32_t v = atomic_load_explicit(word, memory_order_relaxed);
	while ((v & RTS_FUTEX_TID_MASK) == 0) {
		uint32_t mine = u->id | (v & RTS_FUTEX_OWNER_DIED) |
				(rts_ult_wait_any(rt, word, RTS_ULT_WAIT_PI) ? RTS_FUTEX_WAITERS : 0);
		if (atomic_compare_exchange_weak_explicit(word, &v, mine, memory_order_acquire,
							  memory_order_relaxed))
			return true;
	}
	return false;
}

/*
 * Under wait_lock: the word has an owner other than the caller: mark
 * WAITERS (so that its unlock comes here) and return the owner; NULL and
 * *err when the caller must not block (free again: *err 0, take it).
 */
static struct rts_ult *owner_to_block_on(struct rts_ult_runtime *rt, rts_futex_word *word,
					 struct rts_ult *self, int *err)
{
	for (;;) {
		uint32_t v = atomic_load_explicit(word, memory_order_relaxed);
		uint32_t id = v & RTS_FUTEX_TID_MASK;
		*err = 0;
		if (id == 0)
			return NULL;
		if (id == self->id) {
			*err = -EDEADLK;
			return NULL;
		}
		struct rts_ult *owner = rts_ult_runtime_find_id(rt, id);
		if (!owner || atomic_load_explicit(&owner->done, memory_order_acquire)) {
			*err = -ESRCH; /* not a ULT of this set, or it ended holding the word */
			return NULL;
		}
		if (rts_ult_pi_chain_reaches(rt, owner, self)) {
			*err = -EDEADLK;
			return NULL;
		}
		if ((v & RTS_FUTEX_WAITERS) ||
		    atomic_compare_exchange_weak_explicit(word, &v, v | RTS_FUTEX_WAITERS,
							  memory_order_relaxed, memory_order_relaxed))
			return owner;
	}
}

int rts_ult_pi_block(rts_futex_word *word, const struct timespec *deadline_mono, bool pshared)
{
	int err = 0;
	int64_t timeout_ns = timeout_ns_of(deadline_mono, CLOCK_MONOTONIC, &err);
	if (err)
		return err;
	if (pshared)
		return -ENOTSUP;
	struct rts_ult *self = enter(&err);
	if (!self)
		return err;
	struct rts_ult_runtime *rt = self->cluster->runtime;
	struct rts_ult *owner;
	while (!(owner = owner_to_block_on(rt, word, self, &err))) {
		if (err || take_free_word(rt, word, self)) {
			leave(self);
			return err;
		}
	}
	rts_ult_wait_enqueue(rt, self, word, RTS_ULT_WAIT_PI, NULL);
	rts_ult_pi_update(rt, owner);
	return block_queued(self, timeout_ns);
}

/*
 * Under wait_lock: the caller owns word and gives it up: to its top waiter
 * (made ready, owning it, WAITERS if more wait) or to nobody (0).
 */
static void hand_over(struct rts_ult_runtime *rt, rts_futex_word *word)
{
	struct rts_ult *top = rts_ult_wait_top(rt, word, RTS_ULT_WAIT_PI);
	if (!top) {
		atomic_store_explicit(word, 0, memory_order_release);
		return;
	}
	rts_ult_wait_dequeue(rt, top);
	bool more = rts_ult_wait_any(rt, word, RTS_ULT_WAIT_PI);
	atomic_store_explicit(word, top->id | (more ? RTS_FUTEX_WAITERS : 0), memory_order_release);
	rts_ult_pi_update(rt, top); /* before it runs: it inherits from the waiters left */
	top->wait_result = 0;
	struct rts_ult_cluster *c = top->cluster;
	pthread_mutex_lock(&c->lock);
	rts_ult_make_ready(c, top);
	rts_ult_kick_workers(c);
	pthread_mutex_unlock(&c->lock);
}

int rts_ult_pi_wake(rts_futex_word *word, bool pshared)
{
	if (pshared)
		return -ENOTSUP;
	int err = 0;
	struct rts_ult *self = enter(&err);
	if (!self)
		return err;
	struct rts_ult_runtime *rt = self->cluster->runtime;
	if ((atomic_load_explicit(word, memory_order_relaxed) & RTS_FUTEX_TID_MASK) != self->id) {
		leave(self);
		return -EPERM;
	}
	hand_over(rt, word);
	rts_ult_pi_update(rt, self); /* the waiters it inherited from are gone */
	leave(self);
	return 0;
}

int rts_ult_cond_block(rts_futex_word *cond, uint32_t expected, const struct timespec *deadline,
		       clockid_t clock, rts_futex_word *mutex, bool pshared)
{
	if (pshared)
		return -ENOTSUP;
	if (cond == mutex)
		return -EINVAL;
	return block_if_equal(cond, expected, deadline, clock, RTS_ULT_WAIT_COND, mutex);
}

int rts_ult_cond_requeue(rts_futex_word *cond, uint32_t expected, int nr_requeue,
			 rts_futex_word *mutex, bool pshared)
{
	if (pshared)
		return -ENOTSUP;
	if (cond == mutex || nr_requeue < 0)
		return -EINVAL;
	int err = 0;
	struct rts_ult *self = enter(&err);
	if (!self)
		return err;
	struct rts_ult_runtime *rt = self->cluster->runtime;
	if (atomic_load_explicit(cond, memory_order_relaxed) != expected) {
		leave(self);
		return -EAGAIN;
	}
	int moved = 0;
	struct rts_ult *top;
	while (moved <= nr_requeue && (top = rts_ult_wait_top(rt, cond, RTS_ULT_WAIT_COND)) != NULL) {
		if (top->requeue_to != mutex) {
			err = -EINVAL; /* it waits to be requeued onto another mutex */
			break;
		}
		if (moved == 0 && take_free_word(rt, mutex, top)) {
			rts_ult_wait_wake(rt, top); /* it returns owning the mutex */
		} else {
			rts_ult_wait_move(rt, top, mutex);
			atomic_fetch_or_explicit(mutex, RTS_FUTEX_WAITERS, memory_order_relaxed);
			rts_ult_pi_update(rt, rts_ult_word_owner(rt, mutex));
		}
		moved++;
	}
	leave(self);
	return moved ? moved : err;
}

/*
 * Under u's cluster lock: take the attributes and give u's current job the
 * base key they make (a ULT before its first release keeps INT64_MIN);
 * 0 and *changed (its key), or -EINVAL.
 */
static int set_own_attributes(struct rts_ult *u, const struct rts_sched_attr *attr, bool *changed)
{
	struct rts_ult_cluster *c = u->cluster;
	bool fp = u->reservation ? u->reservation->order == RTS_RESERVATION_FP
				 : c->runtime->spec.policy == RTS_ULT_FP;
	if (attr->sched_policy == SCHED_OTHER || attr->sched_policy == SCHED_BATCH ||
	    attr->sched_policy == SCHED_IDLE) {
		if (u->reservation)
			return -EINVAL; /* a reservation's tasks take its order's attributes */
		u->background = true;
	} else if (fp) {
		bool fifo = attr->sched_policy == SCHED_FIFO || attr->sched_policy == SCHED_RR;
		if (!fifo || attr->sched_priority < 1 || attr->sched_priority > 99)
			return -EINVAL; /* FP ULTs are SCHED_FIFO 1..99 (docs/ult.md) */
		u->attr_priority = (int)attr->sched_priority;
		u->background = false;
	} else {
		if (attr->sched_policy != SCHED_DEADLINE || attr->sched_deadline == 0 ||
		    attr->sched_deadline > INT64_MAX)
			return -EINVAL; /* EDF ULTs are SCHED_DEADLINE with a deadline */
		u->attr_deadline_ns = (int64_t)attr->sched_deadline;
		u->background = false;
	}
	int64_t before = u->key;
	if (u->base_key != INT64_MIN)
		u->base_key = rts_ult_release_key(c, u, u->task->job.release_ns);
	rts_ult_rekey(c, u);
	rts_ult_kick_workers(c);
	*changed = u->key != before;
	return 0;
}

int rts_ult_set_attr(uint32_t id, const struct rts_sched_attr *attr)
{
	int err = 0;
	struct rts_ult *self = enter(&err);
	if (!self)
		return err;
	struct rts_ult_runtime *rt = self->cluster->runtime;
	struct rts_ult *u = id ? rts_ult_runtime_find_id(rt, id) : self;
	bool changed = false;
	if (!u || atomic_load_explicit(&u->done, memory_order_acquire)) {
		err = -ESRCH;
	} else {
		pthread_mutex_lock(&u->cluster->lock);
		err = set_own_attributes(u, attr, &changed);
		pthread_mutex_unlock(&u->cluster->lock);
	}
	/* a waiter's new key changes what the owner of its PI word inherits */
	if (changed && u->wait_word && u->wait_kind == RTS_ULT_WAIT_PI)
		rts_ult_pi_update(rt, rts_ult_word_owner(rt, u->wait_word));
	leave(self);
	return err;
}
