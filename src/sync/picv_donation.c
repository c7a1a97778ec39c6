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
 * For a donor d (a waiter with a loan in the graph):
 *     eff(d)  = max(own(d), max{ eff(k.donor) : loan k lends to d })
 *     own(t)  = the remembered base level if the library raised t,
 *               else t's level as sched_getattr reports it now
 * For a thread h that some loan names at index >= 1 (not as its anchor):
 *     want(h) = max{ eff(k.donor) : h in k.helpers[1..] }
 * h runs at want(h) while want(h) > own(h). The anchor is left to the kernel:
 * the token passes it the donor's kernel priority, which by induction over
 * the graph is at least eff(donor). Boosts that the kernel's PI gives a
 * thread (PI mutexes it holds) are not seen here, so they travel only along
 * anchors.
 *
 * A thread that changes its own priority while the library has raised it:
 * the next time the library would change or restore that thread's priority,
 * it finds the priority is no longer the one it applied, takes the thread's
 * new setting as the base, and leaves it in place when the boost ends.
 *
 * Invariants (all under graph_lock):
 *  - the graph is acyclic: rts_donation_add refuses a loan that would close
 *    a cycle, and a loan's helpers do not change while it is in the graph;
 *    so eff() terminates;
 *  - a thread has at most one loan in the graph (it waits on one condvar);
 *  - a boost record exists exactly while the library has raised that thread
 *    with sched_setattr: `applied_*` is what it set, `base` what to restore.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <rtsched/mutex.h>

#include "internal/picv_donation.h"
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

static rts_mutex_t graph_lock = RTS_MUTEX_PIP_INITIALIZER;
static struct rts_loan *loans;
static unsigned n_donating; /* loans with two helpers or more */
static uint32_t epoch;      /* of the recomputation in progress */

static struct boost *boosts;
static size_t n_boosts, cap_boosts;

void rts_donation_begin(void)
{
	rts_mutex_lock(&graph_lock);
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

static bool lends_to(const struct rts_loan *l, uint32_t tid, uint32_t from_index)
{
	for (uint32_t i = from_index; i < l->n_helpers; i++)
		if (l->helpers[i] == tid)
			return true;
	return false;
}

/* Is `target` reachable from thread `from` along loans (from waits, lending to ...)? */
static bool reaches(uint32_t from, uint32_t target)
{
	if (from == target)
		return true;
	const struct rts_loan *l = loan_of(from);
	if (!l)
		return false;
	for (uint32_t i = 0; i < l->n_helpers; i++)
		if (reaches(l->helpers[i], target))
			return true;
	return false;
}

static int self_level(void)
{
	struct rts_sched_attr attr = { .size = sizeof(attr) };
	return rts_sched_getattr(0, &attr) == 0 ? level_of(&attr) : 0;
}

int rts_donation_add(struct rts_loan *loan)
{
	for (uint32_t i = 0; i < loan->n_helpers; i++)
		if (reaches(loan->helpers[i], loan->donor))
			return EDEADLK;
	if (loan->n_helpers >= 2 && self_level() == NO_LEVEL)
		return ENOTSUP; /* a deadline cannot be lent with sched_setattr */
	loan->next = loans;
	loans = loan;
	loan->in_graph = true;
	loan->eff_epoch = 0;
	if (loan->n_helpers >= 2)
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
	if (loan->n_helpers >= 2)
		n_donating--;
}

static struct boost *boost_of(uint32_t tid)
{
	for (size_t i = 0; i < n_boosts; i++)
		if (boosts[i].tid == tid)
			return &boosts[i];
	return NULL;
}

static int own_level(uint32_t tid)
{
	struct boost *b = boost_of(tid);
	if (b)
		return level_of(&b->base);
	struct rts_sched_attr attr = { .size = sizeof(attr) };
	return rts_sched_getattr((pid_t)tid, &attr) == 0 ? level_of(&attr) : NO_LEVEL;
}

static int max_level(int a, int b)
{
	return a > b ? a : b;
}

/* eff(loan->donor), computed once per recomputation. */
static int eff_level(struct rts_loan *loan)
{
	if (loan->eff_epoch == epoch)
		return loan->eff_prio;
	int level = own_level(loan->donor);
	for (struct rts_loan *k = loans; k; k = k->next)
		if (lends_to(k, loan->donor, 0))
			level = max_level(level, eff_level(k));
	loan->eff_prio = level;
	loan->eff_epoch = epoch;
	return level;
}

/* Did somebody else change the thread's priority since the library applied its own? */
static bool changed_by_others(const struct boost *b, struct rts_sched_attr *now)
{
	now->size = sizeof(*now);
	if (rts_sched_getattr((pid_t)b->tid, now) != 0)
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
		rts_sched_setattr((pid_t)b->tid, &base); /* ESRCH: the thread has exited */
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
	int ret = rts_sched_setattr((pid_t)b->tid, &attr);
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
	if (rts_sched_getattr((pid_t)tid, &now) != 0 || level_of(&now) == NO_LEVEL ||
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
	if (++epoch == 0)
		epoch = 1; /* 0 marks a loan never computed */
	for (size_t i = 0; i < n_boosts; i++)
		boosts[i].want_level = NO_LEVEL;
	/* own levels are read before any boost of this pass changes them */
	for (struct rts_loan *k = loans; k; k = k->next)
		eff_level(k);
	for (struct rts_loan *k = loans; k; k = k->next) {
		if (k->n_helpers < 2 || k->eff_prio <= 0)
			continue;
		for (uint32_t i = 1; i < k->n_helpers; i++)
			want(k->helpers[i], k->eff_prio);
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
	rts_mutex_unlock(&graph_lock);
}
