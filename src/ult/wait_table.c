/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's wait table (docs/ult.md, "Locks and condition
 * variables"): the ULTs blocked on futex words, and priority inheritance
 * over PI words, done by the user-level scheduler itself.
 *
 * Every function here runs under the runtime's wait_lock, taken by a ULT
 * that holds off switches (rts_ult_hold_switches), so the table and the
 * words' WAITERS bits change in one step with the compare that decides to
 * block. Lock order: wait_lock, then at most one cluster->lock at a time.
 *
 * A waiter is in the bucket of its word's address, unsorted; the top waiter
 * of a word is found by a scan: smallest key (its effective priority, which
 * inheritance may change while it waits), then smallest wait_seq (FIFO
 * among equals).
 *
 * Inheritance. A PI word's owner is the ULT whose identity the word holds.
 * Invariant (under wait_lock, whenever wait_lock is free): every ULT's
 * boost_key is the smallest key of the RTS_ULT_WAIT_PI waiters on the words
 * it owns (INT64_MAX if none), and its key is min(base_key, boost_key).
 * Every change of a waiter's key, of the waiters of a word, or of a word's
 * owner while it has waiters is followed by rts_ult_pi_update on the
 * owner(s) concerned, which restores it along the chain (an owner blocked
 * on another PI word passes its new key on to that word's owner). Owners
 * are found from the words, not remembered: a fast-path lock or unlock
 * (a CAS in user space, no waiters) cannot change a boost.
 */
#include <stdint.h>

#include "internal/ult.h"

/* Longest chain of PI owners followed; the deadlock check walks as far. */
#define MAX_CHAIN 64

static struct rts_ult **bucket_of(struct rts_ult_runtime *rt, const rts_futex_word *word)
{
	uintptr_t a = (uintptr_t)word;
	return &rt->wait_buckets[(a >> 2 ^ a >> 8 ^ a >> 14) % RTS_ULT_WAIT_BUCKETS];
}

void rts_ult_wait_enqueue(struct rts_ult_runtime *rt, struct rts_ult *u, rts_futex_word *word,
			  enum rts_ult_wait_kind kind, rts_futex_word *requeue_to)
{
	struct rts_ult **head = bucket_of(rt, word);
	u->wait_word = word;
	u->wait_kind = kind;
	u->requeue_to = requeue_to;
	u->wait_seq = ++rt->wait_seq;
	u->wait_result = 0;
	u->wake_pending = false; /* a wake of an earlier block that found it running */
	u->wait_next = *head;
	*head = u;
}

void rts_ult_wait_dequeue(struct rts_ult_runtime *rt, struct rts_ult *u)
{
	for (struct rts_ult **link = bucket_of(rt, u->wait_word); *link; link = &(*link)->wait_next) {
		if (*link == u) {
			*link = u->wait_next;
			break;
		}
	}
	u->wait_next = NULL;
	u->wait_word = NULL;
}

struct rts_ult *rts_ult_wait_top(struct rts_ult_runtime *rt, const rts_futex_word *word,
				 enum rts_ult_wait_kind kind)
{
	struct rts_ult *best = NULL;
	for (struct rts_ult *u = *bucket_of(rt, word); u; u = u->wait_next) {
		if (u->wait_word != word || u->wait_kind != kind)
			continue;
		if (!best || u->key < best->key || (u->key == best->key && u->wait_seq < best->wait_seq))
			best = u;
	}
	return best;
}

void rts_ult_wait_move(struct rts_ult_runtime *rt, struct rts_ult *u, rts_futex_word *word)
{
	rts_ult_wait_dequeue(rt, u);
	struct rts_ult **head = bucket_of(rt, word);
	u->wait_word = word;
	u->wait_kind = RTS_ULT_WAIT_PI;
	u->requeue_to = NULL;
	u->wait_seq = ++rt->wait_seq; /* FIFO on the PI word in the order of arrival there */
	u->wait_next = *head;
	*head = u;
}

struct rts_ult *rts_ult_word_owner(const struct rts_ult_runtime *rt, const rts_futex_word *word)
{
	uint32_t id = atomic_load_explicit(word, memory_order_relaxed) & RTS_FUTEX_TID_MASK;
	return id ? rts_ult_runtime_find_id(rt, id) : NULL;
}

bool rts_ult_pi_chain_reaches(const struct rts_ult_runtime *rt, struct rts_ult *from,
			      const struct rts_ult *target)
{
	struct rts_ult *o = from;
	for (int depth = 0; o && depth < MAX_CHAIN; depth++) {
		if (o == target)
			return true;
		if (!o->wait_word || o->wait_kind != RTS_ULT_WAIT_PI)
			return false;
		o = rts_ult_word_owner(rt, o->wait_word);
	}
	return o != NULL; /* too long a chain counts as a cycle */
}

/* The smallest key of the PI waiters on words that `o` owns. */
static int64_t best_waiter_key(struct rts_ult_runtime *rt, const struct rts_ult *o)
{
	int64_t best = INT64_MAX;
	for (int b = 0; b < RTS_ULT_WAIT_BUCKETS; b++)
		for (struct rts_ult *u = rt->wait_buckets[b]; u; u = u->wait_next)
			if (u->wait_kind == RTS_ULT_WAIT_PI && u->key < best &&
			    (atomic_load_explicit(u->wait_word, memory_order_relaxed) &
			     RTS_FUTEX_TID_MASK) == o->id)
				best = u->key;
	return best;
}

bool rts_ult_set_boost(struct rts_ult *u, int64_t boost_key)
{
	struct rts_ult_cluster *c = u->cluster;
	pthread_mutex_lock(&c->lock);
	int64_t before = u->key; /* a release sets key and base_key (queue.c): under the lock */
	u->boost_key = boost_key;
	rts_ult_rekey(c, u);
	bool changed = u->key != before;
	rts_ult_kick_workers(c);
	pthread_mutex_unlock(&c->lock);
	return changed;
}

void rts_ult_pi_update(struct rts_ult_runtime *rt, struct rts_ult *o)
{
	for (int depth = 0; o && depth < MAX_CHAIN; depth++) {
		int64_t boost = best_waiter_key(rt, o);
		if (boost == o->boost_key)
			return;
		if (!rts_ult_set_boost(o, boost) || !o->wait_word || o->wait_kind != RTS_ULT_WAIT_PI)
			return; /* nothing changes further along */
		o = rts_ult_word_owner(rt, o->wait_word);
	}
}

bool rts_ult_wait_any(struct rts_ult_runtime *rt, const rts_futex_word *word,
		      enum rts_ult_wait_kind kind)
{
	return rts_ult_wait_top(rt, word, kind) != NULL;
}

void rts_ult_wait_wake(struct rts_ult_runtime *rt, struct rts_ult *u)
{
	rts_ult_wait_dequeue(rt, u);
	u->wait_result = 0;
	struct rts_ult_cluster *c = u->cluster;
	pthread_mutex_lock(&c->lock);
	rts_ult_make_ready(c, u);
	rts_ult_kick_workers(c);
	pthread_mutex_unlock(&c->lock);
}
