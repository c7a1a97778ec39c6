/* SPDX-License-Identifier: MIT */
/*
 * The budget controller in the ult runtime (ult/reservation_control.c):
 * what reservation.c calls to measure an adapted reservation and to run its
 * group's policy at its control periods. All under the cluster lock.
 */
#ifndef RTSCHED_INTERNAL_RESERVATION_CONTROL_H
#define RTSCHED_INTERNAL_RESERVATION_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include <rtsched/budget_controller.h>
#include <rtsched/reservation.h>

#include "internal/ult.h"

/* The most adapted reservations under one parent (the policy's arrays are on the stack). */
#define RTS_CONTROL_GROUP_MAX 32

struct rts_reservation_control_state {
	struct rts_reservation_control params;
	int64_t periods;           /* k: its periods per control period */
	int64_t periods_left;      /* until the end of the current control period */
	const rts_task_t *ran;     /* its task chosen at the last decision; NULL: none */
	uint32_t ran_jobs;         /* that task's jobs_completed then */
	int64_t used_ns;           /* its tasks' CPU time in the current control period */
	int64_t late_ns;           /* its jobs' time past their deadlines up to sampled_ns, in it */
	int64_t sampled_ns;        /* lateness is counted up to then (its last replenishment) */
	uint64_t jobs_seen;        /* its tasks' jobs_completed, summed, at the last control */
	uint64_t missed_seen;      /* ... deadline_misses */
	struct rts_budget_observation last; /* what the policy reads for it */
	int64_t period_consumed_ns; /* its stats.consumed_ns when its current period began */
	int64_t request_ns;        /* its last request (traced) */
	int64_t next_budget_ns;    /* what the policy gave it last */
};

/* Check params->control and give r its state (r not yet in its cluster's array):
 * 0, or EINVAL/ENOMEM with why set. */
int rts_ult_control_create(struct rts_reservation *r, const struct rts_reservation_params *params,
			   char *why, size_t why_len);

/* The last decision chose task (NULL: none) in level (NULL, or not adapted: nothing to do). */
void rts_ult_control_picked(struct rts_reservation *level, const rts_task_t *task);

/* dt ns of the last decision's interval went to c->active; now: the decision's time. */
void rts_ult_control_charge(struct rts_ult_cluster *c, int64_t dt, int64_t now_ns);

/* The budget r (adapted) consumed in the period that ends now: its budget may have been cut
 * within the period, so not budget_ns - remaining_ns. */
int64_t rts_ult_control_period_used_ns(const struct rts_reservation *r);

/* r (adapted) begins a period at period_start_ns after `periods` of them ended (now: the
 * decision): its tasks' lateness is sampled; at the end of a control period its group's
 * policy runs. Then r gets its next budget (traced as RESERVATION_BUDGET when it changes). */
void rts_ult_control_period(struct rts_ult_cluster *c, struct rts_reservation *r, int64_t periods,
			    int64_t period_start_ns, int64_t now_ns);

#endif
