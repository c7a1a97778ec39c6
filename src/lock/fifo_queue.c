/* SPDX-License-Identifier: MIT */
/*
 * The FIFO queue operations (internal/fifo_queue.h), the library playing the
 * kernel part of seed 000.
 *
 * Robustness (requirements 4 and 5): the user words S, Q, C and Q' and the
 * ids the keys come from may hold anything another process wrote. Why a
 * well-behaved caller neither crashes, hangs nor corrupts its state:
 *  - No pointer is taken from a user word. Q and Q' are slot numbers; a slot
 *    is used only when it is in range (rts_fifo_record_at) and its record
 *    heads a queue of the same kind for the same object, in a queued state
 *    (valid_head): a record of another object, one in the middle of a queue,
 *    an idle one or a number out of range is refused with EINVAL before any
 *    link is changed. (A record that heads this object's queue is the one Q
 *    must name: the object's key decides the queue lock, so that record is
 *    guarded by the lock the caller holds.)
 *  - Links (next, prev, head_of) are the library's own, written only under
 *    the queue locks; they are followed only from a validated head, and the
 *    one walk (cond_dequeue) stops after RTS_FIFO_RECORDS steps.
 *  - The records themselves lie in the domain's shared memory, which a
 *    process of the same user may also write (issue 33). So every slot
 *    number read from a record (next, prev) is range-checked before it is
 *    used (linked), and a record whose links lead out of range or form a
 *    queue that does not close is reported as ENOTRECOVERABLE: the queue is
 *    left as it is and no byte outside the scope's record array is written.
 *    The queue-lock indices a record names are reduced modulo the number of
 *    locks (rts_fifo_queue_lock).
 *  - The user words are written with stores of values computed under the
 *    lock, or with one fetch-or / fetch-and; there is no CAS loop a writer
 *    could make run forever.
 *  - A garbage S only makes the well-behaved thread queue behind an owner
 *    that does not exist: it waits until its deadline, as the paper says
 *    (an application may no longer release the mutex; the fault stays in it).
 */
#include <errno.h>
#include <stdatomic.h>

#include "internal/backend.h"
#include "internal/cancel.h"
#include "internal/fifo_queue.h"
#include "internal/tid.h"

/*
 * The record a link names, or NULL when the slot is out of range: links are
 * the library's own but lie in memory other processes may write.
 */
static struct rts_fifo_record *linked(struct rts_fifo_scope *s, uint32_t slot)
{
	return rts_fifo_record_at(s, slot);
}

/*
 * The fields valid_head reads (head_of and the keys) are read and written
 * with relaxed atomics: a wild Q may make a thread read a record that
 * another queue lock guards, only to refuse it.
 */
static void set_head_of(struct rts_fifo_record *r, uint32_t head_kind)
{
	__atomic_store_n(&r->head_of, head_kind, __ATOMIC_RELAXED);
}

static void set_keys(struct rts_fifo_record *r, uint64_t mutex_key, uint64_t cond_key)
{
	__atomic_store_n(&r->mutex_key, mutex_key, __ATOMIC_RELAXED);
	__atomic_store_n(&r->cond_key, cond_key, __ATOMIC_RELAXED);
}

static bool waiting_state(uint32_t state, uint32_t head_kind)
{
	if (head_kind == RTS_FIFO_HEAD_COND)
		return state == RTS_FIFO_COND_QUEUED;
	return state == RTS_FIFO_MUTEX_QUEUED || state == RTS_FIFO_COND_QUEUED ||
	       state == RTS_FIFO_MOVED;
}

/*
 * The head of the queue a user word names: NULL for an empty queue (0), else
 * the record, validated (see the robustness note above); *err = EINVAL for a
 * word that names no head of this queue.
 */
static struct rts_fifo_record *valid_head(struct rts_fifo_scope *s, _Atomic uint32_t *word,
					  uint32_t head_kind, uint64_t key, int *err)
{
	*err = 0;
	uint32_t slot = atomic_load_explicit(word, memory_order_relaxed);
	if (slot == 0)
		return NULL;
	struct rts_fifo_record *h = rts_fifo_record_at(s, slot);
	uint64_t its_key = !h			      ? 0
			   : head_kind == RTS_FIFO_HEAD_COND ? __atomic_load_n(&h->cond_key, __ATOMIC_RELAXED)
							     : __atomic_load_n(&h->mutex_key, __ATOMIC_RELAXED);
	if (!h || __atomic_load_n(&h->head_of, __ATOMIC_RELAXED) != head_kind || its_key != key ||
	    !waiting_state(atomic_load_explicit(&h->state, memory_order_relaxed), head_kind)) {
		*err = EINVAL;
		return NULL;
	}
	return h;
}

