/* SPDX-License-Identifier: MIT */
/*
 * The budget controller in the ult runtime (docs/reservations.md, "The
 * budget controller"): measuring an adapted reservation (a soft periodic
 * leaf with control.period_ns > 0) and running its group's policy at the
 * end of each of its control periods, under its cluster's lock, at the
 * decision that replenishes it.
 *
 * What is measured, per control period [start, now):
 *  - used_ns: the intervals between decisions in which one of its tasks was
 *    the one chosen (not its budget idling away);
 *  - jobs, missed: the growth of its tasks' jobs_completed and
 *    deadline_misses (kept by the task code, read here on the worker that
 *    runs the tasks: the cluster has one CPU, so none of them is running);
 *  - late_ns: the time its jobs spent past their deadlines, sampled: at
 *    each of its replenishments, for each task in a job past its deadline,
 *    the time since the later of that deadline and the previous sample; and
 *    for a job that completed late in an interval (its task was chosen,
 *    jobs_completed moved, it is out of its job and past its deadline), the
 *    time from the later of its deadline and the last sample to the
 *    decision that follows. The simulator takes each job's exact completion;
 *    here a late completion is seen at the next decision (the worker decides
 *    right after it, unless the task's next job is already due: then up to
 *    one period of that job's lateness goes uncounted).
 *
 * Invariant: the members of a group are the adapted reservations with the
 * same parent in the cluster's array (at most RTS_CONTROL_GROUP_MAX, checked
 * when made), and the policy's budgets are applied so that no member's
 * budget ever exceeds both its old and its new one: a decrease at once, an
 * increase at the member's next replenishment (rts_ult_control_period).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal/reservation_control.h"
#include "internal/task.h"

#include <rtsched/trace.h>

static bool adapted_sibling(const struct rts_reservation *a, const struct rts_reservation *b)
{
	return a->control && a->parent == b->parent;
}

int rts_ult_control_create(struct rts_reservation *r, const struct rts_reservation_params *p,
			   char *why, size_t why_len)
{
	const struct rts_reservation_control *ctl = &p->control;
	if (ctl->period_ns == 0)
		return 0;
	if (p->kind != RTS_RESERVATION_PERIODIC) {
		snprintf(why, why_len, "a budget controller adapts periodic reservations, not a %s",
			 p->kind == RTS_RESERVATION_SPORADIC ? "sporadic server" : "CBS");
		return EINVAL;
	}
	if (ctl->period_ns < 0 || ctl->period_ns % p->period_ns) {
		snprintf(why, why_len, "control period %lld ns is not a whole number of its periods (%lld ns)",
			 (long long)ctl->period_ns, (long long)p->period_ns);
		return EINVAL;
	}
	if (ctl->min_budget_ns <= 0 || ctl->min_budget_ns > p->budget_ns || p->budget_ns > ctl->max_budget_ns ||
	    ctl->max_budget_ns > p->period_ns) {
		snprintf(why, why_len, "needs 0 < min_budget (%lld ns) <= budget (%lld ns) <= max_budget "
			 "(%lld ns) <= period (%lld ns)", (long long)ctl->min_budget_ns, (long long)p->budget_ns,
			 (long long)ctl->max_budget_ns, (long long)p->period_ns);
		return EINVAL;
	}
	if (ctl->headroom_percent < 0 || ctl->headroom_percent > 1000) {
		snprintf(why, why_len, "headroom %d%%: give 0..1000", ctl->headroom_percent);
		return EINVAL;
	}
	if (ctl->importance < 1) {
		snprintf(why, why_len, "importance %d: give 1 or more", ctl->importance);
		return EINVAL;
	}
	int siblings = 0;
	for (size_t i = 0; i < r->cluster->n_reservations; i++)
		siblings += adapted_sibling(r->cluster->reservations[i], r);
	if (siblings >= RTS_CONTROL_GROUP_MAX) {
		snprintf(why, why_len, "more than %d adapted reservations in one parent", RTS_CONTROL_GROUP_MAX);
		return EINVAL;
	}
	struct rts_reservation_control_state *st = calloc(1, sizeof(*st));
	if (!st) {
		snprintf(why, why_len, "out of memory");
		return ENOMEM;
	}
	st->params = *ctl;
	st->periods = st->periods_left = ctl->period_ns / p->period_ns;
	st->request_ns = st->next_budget_ns = p->budget_ns;
	/* not yet observed: it asks for its first budget */
	st->last = (struct rts_budget_observation){
		.period_ns = p->period_ns, .budget_ns = p->budget_ns, .periods = 1,
		.used_ns = p->budget_ns, .importance = ctl->importance,
		.min_budget_ns = ctl->min_budget_ns, .max_budget_ns = ctl->max_budget_ns,
	};
	r->control = st;
	return 0;
}

void rts_ult_control_charge(struct rts_ult_cluster *c, int64_t dt, int64_t now_ns)
{
	struct rts_reservation *r = c->active;
	if (!r || !r->control || !r->control->ran)
		return;
	struct rts_reservation_control_state *st = r->control;
	const rts_task_t *t = st->ran;
	st->ran = NULL;
	st->used_ns += dt;
	if (t->stats.jobs_completed != st->ran_jobs && !t->in_job && t->job.deadline_ns < now_ns)
		st->late_ns += now_ns - (t->job.deadline_ns > st->sampled_ns ? t->job.deadline_ns : st->sampled_ns);
}

void rts_ult_control_picked(struct rts_reservation *level, const rts_task_t *task)
{
	if (!level || !level->control)
		return;
	level->control->ran = task;
	level->control->ran_jobs = task ? task->stats.jobs_completed : 0;
}

