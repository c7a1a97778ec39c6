/* SPDX-License-Identifier: MIT */
/*
 * The budget controller of soft reservations (docs/reservations.md, "The
 * budget controller"; seed 000 §III-A, §IV-H): one function that, at the end
 * of a control period, sets the next budgets of the soft reservations that
 * share a parent from what was observed in each.
 *
 *     struct rts_budget_observation obs[2] = {...};   // one per soft sibling, in the order made
 *     int64_t next_ns[2];
 *     rts_budget_control(obs, 2, capacity_ppb, next_ns);
 *
 * It is python/rtsched/model/budget_control.py's control_budgets, in integers
 * (tests/python/test_budget_control.py runs both on one table). A reservation
 * given another function of this type (rts_reservation_params.control.policy)
 * has its group's budgets set by it instead.
 *
 * The default policy, per reservation (period P, budget B, k periods per
 * control period):
 *   request = ceil(used * (100 + h) / (100 * k)) + ceil(late * B / (P * k)),
 * clamped to [min, max] (its tasks' CPU time per period with a headroom of h
 * percent, plus the time its jobs spent past their deadlines as CPU time at
 * its bandwidth, per period). Then every
 * one gets its min budget, and the rest of capacity_ppb goes to the requests,
 * larger importance first (ties: the order given), each grant rounded down to
 * what the bandwidth left offers and charged rounded up: the budgets never
 * take more than capacity_ppb (parts per billion of one CPU).
 */
#ifndef RTSCHED_BUDGET_CONTROLLER_H
#define RTSCHED_BUDGET_CONTROLLER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTS_BUDGET_PPB INT64_C(1000000000) /* bandwidth unit: parts per billion of one CPU */

/* One soft reservation over the control period that just ended. */
struct rts_budget_observation {
	int64_t period_ns;     /* its period */
	int64_t budget_ns;     /* its budget during the control period */
	int64_t periods;       /* its periods in the control period, >= 1 */
	int64_t used_ns;       /* CPU time its tasks ran (not budget idled away) */
	int64_t jobs;          /* jobs of its tasks completed */
	int64_t missed;        /* of those, completed after their deadline */
	int64_t late_ns;       /* time its jobs spent past their deadlines in the control period */
	int64_t importance;    /* larger: served first in overload */
	int64_t min_budget_ns; /* 0 < min <= max <= period */
	int64_t max_budget_ns;
	int64_t headroom_percent; /* 0..1000 */
};

/*
 * A controller: the observations of the n soft reservations of one parent
 * (in the order they were made) and the bandwidth they share -> their next
 * budgets, budgets_ns[i] for obs[i]. Called under the CPU's scheduler lock
 * at a decision: no blocking, no allocation.
 */
typedef void (*rts_budget_policy_fn)(const struct rts_budget_observation *obs, size_t n,
				     int64_t capacity_ppb, int64_t *budgets_ns);

/* The default policy (above). */
void rts_budget_control(const struct rts_budget_observation *obs, size_t n, int64_t capacity_ppb,
			int64_t *budgets_ns);

/* Its first step: the budget one reservation asks for. */
int64_t rts_budget_request_ns(const struct rts_budget_observation *obs);

#ifdef __cplusplus
}
#endif

#endif
