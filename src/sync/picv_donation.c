/* SPDX-License-Identifier: MIT */
/*
 * The PI-CV donation graph: which waiter lends to which helpers, the base
 * priority of every helper the library has raised, and the sched_setattr
 * calls that make each helper run at max(base, donors).
 *
 * Levels: a SCHED_FIFO / SCHED_RR thread's level is its rtprio (1..99), any
 * other SCHED_OTHER / BATCH / IDLE thread's is 0. A SCHED_DEADLINE thread has
 * no level (NO_LEVEL): it lends only through the kernel (its anchor's token,
 * which carries its deadline parameters), never through sched_setattr, and
 * the library never rewrites a SCHED_DEADLINE helper (it already runs above
 * every FIFO level, and new parameters would give up its reservation).
 *
 * A waiter waits for ANY of its helpers, so a cycle of loans is no deadlock
 * while some thread on it lends on to a thread that runs (does not wait on a
 * PI-CV, or waits with a timeout): that thread can still make a condition
 * true. A wait is refused
 * with EDEADLK only when every path from the waiter's helpers comes back to
 * waiting threads (a knot), which with one helper per condvar is exactly a
 * cycle. Anchors, however, must never form a cycle (the kernel would report
 * the rt_mutex chain as a deadlock), so a loan's anchor is its first helper
 * whose chain of anchors does not lead back to the donor, or none. (A
 * waiter popped by a wake signal has left the graph but may still block in
 * the kernel for a moment; if the kernel then reports a closed chain, picv.c
 * lends without an anchor for the rest of that wait.)
 *
 * Priorities, with loans on cycles allowed, as the least fixpoint of
 *     eff(d)  = max(own(d), max{ eff(k.donor) : loan k lends to d })
 *     own(d)  = the remembered base level if the library raised d,
 *               else d's level as sched_getattr reported it when the
 *               graph first needed it during this loan (d waits: only
 *               others can change it, and they are not looked for)
 * for every donor d (a waiter with a loan). A helper h that some loan names
 * other than as its anchor is raised to
 *     want(h) = max{ eff(k.donor) : k lends to h, not as its anchor }
 * while want(h) > own(h). An anchor gets its boost from the kernel through
 * the token, which carries the donor's kernel priority (at least eff(donor)
 * when the donor is raised by the library or the kernel in turn). Boosts
 * the kernel's PI gives a thread (PI mutexes it holds) are not seen here, so
 * they travel only along anchors.
 *
 * A thread that changes its own priority while the library has raised it:
 * the next time the library would change or restore that thread's priority,
 * it finds the priority is no longer the one it applied, takes the thread's
 * new setting as the base, and leaves it in place when the boost ends.
 *
 * Invariants (all under graph_lock):
 *  - a loan's helpers and anchor do not change while it is in the graph;
 *  - anchors form no cycle (see above);
 *  - a thread has at most one loan in the graph (it waits on one condvar);
 *  - a boost record exists exactly while the library has raised that thread
 *    with sched_setattr: `applied_*` is what it set, `base` what to restore.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <rtsched/mutex.h>

#include "internal/backend.h"
#include "internal/picv_donation.h"
#include "internal/pi_word.h"
#include "internal/sched_attr.h"

#define NO_LEVEL (-1)
#define SCHED_FLAG_RESET_ON_FORK_BIT 0x01u

struct boost {
	uint32_t tid;
	struct rts_sched_attr base;
	uint32_t applied_policy;
	int applied_level;
	int want_level; /* scratch for one recomputation; NO_LEVEL: not wanted */
};

static rts_futex_word graph_lock; /* a PI word (internal/pi_word.h) */
static struct rts_loan *loans;
static unsigned n_donating; /* loans with two helpers or more */
static uint32_t epoch;      /* of the graph walk in progress */

static struct boost *boosts;
static size_t n_boosts, cap_boosts;

void rts_donation_begin(void)
{
	rts_pi_lock(&graph_lock, false);
}

static int level_of(const struct rts_sched_attr *attr)
{
	switch (attr->sched_policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return (int)attr->sched_priority;
	case SCHED_DEADLINE:
		return NO_LEVEL;
	default:
		return 0;
	}
}

static struct rts_loan *loan_of(uint32_t tid)
{
	for (struct rts_loan *l = loans; l; l = l->next)
		if (l->donor == tid)
			return l;
	return NULL;
}