/* Make r a queue of its own. */
static void single(struct rts_fifo_scope *s, struct rts_fifo_record *r)
{
	r->next = r->prev = rts_fifo_slot(s, r);
}

/*
 * Append the queue headed by first (a circular list) to the queue headed by
 * h (or make it one): 0, or ENOTRECOVERABLE when a link is out of range.
 */
static int append(struct rts_fifo_scope *s, _Atomic uint32_t *word, struct rts_fifo_record *h,
		   struct rts_fifo_record *first, uint32_t head_kind)
{
	if (!h) {
		set_head_of(first, head_kind);
		atomic_store_explicit(word, rts_fifo_slot(s, first), memory_order_relaxed);
		return 0;
	}
	struct rts_fifo_record *tail = linked(s, h->prev), *last = linked(s, first->prev);
	if (!tail || !last)
		return ENOTRECOVERABLE; /* a link out of range: leave the queues as they are */
	tail->next = rts_fifo_slot(s, first);
	first->prev = rts_fifo_slot(s, tail);
	last->next = rts_fifo_slot(s, h);
	h->prev = rts_fifo_slot(s, last);
	set_head_of(first, RTS_FIFO_HEAD_NONE);
	return 0;
}

/*
 * Take r out of its queue, whose word is `word`: 0, with *empty true if the
 * queue is now empty; ENOTRECOVERABLE when r's links are out of range (r is
 * then made a queue of its own and the object's word left as it is).
 */
static int unlink_record(struct rts_fifo_scope *s, _Atomic uint32_t *word,
			 struct rts_fifo_record *r, bool *empty)
{
	uint32_t next_slot = r->next, prev_slot = r->prev, head_of = r->head_of;
	*empty = next_slot == rts_fifo_slot(s, r);
	int err = 0;
	if (*empty) {
		atomic_store_explicit(word, 0, memory_order_relaxed);
	} else {
		struct rts_fifo_record *prev = linked(s, prev_slot), *next = linked(s, next_slot);
		if (!prev || !next) {
			err = ENOTRECOVERABLE;
		} else {
			prev->next = next_slot;
			next->prev = prev_slot;
			if (head_of != RTS_FIFO_HEAD_NONE) {
				set_head_of(next, head_of);
				atomic_store_explicit(word, next_slot, memory_order_relaxed);
			}
		}
	}
	set_head_of(r, RTS_FIFO_HEAD_NONE);
	single(s, r);
	return err;
}

int rts_fifo_mutex_enqueue(const struct rts_fifo_mutex_ref *m, struct rts_fifo_record *r,
			   uint32_t expected)
{
	struct rts_fifo_scope *s = m->scope;
	int err = EAGAIN;
	rts_fifo_queue_lock(s, m->lock);
	if (atomic_load_explicit(m->state, memory_order_relaxed) == expected) {
		struct rts_fifo_record *h = valid_head(s, m->head, RTS_FIFO_HEAD_MUTEX, m->key, &err);
		if (!err) {
			set_keys(r, m->key, 0);
			r->mutex_lock = m->lock;
			atomic_store_explicit(&r->state, RTS_FIFO_MUTEX_QUEUED, memory_order_relaxed);
			single(s, r);
			err = append(s, m->head, h, r, RTS_FIFO_HEAD_MUTEX);
			if (err)
				atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
		}
	}
	rts_fifo_queue_unlock(s, m->lock);
	return err;
}

int rts_fifo_mutex_wake(const struct rts_fifo_mutex_ref *m)
{
	struct rts_fifo_scope *s = m->scope;
	int err;
	rts_fifo_queue_lock(s, m->lock);
	struct rts_fifo_record *h = valid_head(s, m->head, RTS_FIFO_HEAD_MUTEX, m->key, &err);
	if (!err && !h)
		atomic_store_explicit(m->state, 0, memory_order_release); /* nobody queued */
	bool empty;
	if (h && (err = unlink_record(s, m->head, h, &empty)) != 0)
		h = NULL; /* a corrupted queue: the mutex stays the caller's */
	if (h) {
		uint32_t tid = atomic_load_explicit(&h->tid, memory_order_relaxed);
		atomic_store_explicit(m->state, tid | (empty ? 0 : RTS_FIFO_WAITERS),
				      memory_order_release);
		atomic_store_explicit(&h->state, RTS_FIFO_GRANTED, memory_order_release);
	}
	rts_fifo_queue_unlock(s, m->lock);
	if (h) /* the record outlives the wait: a late wake finds it idle or waiting anew */
		rts_backend()->wake(&h->state, 1, s->pshared);
	return err;
}

