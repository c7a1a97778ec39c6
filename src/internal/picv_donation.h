/* SPDX-License-Identifier: MIT */
/*
 * The PI-CV donation graph (docs/picv-design.md, "Several helpers"): what
 * picv.c tells picv_donation.c about its waiters.
 *
 * Every PI-CV waiter that lends to at least one helper has a loan in the
 * graph: its TID and a snapshot of its condvar's helpers. One helper, the
 * first whose chain of anchors does not lead back to the waiter, is its
 * anchor: the waiter blocks with FUTEX_LOCK_PI on a token holding the
 * anchor's TID, so the kernel boosts the anchor (and whatever it blocks on)
 * and tells the waiter when the anchor exits. Every other helper is boosted
 * by the library with sched_setattr to the donor's effective priority, which
 * the library computes over the graph (transitivity through PI-CVs).
 *
 * Usage, always under the waiter's condvar lock (lock order: condvar lock,
 * then the graph lock):
 *     rts_donation_begin();
 *     rts_donation_remove(loan); ... err = rts_donation_add(loan); ...
 *     rts_donation_end();   // applies the boosts the graph now calls for
 */
#ifndef RTS_INTERNAL_PICV_DONATION_H
#define RTS_INTERNAL_PICV_DONATION_H

#include <stdbool.h>
#include <stdint.h>

#include <rtsched/cond.h>

struct rts_loan {
	struct rts_loan *next; /* in the graph; under the graph lock */
	bool in_graph;         /* under the graph lock */
	uint32_t donor;        /* the waiter's TID */
	bool timed;            /* a timed wait, which ends by itself: never part of a deadlock */
	bool avoid_anchor;     /* lend to every helper with sched_setattr (the kernel said EDEADLK) */
	uint32_t n_helpers;    /* >= 1 while in the graph */
	uint32_t helpers[RTS_COND_MAX_HELPERS];
	int anchor;            /* index in helpers, -1: none (every helper by sched_setattr) */
	int donor_level;       /* the donor's level as read once, or RTS_LEVEL_UNREAD; graph lock */
	int eff_level;         /* scratch for one recomputation */
	uint32_t visit_epoch;  /* scratch for one graph walk */
};

/* loan.donor_level before the graph has read it (a waiter's level changes only by others while it waits). */
#define RTS_LEVEL_UNREAD (-2)

/* The TID the waiter's token must hold (0: it lends to no anchor and sleeps on its state). */
static inline uint32_t rts_loan_anchor(const struct rts_loan *loan)
{
	return loan->anchor >= 0 ? loan->helpers[loan->anchor] : 0;
}

/* Take the graph lock. */
void rts_donation_begin(void);
/*
 * Put the loan into the graph (it must not be in it) and choose its anchor.
 * EDEADLK when no helper leads to a thread that runs (every helper waits,
 * directly or through other PI-CVs, for the donor: a deadlock); ENOTSUP when
 * a SCHED_DEADLINE donor would lend through sched_setattr (several helpers).
 * Either way it stays out.
 */
int rts_donation_add(struct rts_loan *loan);
/* Take the loan out of the graph (nothing if it is not in it). */
void rts_donation_remove(struct rts_loan *loan);
/* Apply the boosts the graph now calls for (and restore the others); release the lock. */
void rts_donation_end(void);

#endif