static uint32_t next_epoch(void)
{
	if (++epoch == 0)
		epoch = 1; /* 0 marks a loan never visited */
	return epoch;
}

/*
 * Does some thread that runs (waits on no PI-CV, or waits with a timeout)
 * lend on from `from`, not through `donor`?
 */
static bool reaches_a_runner(uint32_t from, uint32_t donor)
{
	if (from == donor)
		return false;
	struct rts_loan *l = loan_of(from);
	if (!l || l->timed)
		return true;
	if (l->visit_epoch == epoch)
		return false;
	l->visit_epoch = epoch;
	for (uint32_t i = 0; i < l->n_helpers; i++)
		if (reaches_a_runner(l->helpers[i], donor))
			return true;
	return false;
}

/* Does the chain of anchors from `from` lead to `donor`? (Anchors form no cycle.) */
static bool anchors_lead_to(uint32_t from, uint32_t donor)
{
	for (uint32_t t = from; t; ) {
		if (t == donor)
			return true;
		const struct rts_loan *l = loan_of(t);
		t = l ? rts_loan_anchor(l) : 0;
	}
	return false;
}

static int level_now(uint32_t tid)
{
	struct rts_sched_attr attr = { .size = sizeof(attr) };
	return rts_backend()->get_attr(tid, &attr) == 0 ? level_of(&attr) : NO_LEVEL;
}

/* The donor's level, read once per loan: it waits, so only others change it. */
static int donor_level(struct rts_loan *loan)
{
	if (loan->donor_level == RTS_LEVEL_UNREAD)
		loan->donor_level = level_now(loan->donor);
	return loan->donor_level;
}

/* Helpers the library raises with sched_setattr (all but the anchor). */
static uint32_t n_donated(const struct rts_loan *loan)
{
	return loan->n_helpers - (loan->anchor >= 0 ? 1 : 0);
}

int rts_donation_add(struct rts_loan *loan)
{
	next_epoch();
	bool runs = false;
	for (uint32_t i = 0; i < loan->n_helpers && !runs; i++)
		runs = reaches_a_runner(loan->helpers[i], loan->donor);
	if (!runs)
		return EDEADLK;
	loan->anchor = -1;
	for (uint32_t i = 0; i < loan->n_helpers && loan->anchor < 0 && !loan->avoid_anchor; i++)
		if (!anchors_lead_to(loan->helpers[i], loan->donor))
			loan->anchor = (int)i;
	if (n_donated(loan) > 0 && donor_level(loan) == NO_LEVEL)
		return ENOTSUP; /* a deadline cannot be lent with sched_setattr */
	loan->next = loans;
	loans = loan;
	loan->in_graph = true;
	if (n_donated(loan) > 0)
		n_donating++;
	return 0;
}

void rts_donation_remove(struct rts_loan *loan)
{
	if (!loan->in_graph)
		return;
	for (struct rts_loan **at = &loans; *at; at = &(*at)->next)
		if (*at == loan) {
			*at = loan->next;
			break;
		}
	loan->in_graph = false;
	if (n_donated(loan) > 0)
		n_donating--;
}

static struct boost *boost_of(uint32_t tid)
{
	for (size_t i = 0; i < n_boosts; i++)
		if (boosts[i].tid == tid)
			return &boosts[i];
	return NULL;
}

/* A donor's own level: the base the library keeps if it raised the donor. */
static int own_level(struct rts_loan *loan)
{
	struct boost *b = boost_of(loan->donor);
	return b ? level_of(&b->base) : donor_level(loan);
}

static int max_level(int a, int b)
{
	return a > b ? a : b;
}

/*
 * eff of every loan: start from the donors' own levels and pass each loan's
 * level on to the loan of every thread it lends to until nothing rises (at
 * most one round per loan, as a level travels along a path without repeats).
 */
static void compute_effective_levels(void)
{
	unsigned n_loans = 0;
	for (struct rts_loan *k = loans; k; k = k->next) {
		k->eff_level = own_level(k);
		n_loans++;
	}
	bool rose = true;
	for (unsigned round = 0; rose && round <= n_loans; round++) {
		rose = false;
		for (struct rts_loan *k = loans; k; k = k->next)
			for (uint32_t i = 0; i < k->n_helpers; i++) {
				struct rts_loan *l = loan_of(k->helpers[i]);
				if (l && k->eff_level > l->eff_level) {
					l->eff_level = k->eff_level;
					rose = true;
				}
			}
	}
}