/* Its tasks' lateness up to now (the jobs they are in); their completed and missed jobs so far. */
static void sample(struct rts_ult_cluster *c, struct rts_reservation *r, int64_t now_ns, uint64_t *jobs,
		   uint64_t *missed)
{
	struct rts_reservation_control_state *st = r->control;
	const struct rts_ult_runtime *rt = c->runtime;
	for (size_t i = 0; i < rt->n_ults; i++) {
		const struct rts_ult *u = rt->ults[i];
		if (u->reservation != r || !u->task)
			continue;
		const rts_task_t *t = u->task;
		*jobs += t->stats.jobs_completed;
		*missed += t->stats.deadline_misses;
		if (t->in_job && t->job.deadline_ns < now_ns)
			st->late_ns += now_ns - (t->job.deadline_ns > st->sampled_ns ? t->job.deadline_ns
										 : st->sampled_ns);
	}
	st->sampled_ns = now_ns;
}

/* The control period that ends now, from the counts sample() gave; the next one starts. */
static void observe(struct rts_reservation *r, uint64_t jobs, uint64_t missed)
{
	struct rts_reservation_control_state *st = r->control;
	int64_t late = st->late_ns;
	st->last = (struct rts_budget_observation){
		.period_ns = r->period_ns, .budget_ns = r->budget_ns, .periods = st->periods,
		.used_ns = st->used_ns,
		.jobs = (int64_t)(jobs - st->jobs_seen), .missed = (int64_t)(missed - st->missed_seen),
		.late_ns = late, .importance = st->params.importance,
		.min_budget_ns = st->params.min_budget_ns, .max_budget_ns = st->params.max_budget_ns,
		.headroom_percent = st->params.headroom_percent,
	};
	st->jobs_seen = jobs;
	st->missed_seen = missed;
	st->used_ns = st->late_ns = 0;
}

static int64_t ppb_ceil(int64_t budget_ns, int64_t period_ns)
{
	return (int64_t)(((__int128)budget_ns * RTS_BUDGET_PPB + period_ns - 1) / period_ns);
}

/* What the adapted children of r's parent share: the parent's bandwidth (a CPU at the
 * top), rounded down, less that of its other children, rounded up. */
static int64_t capacity_ppb(const struct rts_ult_cluster *c, const struct rts_reservation *r)
{
	const struct rts_reservation *parent = r->parent;
	int64_t capacity = parent ? (int64_t)((__int128)parent->budget_ns * RTS_BUDGET_PPB / parent->period_ns)
				  : RTS_BUDGET_PPB;
	for (size_t i = 0; i < c->n_reservations; i++) {
		const struct rts_reservation *s = c->reservations[i];
		if (s->parent == parent && !s->control)
			capacity -= ppb_ceil(s->budget_ns, s->period_ns);
	}
	return capacity;
}

static void set_budget(struct rts_reservation *r, int64_t budget_ns, int64_t at_ns)
{
	if (budget_ns == r->budget_ns)
		return;
	r->budget_ns = budget_ns;
	r->stats.budget_changes++;
	if (r->stream)
		rts_trace_event_at(r->stream, at_ns, RTS_EV_RESERVATION_BUDGET, r->stats.replenishments,
				   r->control->request_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)r->control->request_ns,
				   budget_ns);
}

/* The policy for r's group; r's own budget is applied by the caller. */
static void control_group(struct rts_ult_cluster *c, struct rts_reservation *r, int64_t now_ns)
{
	struct rts_reservation *members[RTS_CONTROL_GROUP_MAX];
	struct rts_budget_observation obs[RTS_CONTROL_GROUP_MAX];
	int64_t budgets[RTS_CONTROL_GROUP_MAX];
	size_t n = 0;
	for (size_t i = 0; i < c->n_reservations && n < RTS_CONTROL_GROUP_MAX; i++) {
		struct rts_reservation *m = c->reservations[i];
		if (adapted_sibling(m, r)) {
			members[n] = m;
			obs[n++] = m->control->last;
		}
	}
	rts_budget_policy_fn policy = r->control->params.policy ? r->control->params.policy : rts_budget_control;
	policy(obs, n, capacity_ppb(c, r), budgets);
	for (size_t i = 0; i < n; i++) {
		struct rts_reservation *m = members[i];
		m->control->request_ns = rts_budget_request_ns(&obs[i]);
		m->control->next_budget_ns = budgets[i];
		if (m != r && budgets[i] < m->budget_ns) { /* a decrease applies at once */
			if (m->remaining_ns > budgets[i])
				m->remaining_ns = budgets[i];
			set_budget(m, budgets[i], now_ns);
		}
	}
}

int64_t rts_ult_control_period_used_ns(const struct rts_reservation *r)
{
	return r->stats.consumed_ns - r->control->period_consumed_ns;
}

void rts_ult_control_period(struct rts_ult_cluster *c, struct rts_reservation *r, int64_t periods,
			    int64_t period_start_ns, int64_t now_ns)
{
	struct rts_reservation_control_state *st = r->control;
	int64_t began = rts_monotonic_now_ns();
	uint64_t jobs = 0, missed = 0;
	sample(c, r, now_ns, &jobs, &missed);
	st->periods_left -= periods;
	if (st->periods_left <= 0) {
		st->periods_left = st->periods;
		observe(r, jobs, missed);
		control_group(c, r, now_ns);
		c->overhead.controls++;
	}
	st->period_consumed_ns = r->stats.consumed_ns;
	c->overhead.control_ns += rts_monotonic_now_ns() - began; /* the sampling is the controller's too */
	set_budget(r, st->next_budget_ns, period_start_ns);
}