bool rts_fifo_mutex_dequeue(const struct rts_fifo_mutex_ref *m, struct rts_fifo_record *r)
{
	struct rts_fifo_scope *s = m->scope;
	rts_fifo_queue_lock(s, m->lock);
	bool left = atomic_load_explicit(&r->state, memory_order_acquire) != RTS_FIFO_GRANTED;
	bool empty;
	if (left) {
		/* A corrupted queue: r leaves it all the same (it is made a queue of its own). */
		if (unlink_record(s, m->head, r, &empty) == 0 && empty)
			atomic_fetch_and_explicit(m->state, ~RTS_FIFO_WAITERS, memory_order_relaxed);
		atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
	}
	rts_fifo_queue_unlock(s, m->lock);
	return left;
}

/* Both locks of a condvar wait, in index order (once if they are the same). */
static void lock_pair(struct rts_fifo_scope *s, uint16_t a, uint16_t b)
{
	uint16_t low = a < b ? a : b, high = a < b ? b : a;
	rts_fifo_queue_lock(s, low);
	if (high != low)
		rts_fifo_queue_lock(s, high);
}

static void unlock_pair(struct rts_fifo_scope *s, uint16_t a, uint16_t b)
{
	if (a != b)
		rts_fifo_queue_unlock(s, a);
	rts_fifo_queue_unlock(s, b);
}

int rts_fifo_cond_enqueue(const struct rts_fifo_mutex_ref *m, const struct rts_fifo_cond_ref *c,
			  struct rts_fifo_record *r)
{
	struct rts_fifo_scope *s = m->scope;
	int err;
	rts_fifo_queue_lock(s, c->lock);
	struct rts_fifo_record *h = valid_head(s, c->head, RTS_FIFO_HEAD_COND, c->key, &err);
	if (!err) {
		set_keys(r, m->key, c->key);
		r->mutex_lock = m->lock;
		r->cond_lock = c->lock;
		r->mutex_offset = c->mutex_offset;
		atomic_store_explicit(&r->state, RTS_FIFO_COND_QUEUED, memory_order_relaxed);
		single(s, r);
		err = append(s, c->head, h, r, RTS_FIFO_HEAD_COND);
		if (err)
			atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
		else
			atomic_fetch_add_explicit(c->waiters, 1, memory_order_relaxed);
	}
	rts_fifo_queue_unlock(s, c->lock);
	return err;
}

/* Under the condvar's lock: the head and the mutex its waiters named (which must be m). */
static struct rts_fifo_record *cond_head_for(const struct rts_fifo_mutex_ref *m,
					     const struct rts_fifo_cond_ref *c, int *err)
{
	struct rts_fifo_record *h = valid_head(m->scope, c->head, RTS_FIFO_HEAD_COND, c->key, err);
	if (h && (h->mutex_key != m->key || h->mutex_lock != m->lock ||
		  h->mutex_offset != c->mutex_offset)) {
		*err = EINVAL;
		return NULL;
	}
	return h;
}

int rts_fifo_cond_requeue(const struct rts_fifo_mutex_ref *m, const struct rts_fifo_cond_ref *c,
			  bool all)
{
	struct rts_fifo_scope *s = m->scope;
	if ((atomic_load_explicit(m->state, memory_order_relaxed) & RTS_FUTEX_TID_MASK) !=
	    rts_self_tid())
		return EPERM;
	int err;
	lock_pair(s, c->lock, m->lock);
	struct rts_fifo_record *h = cond_head_for(m, c, &err);
	struct rts_fifo_record *mh = h ? valid_head(s, m->head, RTS_FIFO_HEAD_MUTEX, m->key, &err)
				       : NULL;
	/* Check both queues' links before anything changes: a failed append
	 * after the condvar gave up its waiters would strand them. */
	if (h && !err && (!linked(s, h->prev) || (mh && !linked(s, mh->prev))))
		err = ENOTRECOVERABLE;
	if (h && !err) {
		bool empty;
		if (all) {
			atomic_store_explicit(c->head, 0, memory_order_relaxed);
			atomic_store_explicit(c->waiters, 0, memory_order_relaxed);
			/* the whole queue is appended as it is: O(1) */
		} else if ((err = unlink_record(s, c->head, h, &empty)) == 0) {
			atomic_fetch_sub_explicit(c->waiters, 1, memory_order_relaxed);
			atomic_store_explicit(&h->state, RTS_FIFO_MOVED, memory_order_relaxed);
		}
		if (!err)
			err = append(s, m->head, mh, h, RTS_FIFO_HEAD_MUTEX);
		if (!err) {
			atomic_fetch_or_explicit(m->state, RTS_FIFO_WAITERS, memory_order_relaxed);
			atomic_fetch_add_explicit(c->counter, 1, memory_order_relaxed);
		}
	}
	unlock_pair(s, c->lock, m->lock);
	return err;
}

