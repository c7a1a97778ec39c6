/* SPDX-License-Identifier: MIT */
/*
 * A partition's system ceiling (docs/ceiling.md): the fast path on `top`,
 * the table of entries under the guard, and blocking on ceiling tokens.
 *
 * Who changes `top`:
 *  - the fast path: 0 -> FAST entry (push), own FAST entry -> 0 (pop);
 *  - the guard's holder, anything else. It first *settles* top: a FAST
 *    entry moves into the table, and an empty top becomes a sentinel
 *    (key 0, the guard holder's TID), so that no fast path can change top
 *    until the guard holder *publishes* it again (a plain store of the
 *    table's maximum, or 0). The sentinel's key 0 is below every level, so
 *    the lock-free check of rts_ceiling_gate still passes over it.
 *
 * Ceiling tokens: entry.token is 0, or the holder's TID (written by the
 * first blocker, under the guard), with FUTEX_WAITERS once a blocker sleeps
 * in the kernel. The holder hands it over at pop, after publishing; each
 * thread that gets it passes it on at once and looks again.
 */
#include <errno.h>
#include <stdbool.h>

#include <rtsched/trace.h>

#include "internal/backend.h"
#include "internal/ceiling.h"
#include "internal/ceiling_partition.h"
#include "internal/pi_word.h"
#include "internal/tid.h"
#include "internal/trace.h"

static void guard_lock(struct ceiling_partition *p)
{
	rts_pi_lock(&p->guard, p->pshared);
}

static void guard_unlock(struct ceiling_partition *p)
{
	rts_pi_unlock(&p->guard, p->pshared);
}

/* A free slot, preferring one whose token nobody still hands down; NULL if all are in use. */
static struct ceiling_entry *slot_alloc(struct ceiling_partition *p)
{
	struct ceiling_entry *quiet = NULL, *any = NULL;
	for (int i = 0; i < RTS_LOCK_MAX_HELD && !quiet; i++) {
		struct ceiling_entry *e = &p->entries[i];
		if (e->in_use)
			continue;
		if (atomic_load_explicit(&e->token, memory_order_relaxed) == 0)
			quiet = e;
		else if (!any)
			any = e;
	}
	return quiet ? quiet : any;
}

static void slot_fill(struct ceiling_partition *p, struct ceiling_entry *e, uint32_t key, bool gate,
		      uint32_t tid)
{
	e->key = key;
	e->tid = tid;
	e->gate = gate;
	e->in_use = 1;
	p->n_entries++;
}

/* Under the guard: make the table authoritative and freeze top (see the file comment). */
static void settle(struct ceiling_partition *p, uint32_t me)
{
	for (;;) {
		uint64_t t = atomic_load_explicit(&p->top, memory_order_acquire);
		uint64_t frozen;
		if (t & CEILING_TOP_FAST)
			frozen = t & ~CEILING_TOP_FAST;
		else if (t == 0)
			frozen = ceiling_top_make(0, false, false, me);
		else
			return;
		if (!atomic_compare_exchange_strong_explicit(&p->top, &t, frozen, memory_order_acq_rel,
							     memory_order_acquire))
			continue; /* a fast push or pop got there first */
		if (t & CEILING_TOP_FAST)
			slot_fill(p, slot_alloc(p), ceiling_top_key(t), t & CEILING_TOP_GATE,
				  ceiling_top_tid(t));
		return;
	}
}

/* Under the guard, after settle: top = the table's highest entry (or 0). */
static void publish(struct ceiling_partition *p)
{
	const struct ceiling_entry *best = NULL;
	for (int i = 0; i < RTS_LOCK_MAX_HELD; i++) {
		const struct ceiling_entry *e = &p->entries[i];
		if (e->in_use && (!best || e->key > best->key))
			best = e;
	}
	uint64_t top = best ? ceiling_top_make(best->key, best->gate, false, best->tid) : 0;
	atomic_store_explicit(&p->top, top, memory_order_release);
}

/* The highest entry of another thread that holds the caller back, or NULL. */
static struct ceiling_entry *find_blocker(struct ceiling_partition *p, uint32_t me, uint32_t level,
					  bool gate_only)
{
	struct ceiling_entry *best = NULL;
	for (int i = 0; i < RTS_LOCK_MAX_HELD; i++) {
		struct ceiling_entry *e = &p->entries[i];
		if (!e->in_use || e->tid == me || e->key < level || (gate_only && !e->gate))
			continue;
		if (!best || e->key > best->key)
			best = e;
	}
	return best;
}

/* Entries whose holder exited without popping them would hold the ceiling forever. */
static void purge_dead_holders(struct ceiling_partition *p)
{
	for (int i = 0; i < RTS_LOCK_MAX_HELD; i++) {
		struct ceiling_entry *e = &p->entries[i];
		if (e->in_use && !rts_tid_alive(e->tid)) {
			e->in_use = 0;
			p->n_entries--;
		}
	}
}

