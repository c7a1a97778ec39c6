/* SPDX-License-Identifier: MIT */
/*
 * A sporadic reservation's budget in the ult runtime (ult/sporadic_reservation.c;
 * docs/reservations.md, "Sporadic servers"): the rules of the simulator's
 * sporadic server (python/rtsched/sim/sporadic_server.py) on a list of refills,
 * driven by the cluster's decisions (ult/reservation.c). All under the
 * cluster lock.
 */
#ifndef RTSCHED_INTERNAL_SPORADIC_RESERVATION_H
#define RTSCHED_INTERNAL_SPORADIC_RESERVATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/ult.h"

/* Pending refills kept apart; one more merges into the last (only ever deferring budget). */
#define RTS_SPORADIC_MAX_REFILLS 64

struct rts_sporadic_refill {
	int64_t at_ns;     /* eligible from then on (CLOCK_MONOTONIC) */
	int64_t amount_ns; /* > 0 */
};

struct rts_sporadic_state {
	/* Sorted by at_ns, distinct times, amounts summing to the budget. */
	struct rts_sporadic_refill refills[RTS_SPORADIC_MAX_REFILLS];
	size_t n_refills;
	bool active;              /* a task inside is ready or running */
	int64_t activation_ns;    /* when it last became active (valid while active) */
	int64_t running_since_ns; /* the decision that entered it; -1: not running */
	int64_t seen_ns;          /* the eligible budget at the end of the last decision */
	bool started;             /* its first REPLENISH (t0, the whole budget) is traced */
};

/* Give a sporadic reservation its state (the whole budget eligible): 0 or ENOMEM. */
int rts_ult_sporadic_create(struct rts_reservation *r);

/* Charge `used` ns (the CPU time its tasks got, at most now_ns less the decision that
 * entered it) for the run since that decision (nothing if it was not running); a run
 * that empties its eligible budget records RESERVATION_DEPLETE. */
void rts_ult_sporadic_stop(struct rts_reservation *r, int64_t used, int64_t now_ns);

/* At a decision after t0 (t0_ns > 0): activate or deactivate it as `backlogged` says, trace
 * the budget that came back since the last decision, and set r->remaining_ns to the eligible
 * budget (what the walk and the depletion timer read). */
void rts_ult_sporadic_update(struct rts_reservation *r, bool backlogged, int64_t t0_ns, int64_t now_ns);

/* The walk entered it: it runs from now_ns. */
void rts_ult_sporadic_start(struct rts_reservation *r, int64_t now_ns);

/* The first refill time after after_ns (a decision: the budget comes back then); INT64_MAX: none.
 * Before t0: t0_ns (its first replenishment). */
int64_t rts_ult_sporadic_next_ns(const struct rts_reservation *r, int64_t t0_ns, int64_t after_ns);

#endif