/*
 * Under both locks: the kind of queue r is in (RTS_FIFO_HEAD_COND, or
 * RTS_FIFO_HEAD_MUTEX once a signal or broadcast moved it), by walking back
 * to its queue's head: a queue holds at most RTS_FIFO_RECORDS records, so the
 * walk is bounded. The library's links always lead to a head; a walk that
 * does not (it leads out of range or does not close, the records having been
 * rewritten) gives RTS_FIFO_HEAD_NONE.
 */
static uint32_t queue_kind(struct rts_fifo_scope *s, struct rts_fifo_record *r)
{
	struct rts_fifo_record *at = r;
	for (uint32_t steps = 0; at && steps < RTS_FIFO_RECORDS; steps++) {
		uint32_t head_of = at->head_of;
		if (head_of != RTS_FIFO_HEAD_NONE)
			return head_of;
		at = linked(s, at->prev);
	}
	return RTS_FIFO_HEAD_NONE;
}

enum rts_fifo_left rts_fifo_cond_dequeue(const struct rts_fifo_mutex_ref *m,
					 const struct rts_fifo_cond_ref *c,
					 struct rts_fifo_record *r)
{
	struct rts_fifo_scope *s = m->scope;
	enum rts_fifo_left where = RTS_FIFO_IN_MUTEX;
	/* The indices from the objects' refs, not from r (shared memory): the
	 * same ones r was queued under, read once, so that unlock matches lock. */
	uint16_t cond_lock = c->lock, mutex_lock = m->lock;
	lock_pair(s, cond_lock, mutex_lock);
	uint32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
	uint32_t kind = state == RTS_FIFO_GRANTED ? RTS_FIFO_HEAD_NONE : queue_kind(s, r);
	bool empty;
	if (state == RTS_FIFO_GRANTED) {
		where = RTS_FIFO_WAS_GRANTED;
	} else if (state == RTS_FIFO_COND_QUEUED && kind == RTS_FIFO_HEAD_COND) {
		unlink_record(s, c->head, r, &empty);
		atomic_fetch_sub_explicit(c->waiters, 1, memory_order_relaxed);
		atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
		where = RTS_FIFO_LEFT_COND;
	} else if ((state != RTS_FIFO_COND_QUEUED && state != RTS_FIFO_MOVED) ||
		   kind != RTS_FIFO_HEAD_MUTEX) {
		/* Neither queue holds it as the library left it: the records or r's
		 * state were rewritten. r leaves, changing only its own record (its
		 * neighbours' links are not to be trusted), and waits for no
		 * hand-over. */
		set_head_of(r, RTS_FIFO_HEAD_NONE);
		single(s, r);
		atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
		where = RTS_FIFO_LOST;
	}
	unlock_pair(s, cond_lock, mutex_lock);
	return where;
}

int rts_fifo_cond_peek(struct rts_fifo_scope *s, const struct rts_fifo_cond_ref *c,
		       int64_t *mutex_offset)
{
	int err;
	rts_fifo_queue_lock(s, c->lock);
	struct rts_fifo_record *h = valid_head(s, c->head, RTS_FIFO_HEAD_COND, c->key, &err);
	if (h)
		*mutex_offset = h->mutex_offset;
	rts_fifo_queue_unlock(s, c->lock);
	return h ? 0 : err ? err : ENOENT;
}

bool rts_fifo_cond_idle(struct rts_fifo_scope *s, const struct rts_fifo_cond_ref *c)
{
	rts_fifo_queue_lock(s, c->lock);
	bool idle = atomic_load_explicit(c->head, memory_order_relaxed) == 0 &&
		    atomic_load_explicit(c->waiters, memory_order_relaxed) == 0;
	rts_fifo_queue_unlock(s, c->lock);
	return idle;
}

int rts_fifo_sleep(struct rts_fifo_scope *s, struct rts_fifo_record *r,
		   const struct timespec *deadline, clockid_t clock, bool cancellable)
{
	const struct rts_backend *backend = rts_backend();
	for (;;) {
		uint32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
		if (state == RTS_FIFO_GRANTED)
			return 0;
		int cancel_type = cancellable ? rts_cancel_async_begin() : 0;
		int ret = backend->block(&r->state, state, deadline, clock, s->pshared);
		if (cancellable)
			rts_cancel_async_end(cancel_type);
		if (ret == -ETIMEDOUT)
			return ETIMEDOUT;
	}
}