/* The caller owns a token (the kernel handed it over): give it to the next blocker, or free it. */
static void token_pass_on(rts_futex_word *token, uint32_t me, bool pshared)
{
	uint32_t v = atomic_load_explicit(token, memory_order_relaxed);
	while ((v & RTS_FUTEX_TID_MASK) == me) {
		if (v & RTS_FUTEX_WAITERS) {
			rts_backend()->pi_wake(token, pshared);
			return;
		}
		if (atomic_compare_exchange_weak_explicit(token, &v, 0, memory_order_relaxed,
							  memory_order_relaxed))
			return;
	}
}

/*
 * Sleep on a holder's token until the holder gives it up (or dies), lending
 * the caller's priority. 0 (look again), ESRCH (the holder is gone), EDEADLK.
 */
static int token_wait(rts_futex_word *token, uint32_t me, bool pshared)
{
	int ret = rts_backend()->pi_block(token, NULL, pshared);
	switch (ret) {
	case 0: {
		uint32_t v = atomic_load_explicit(token, memory_order_relaxed);
		token_pass_on(token, me, pshared);
		return (v & RTS_FUTEX_OWNER_DIED) ? ESRCH : 0;
	}
	case -ESRCH:
		return ESRCH;
	case -EDEADLK:
		return EDEADLK;
	default: /* -EAGAIN (the holder is exiting), -EINTR: look again */
		return 0;
	}
}

/*
 * Under the guard: wait until no entry of another thread holds the caller
 * back. Returns with the guard held and top settled: 0, EBUSY (nonblock),
 * EDEADLK (the holder waits, through PI, for the caller).
 */
static int wait_unblocked(struct ceiling_partition *p, bool pshared, uint32_t me, uint32_t level,
			  bool gate_only, enum rts_block_cause cause, bool nonblock)
{
	for (;;) {
		settle(p, me);
		struct ceiling_entry *b = find_blocker(p, me, level, gate_only);
		if (!b)
			return 0;
		if (nonblock)
			return EBUSY;
		uint32_t holder = b->tid;
		uint32_t idle = 0;
		atomic_compare_exchange_strong_explicit(&b->token, &idle, holder, memory_order_relaxed,
							memory_order_relaxed);
		publish(p);
		guard_unlock(p);
		rts_trace_emit_lib(RTS_EV_LOCK_BLOCKED, cause, holder);
		int err = token_wait(&b->token, me, pshared);
		guard_lock(p);
		if (err == EDEADLK)
			return EDEADLK;
		if (err == ESRCH) {
			settle(p, me);
			purge_dead_holders(p);
		}
	}
}

int rts_ceiling_push_slow(struct ceiling_partition *p, bool pshared, uint32_t key, bool gate,
			  uint32_t level, bool gate_only, enum rts_block_cause cause, bool nonblock)
{
	uint32_t me = rts_self_tid();
	guard_lock(p);
	int err = wait_unblocked(p, pshared, me, level, gate_only, cause, nonblock);
	if (!err) {
		struct ceiling_entry *e = slot_alloc(p);
		if (e)
			slot_fill(p, e, key, gate, me);
		else
			err = ENOSPC;
	}
	publish(p);
	guard_unlock(p);
	return err;
}

void rts_ceiling_pop_slow(struct ceiling_partition *p, bool pshared, uint32_t key)
{
	uint32_t me = rts_self_tid();
	guard_lock(p);
	settle(p, me);
	struct ceiling_entry *e = NULL;
	for (int i = 0; i < RTS_LOCK_MAX_HELD && !e; i++) {
		struct ceiling_entry *c = &p->entries[i];
		if (c->in_use && c->tid == me && c->key == key)
			e = c;
	}
	if (e) {
		e->in_use = 0;
		p->n_entries--;
	}
	publish(p);
	guard_unlock(p);
	if (e)
		token_pass_on(&e->token, me, pshared);
}

/*
 * The fast exits trust top only while nobody holds the guard: a thread of the
 * partition preempted inside a slow-path push holds the guard and has not
 * published its entry yet. Passing then would start the job and make it
 * wait, at its first lock, for that thread's whole critical section (an SRP
 * job never blocks once started). Taking the guard instead lends that thread
 * the caller's priority until its push is done, then the table decides.
 */
int rts_ceiling_gate(struct ceiling_partition *p, bool pshared, uint32_t level)
{
	uint32_t me = rts_self_tid();
	bool guard_free = atomic_load_explicit(&p->guard, memory_order_acquire) == 0;
	uint64_t t = atomic_load_explicit(&p->top, memory_order_acquire);
	if (rts_likely(guard_free && (t == 0 || ceiling_top_key(t) < level)))
		return 0;
	if (guard_free && (t & CEILING_TOP_FAST) &&
	    (!(t & CEILING_TOP_GATE) || ceiling_top_tid(t) == me))
		return 0;

	guard_lock(p);
	int err = wait_unblocked(p, pshared, me, level, true, RTS_BLOCK_GATE, false);
	publish(p);
	guard_unlock(p);
	return err;
}