/* Did somebody else change the thread's priority since the library applied its own? */
static bool changed_by_others(const struct boost *b, struct rts_sched_attr *now)
{
	now->size = sizeof(*now);
	if (rts_backend()->get_attr(b->tid, now) != 0)
		return false;
	return now->sched_policy != b->applied_policy ||
	       (int)now->sched_priority != b->applied_level;
}

static void drop(struct boost *b)
{
	*b = boosts[--n_boosts];
}

/* Restore the base (unless the thread has chosen another priority) and forget the record. */
static void release(struct boost *b)
{
	struct rts_sched_attr now;
	if (!changed_by_others(b, &now)) {
		struct rts_sched_attr base = b->base;
		base.sched_flags &= SCHED_FLAG_RESET_ON_FORK_BIT;
		rts_backend()->set_attr(b->tid, &base); /* ESRCH: the thread has exited */
	}
	drop(b);
}

/* 0, or the kernel's refusal (the record is then not in force). */
static int apply(struct boost *b, int level)
{
	struct rts_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = b->base.sched_policy == SCHED_RR ? SCHED_RR : SCHED_FIFO,
		.sched_flags = b->base.sched_flags & SCHED_FLAG_RESET_ON_FORK_BIT,
		.sched_priority = (uint32_t)level,
	};
	int ret = rts_backend()->set_attr(b->tid, &attr);
	if (ret == 0) {
		b->applied_policy = attr.sched_policy;
		b->applied_level = level;
	}
	return ret;
}

static struct boost *new_boost(uint32_t tid, const struct rts_sched_attr *base)
{
	if (n_boosts == cap_boosts) {
		size_t cap = cap_boosts ? 2 * cap_boosts : 16;
		struct boost *grown = realloc(boosts, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		boosts = grown;
		cap_boosts = cap;
	}
	struct boost *b = &boosts[n_boosts++];
	*b = (struct boost){ .tid = tid, .base = *base, .want_level = NO_LEVEL };
	return b;
}

/* Raise a thread the library has not raised yet, if `level` is above its own. */
static void raise_new(uint32_t tid, int level)
{
	struct rts_sched_attr now = { .size = sizeof(now) };
	if (rts_backend()->get_attr(tid, &now) != 0 || level_of(&now) == NO_LEVEL ||
	    level_of(&now) >= level)
		return; /* gone, SCHED_DEADLINE, or already as high */
	struct boost *b = new_boost(tid, &now);
	if (b && apply(b, level) != 0)
		drop(b); /* ESRCH (exited) or EPERM (not allowed): no boost */
}

/* Move a raised thread to `level` (or restore it when its own level is as high). */
static void adjust(struct boost *b, int level)
{
	if (b->applied_level == level)
		return;
	struct rts_sched_attr now;
	if (changed_by_others(b, &now))
		b->base = now; /* the thread's own choice is its new base */
	if (level_of(&b->base) >= level || level_of(&b->base) == NO_LEVEL) {
		release(b);
		return;
	}
	if (apply(b, level) == -ESRCH)
		drop(b);
}

/* Note that tid should run at level at least (a boost record, or a new raise). */
static void want(uint32_t tid, int level)
{
	struct boost *b = boost_of(tid);
	if (b) {
		b->want_level = max_level(b->want_level, level);
		return;
	}
	raise_new(tid, level);
	b = boost_of(tid);
	if (b)
		b->want_level = level;
}

static void recompute(void)
{
	for (size_t i = 0; i < n_boosts; i++)
		boosts[i].want_level = NO_LEVEL;
	compute_effective_levels(); /* own levels read before this pass changes any */
	for (struct rts_loan *k = loans; k; k = k->next) {
		if (k->eff_level <= 0)
			continue;
		for (uint32_t i = 0; i < k->n_helpers; i++)
			if ((int)i != k->anchor)
				want(k->helpers[i], k->eff_level);
	}
	for (size_t i = n_boosts; i-- > 0;) {
		if (boosts[i].want_level == NO_LEVEL)
			release(&boosts[i]);
		else
			adjust(&boosts[i], boosts[i].want_level);
	}
}

void rts_donation_end(void)
{
	if (n_donating || n_boosts)
		recompute(); /* with one helper per loan the kernel does it all */
	rts_pi_unlock(&graph_lock, false);
}
