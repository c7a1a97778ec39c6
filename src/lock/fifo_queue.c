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
#include "internal/fifo_queue.h"
#include "internal/tid.h"

static struct rts_fifo_record *rec(struct rts_fifo_scope *s, uint32_t slot)
{
	return &s->records[slot - 1]; /* slot: from the library's own links */
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

/* Append the queue headed by first (a circular list) to the queue headed by h (or make it one). */
static void append(struct rts_fifo_scope *s, _Atomic uint32_t *word, struct rts_fifo_record *h,
		   struct rts_fifo_record *first, uint32_t head_kind)
{
	if (!h) {
		set_head_of(first, head_kind);
		atomic_store_explicit(word, rts_fifo_slot(s, first), memory_order_relaxed);
		return;
	}
	struct rts_fifo_record *tail = rec(s, h->prev), *last = rec(s, first->prev);
	tail->next = rts_fifo_slot(s, first);
	first->prev = rts_fifo_slot(s, tail);
	last->next = rts_fifo_slot(s, h);
	h->prev = rts_fifo_slot(s, last);
	set_head_of(first, RTS_FIFO_HEAD_NONE);
}

/* Take r out of its queue, whose word is `word`; true if the queue is now empty. */
static bool unlink_record(struct rts_fifo_scope *s, _Atomic uint32_t *word, struct rts_fifo_record *r)
{
	bool empty = r->next == rts_fifo_slot(s, r);
	if (empty) {
		atomic_store_explicit(word, 0, memory_order_relaxed);
	} else {
		struct rts_fifo_record *prev = rec(s, r->prev), *next = rec(s, r->next);
		prev->next = r->next;
		next->prev = r->prev;
		if (r->head_of != RTS_FIFO_HEAD_NONE) {
			set_head_of(next, r->head_of);
			atomic_store_explicit(word, r->next, memory_order_relaxed);
		}
	}
	set_head_of(r, RTS_FIFO_HEAD_NONE);
	single(s, r);
	return empty;
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
			append(s, m->head, h, r, RTS_FIFO_HEAD_MUTEX);
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
	if (h) {
		bool empty = unlink_record(s, m->head, h);
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
	if (left) {
		if (unlink_record(s, m->head, r))
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
		append(s, c->head, h, r, RTS_FIFO_HEAD_COND);
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
	if (h && !err) {
		if (all) {
			atomic_store_explicit(c->head, 0, memory_order_relaxed);
			atomic_store_explicit(c->waiters, 0, memory_order_relaxed);
			/* the whole queue is appended as it is: O(1) */
		} else {
			unlink_record(s, c->head, h);
			atomic_fetch_sub_explicit(c->waiters, 1, memory_order_relaxed);
			atomic_store_explicit(&h->state, RTS_FIFO_MOVED, memory_order_relaxed);
		}
		append(s, m->head, mh, h, RTS_FIFO_HEAD_MUTEX);
		atomic_fetch_or_explicit(m->state, RTS_FIFO_WAITERS, memory_order_relaxed);
		atomic_fetch_add_explicit(c->counter, 1, memory_order_relaxed);
	}
	unlock_pair(s, c->lock, m->lock);
	return err;
}

/*
 * Under both locks: whether r, in the COND_QUEUED state, is still in the
 * condvar's queue or a broadcast moved it (walking back to its queue's head:
 * a queue holds at most RTS_FIFO_RECORDS records, so the walk is bounded; the
 * links are the library's own and always lead to a head).
 */
static bool in_cond_queue(struct rts_fifo_scope *s, struct rts_fifo_record *r)
{
	struct rts_fifo_record *at = r;
	for (uint32_t steps = 0; steps < RTS_FIFO_RECORDS; steps++) {
		if (at->head_of != RTS_FIFO_HEAD_NONE)
			return at->head_of == RTS_FIFO_HEAD_COND;
		at = rec(s, at->prev);
	}
	return false;
}

enum rts_fifo_left rts_fifo_cond_dequeue(const struct rts_fifo_mutex_ref *m,
					 const struct rts_fifo_cond_ref *c,
					 struct rts_fifo_record *r)
{
	struct rts_fifo_scope *s = m->scope;
	enum rts_fifo_left where = RTS_FIFO_IN_MUTEX;
	lock_pair(s, r->cond_lock, r->mutex_lock);
	uint32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
	if (state == RTS_FIFO_GRANTED) {
		where = RTS_FIFO_WAS_GRANTED;
	} else if (state == RTS_FIFO_COND_QUEUED && in_cond_queue(s, r)) {
		unlink_record(s, c->head, r);
		atomic_fetch_sub_explicit(c->waiters, 1, memory_order_relaxed);
		atomic_store_explicit(&r->state, RTS_FIFO_IDLE, memory_order_relaxed);
		where = RTS_FIFO_LEFT_COND;
	}
	unlock_pair(s, r->cond_lock, r->mutex_lock);
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
		   const struct timespec *deadline, clockid_t clock)
{
	const struct rts_backend *backend = rts_backend();
	for (;;) {
		uint32_t state = atomic_load_explicit(&r->state, memory_order_acquire);
		if (state == RTS_FIFO_GRANTED)
			return 0;
		int ret = backend->block(&r->state, state, deadline, clock, s->pshared);
		if (ret == -ETIMEDOUT)
			return ETIMEDOUT;
	}
}
