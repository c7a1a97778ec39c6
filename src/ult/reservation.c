/* SPDX-License-Identifier: MIT */
/*
 * Reservations in the ult backend's scheduler (docs/reservations.md; seed
 * 000's periodic servers): making them, and the decision of a one-CPU
 * cluster that has them.
 *
 * The decision, under the cluster lock, at every pass of the scheduler:
 *  1. charge: the time since the last decision goes off the budget of the
 *     reservation that was active then and of all its ancestors (whether a
 *     child ran or the CPU idled in it: a periodic server's budget idles
 *     away);
 *  2. replenish: a reservation whose period has ended gets its whole budget
 *     back and its next period (missed periods are skipped, not owed);
 *  3. walk down from the top: at each level the first of (a) the ready ULTs
 *     attached there and (b) the child reservations with budget left, in
 *     that level's order (FP: 100 - priority; EDF: a ULT's job deadline, a
 *     reservation's period end), ties to ULTs, then to the reservation made
 *     first. A ULT ends the walk: it runs. A reservation: go down into it.
 *     A level with nothing left idles: it is the active reservation, and
 *     the CPU idles while its budget (and its ancestors') runs down.
 * The cluster's timer is armed (worker.c) at the earliest of the next
 * release, the next replenishment and the active path's depletion
 * (rts_ult_reservations_next_ns), so every one of these is a decision.
 *
 * A CBS (cbs_update) and a sporadic server (sporadic_update,
 * ult/sporadic_reservation.c) have their own budget rules, applied at the
 * decisions; both compete only while a task inside is ready.
 *
 * A ULT before its first release (key INT64_MIN: it only goes to sleep
 * until its release) runs outside every reservation and is not charged.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/backend.h"
#include "internal/export.h"
#include "internal/kernel_reservation.h"
#include "internal/reservation_control.h"
#include "internal/sporadic_reservation.h"
#include "internal/task.h"
#include "internal/ult.h"

#include <rtsched/trace.h>

#define FP_KEY(priority) (100 - (int64_t)(priority))

/* ---- making them ---------------------------------------------------------- */

static bool orders_by_priority(const struct rts_ult_runtime *rt, const struct rts_reservation *parent)
{
	return parent ? parent->order == RTS_RESERVATION_FP : rt->spec.policy == RTS_ULT_FP;
}

static bool is_cbs(enum rts_reservation_kind kind)
{
	return kind == RTS_RESERVATION_CBS || kind == RTS_RESERVATION_HARD_CBS;
}

static int check_params(rts_taskset_t *set, const struct rts_reservation_params *p,
			const struct rts_reservation *parent)
{
	const char *name = p->name && p->name[0] ? p->name : "(unnamed)";
	if (!set->backend || strcmp(set->backend->name, "ult") != 0) {
		rts_taskset_set_error(set, "reservation %s: reservations are scheduled by the ult "
				      "backend: choose it first (\"ult:pfp\" or \"ult:pedf\")", name);
		return EINVAL;
	}
	if (atomic_load(&set->released)) {
		rts_taskset_set_error(set, "reservation %s: made after the set's release", name);
		return EBUSY;
	}
	if (p->period_ns <= 0 || p->budget_ns <= 0 || p->budget_ns > p->period_ns) {
		rts_taskset_set_error(set, "reservation %s: needs 0 < budget (%lld ns) <= period (%lld ns)",
				      name, (long long)p->budget_ns, (long long)p->period_ns);
		return EINVAL;
	}
	if (p->kind != RTS_RESERVATION_PERIODIC && !is_cbs(p->kind) &&
	    p->kind != RTS_RESERVATION_SPORADIC) {
		rts_taskset_set_error(set, "reservation %s: unknown kind %d", name, (int)p->kind);
		return EINVAL;
	}
	if (is_cbs(p->kind) &&
	    orders_by_priority(set->backend_state, parent)) {
		rts_taskset_set_error(set, "reservation %s: a CBS competes by its deadline: put it "
				      "in an EDF parent or at the top of an \"ult:pedf\" CPU", name);
		return EINVAL;
	}
	if (p->kind == RTS_RESERVATION_SPORADIC &&
	    !orders_by_priority(set->backend_state, parent)) {
		rts_taskset_set_error(set, "reservation %s: a sporadic server competes by its "
				      "priority: put it in an FP parent or at the top of an \"ult:pfp\" CPU",
				      name);
		return EINVAL;
	}
	if (parent && parent->kind != RTS_RESERVATION_PERIODIC) {
		rts_taskset_set_error(set, "reservation %s: parent %s is a %s, which holds tasks only",
				      name, parent->name,
				      is_cbs(parent->kind) ? "CBS" : "sporadic server");
		return EINVAL;
	}
	if (p->order != RTS_RESERVATION_FP && p->order != RTS_RESERVATION_EDF) {
		rts_taskset_set_error(set, "reservation %s: unknown order %d", name, (int)p->order);
		return EINVAL;
	}
	struct rts_ult_runtime *rt = set->backend_state;
	if (orders_by_priority(rt, parent) && (p->priority < 1 || p->priority > 99)) {
		rts_taskset_set_error(set, "reservation %s: its %s orders by priority: give it a "
				      "priority in 1..99, not %d", name, parent ? "parent" : "CPU's scheduler",
				      p->priority);
		return EINVAL;
	}
	if (!parent)
		return 0;
	if (parent->cluster->runtime != rt) {
		rts_taskset_set_error(set, "reservation %s: its parent belongs to another task set", name);
		return EINVAL;
	}
	if (parent->control) {
		rts_taskset_set_error(set, "reservation %s: parent %s has a budget controller, which "
				      "adapts reservations that hold tasks", name, parent->name);
		return EINVAL;
	}
	if (parent->n_tasks) {
		rts_taskset_set_error(set, "reservation %s: parent %s holds tasks; tasks and "
				      "reservations do not share a parent", name, parent->name);
		return EINVAL;
	}
	/* budget / period <= the parent's, exactly (both products fit: < 2^126) */
	if ((__int128)p->budget_ns * parent->period_ns > (__int128)parent->budget_ns * p->period_ns) {
		rts_taskset_set_error(set, "reservation %s: its bandwidth %lld/%lld ns is above its "
				      "parent %s's %lld/%lld", name, (long long)p->budget_ns,
				      (long long)p->period_ns, parent->name,
				      (long long)parent->budget_ns, (long long)parent->period_ns);
		return EINVAL;
	}
	return 0;
}

static int cluster_for(rts_taskset_t *set, const struct rts_reservation_params *p,
		       const struct rts_reservation *parent, struct rts_ult_cluster **out)
{
	struct rts_ult_runtime *rt = set->backend_state;
	if (parent) {
		*out = parent->cluster;
		return 0;
	}
	int k = rts_ult_runtime_cluster_of_cpu(rt, p->cpu);
	if (k < 0) {
		rts_taskset_set_error(set, "reservation %s: CPU %d is not one of the backend's",
				      p->name ? p->name : "(unnamed)", p->cpu);
		return EINVAL;
	}
	if (rt->clusters[k].n_workers != 1) {
		rts_taskset_set_error(set, "reservation %s: a reservation tree runs on one CPU; this "
				      "form has clusters of %d (use \"ult:pfp\" or \"ult:pedf\")",
				      p->name ? p->name : "(unnamed)", rt->clusters[k].n_workers);
		return EINVAL;
	}
	*out = &rt->clusters[k];
	return 0;
}

static int append(struct rts_ult_cluster *c, struct rts_reservation *r)
{
	if (c->n_reservations == c->reservations_capacity) {
		size_t capacity = c->reservations_capacity ? 2 * c->reservations_capacity : 8;
		struct rts_reservation **all = realloc(c->reservations, capacity * sizeof(*all));
		if (!all)
			return ENOMEM;
		c->reservations = all;
		c->reservations_capacity = capacity;
	}
	r->index = (uint32_t)c->n_reservations;
	c->reservations[c->n_reservations++] = r;
	return 0;
}

RTS_EXPORT int rts_reservation_create(rts_taskset_t *set, const struct rts_reservation_params *params,
				      rts_reservation_t *parent, rts_reservation_t **reservation)
{
	if (!set || !params || !reservation)
		return EINVAL;
	int err = check_params(set, params, parent);
	struct rts_ult_cluster *c = NULL;
	if (!err)
		err = cluster_for(set, params, parent, &c);
	if (!err)
		err = rts_ult_kernel_reservation_admit(set, params, parent, c);
	if (err)
		return err;
	struct rts_reservation *r = calloc(1, sizeof(*r));
	if (!r)
		return ENOMEM;
	snprintf(r->name, sizeof(r->name), "%s", params->name ? params->name : "");
	r->cluster = c;
	r->parent = parent;
	r->period_ns = params->period_ns;
	r->budget_ns = params->budget_ns;
	r->order = params->order;
	r->kind = params->kind;
	r->priority = params->priority;
	r->by_kernel = params->enforcement == RTS_RESERVATION_BY_KERNEL;
	if (r->by_kernel && params->cpuset && !(r->cpuset = strdup(params->cpuset))) {
		free(r);
		return ENOMEM;
	}
	char why[160];
	err = rts_ult_control_create(r, params, why, sizeof(why));
	if (err) {
		rts_taskset_set_error(set, "reservation %s: %s", r->name, why);
		free(r->cpuset);
		free(r);
		return err;
	}
	if (r->kind == RTS_RESERVATION_SPORADIC && rts_ult_sporadic_create(r)) {
		free(r);
		return ENOMEM;
	}
	if (set->trace) { /* its own stream: task_id -1, its name (docs/trace-format.md) */
		err = rts_trace_stream_add(set->trace, -1, r->name, r->period_ns, r->period_ns,
					   &r->stream);
		if (err) {
			free(r->sporadic);
			free(r->control);
			free(r->cpuset);
			free(r);
			return err;
		}
	}
	pthread_mutex_lock(&c->lock);
	err = append(c, r);
	if (!err && r->by_kernel)
		c->kernel_reservation = r;
	pthread_mutex_unlock(&c->lock);
	if (err) {
		free(r->sporadic);
		free(r->control);
		free(r->cpuset);
		free(r);
		return err;
	}
	if (parent)
		parent->n_children++;
	*reservation = r;
	return 0;
}

RTS_EXPORT int rts_reservation_stats(const rts_reservation_t *reservation,
				     struct rts_reservation_stats *stats)
{
	if (!reservation || !stats)
		return EINVAL;
	pthread_mutex_lock(&reservation->cluster->lock);
	*stats = reservation->stats;
	stats->budget_ns = reservation->budget_ns;
	pthread_mutex_unlock(&reservation->cluster->lock);
	return 0;
}

RTS_EXPORT int rts_reservation_overhead(const rts_reservation_t *reservation,
					struct rts_reservation_overhead *overhead)
{
	if (!reservation || !overhead)
		return EINVAL;
	pthread_mutex_lock(&reservation->cluster->lock);
	*overhead = reservation->cluster->overhead;
	pthread_mutex_unlock(&reservation->cluster->lock);
	return 0;
}

int rts_ult_reservation_check(const struct rts_ult_runtime *rt, int cluster, const rts_task_t *task,
			      char *why, size_t why_len)
{
	const struct rts_reservation *r = task->params.reservation;
	if (r->cluster->runtime != rt || r->cluster != &rt->clusters[cluster]) {
		snprintf(why, why_len, "task %s: reservation %s is not on the task's CPU", task->name,
			 r->name);
		return EINVAL;
	}
	if (r->n_children) {
		snprintf(why, why_len, "task %s: reservation %s holds reservations: attach tasks to "
			 "a leaf", task->name, r->name);
		return EINVAL;
	}
	if (r->order == RTS_RESERVATION_FP && task->params.policy != RTS_POLICY_FIFO) {
		snprintf(why, why_len, "task %s: reservation %s orders by priority: give the task "
			 "policy fifo and a priority in 1..99", task->name, r->name);
		return EINVAL;
	}
	return 0;
}

void rts_ult_reservations_free(struct rts_ult_cluster *c)
{
	for (size_t i = 0; i < c->n_reservations; i++) {
		free(c->reservations[i]->sporadic);
		free(c->reservations[i]->control);
		free(c->reservations[i]->cpuset);
		free(c->reservations[i]);
	}
	free(c->reservations);
	c->reservations = NULL;
	c->n_reservations = c->reservations_capacity = 0;
}

/* ---- the decision --------------------------------------------------------- */

/*
 * What the decision at now_ns (cpu_now_ns on the worker's clock) charges the
 * active reservations: if the last decision chose a ULT, the worker's CPU
 * time since (rts_ult_run_clock_ns:
 * a budget pays for what its tasks ran, not for the time the kernel gave
 * the worker's CPU to others, nor, under a kernel-enforced reservation, for
 * its throttling), at most the wall time; if it idled, the wall time (the
 * budget idles away, as a periodic server's does). The cluster has one CPU,
 * so one worker, the caller, makes every decision.
 */
static int64_t charged_ns(const struct rts_ult_cluster *c, int64_t now_ns, int64_t cpu_now_ns)
{
	int64_t wall_ns = now_ns - c->active_since_ns;
	if (!c->active_runs)
		return wall_ns;
	int64_t cpu_ns = cpu_now_ns - c->active_since_cpu_ns;
	return cpu_ns < wall_ns ? cpu_ns : wall_ns;
}

static void charge(struct rts_ult_cluster *c, int64_t now_ns, int64_t cpu_now_ns)
{
	int64_t used = charged_ns(c, now_ns, cpu_now_ns);
	for (struct rts_reservation *r = c->active; r; r = r->parent)
		if (r->sporadic) /* charged only for what a task inside ran */
			rts_ult_sporadic_stop(r, used, now_ns);
	if (used <= 0)
		return;
	rts_ult_control_charge(c, used, now_ns);
	for (struct rts_reservation *r = c->active; r; r = r->parent) {
		if (r->sporadic)
			continue;
		r->stats.consumed_ns += used;
		if (r->by_kernel)
			continue; /* its budget is the kernel's */
		if (r->remaining_ns > used) {
			r->remaining_ns -= used;
		} else if (r->remaining_ns > 0) {
			if (r->stream) /* it reached zero remaining_ns after the last decision */
				rts_trace_event_at(r->stream, c->active_since_ns + r->remaining_ns,
						   RTS_EV_RESERVATION_DEPLETE,
						   r->stats.replenishments, 0, r->budget_ns);
			r->remaining_ns = 0;
			r->stats.depletions++;
		}
	}
}

static void replenish(struct rts_ult_cluster *c, int64_t now_ns)
{
	int64_t t0 = atomic_load(c->runtime->t0_ns);
	for (size_t i = 0; i < c->n_reservations; i++) {
		struct rts_reservation *r = c->reservations[i];
		if (r->kind != RTS_RESERVATION_PERIODIC || r->by_kernel)
			continue; /* cbs_update(), sporadic_update(); the kernel's CBS */
		bool first = !r->period_end_ns;
		if (first) {
			if (!t0 || now_ns < t0)
				continue;
			r->period_end_ns = t0; /* its first period begins at the set's release */
		}
		if (r->period_end_ns > now_ns)
			continue;
		int64_t behind = (now_ns - r->period_end_ns) / r->period_ns; /* whole periods missed */
		int64_t used = first ? 0
			       : r->control ? rts_ult_control_period_used_ns(r) /* its budget may have been cut */
					    : r->budget_ns - r->remaining_ns;
		r->period_end_ns += (behind + 1) * r->period_ns;
		if (r->control && !first)
			rts_ult_control_period(c, r, behind + 1, r->period_end_ns - r->period_ns, now_ns);
		r->remaining_ns = r->budget_ns;
		r->stats.replenishments++;
		if (r->stream) /* at the period's nominal start; job: its number, 1 at t0 */
			rts_trace_event_at(r->stream, r->period_end_ns - r->period_ns,
					   RTS_EV_RESERVATION_REPLENISH, r->stats.replenishments,
					   used > UINT32_MAX ? UINT32_MAX : (uint32_t)used, r->budget_ns);
	}
}

/* Whether a task of reservation r's is ready (the one that ran is back in the ready queue). */
static bool has_ready(const struct rts_ult_cluster *c, const struct rts_reservation *r)
{
	for (const struct rts_ult *u = c->ready; u; u = u->next)
		if (u->reservation == r && u->key != INT64_MIN)
			return true;
	return false;
}

/*
 * The CBS rules at a decision (the ULT that ran is back in the ready queue):
 * a CBS whose tasks became ready while none was takes a new deadline unless
 * its (budget, deadline) still fit its bandwidth; one whose budget ran out
 * while tasks are ready gets it back with its deadline a period later: a
 * soft CBS at once, a hard one at its deadline (throttled until then: the
 * walk passes over it at zero budget, and rts_ult_reservations_next_ns
 * makes its deadline a decision).
 */
static void cbs_update(struct rts_ult_cluster *c, int64_t now_ns)
{
	for (size_t i = 0; i < c->n_reservations; i++) {
		struct rts_reservation *r = c->reservations[i];
		if (!is_cbs(r->kind))
			continue;
		bool ready = has_ready(c, r);
		bool throttled = r->kind == RTS_RESERVATION_HARD_CBS && r->period_end_ns > now_ns;
		if (ready && !r->backlogged &&
		    (!r->period_end_ns || r->period_end_ns <= now_ns ||
		     (__int128)r->remaining_ns * r->period_ns >=
			     (__int128)(r->period_end_ns - now_ns) * r->budget_ns)) {
			r->period_end_ns = now_ns + r->period_ns;
			r->remaining_ns = r->budget_ns;
			r->stats.replenishments++;
			if (r->stream)
				rts_trace_event_at(r->stream, now_ns, RTS_EV_RESERVATION_REPLENISH,
						   r->stats.replenishments, 0, r->budget_ns);
		}
		if (ready && r->remaining_ns <= 0 && !throttled) {
			int64_t used = r->budget_ns - r->remaining_ns;
			/* soft: now; hard: at its deadline, the end of its throttling */
			int64_t at = r->kind == RTS_RESERVATION_HARD_CBS ? r->period_end_ns : now_ns;
			r->period_end_ns += r->period_ns;
			r->remaining_ns = r->budget_ns;
			r->stats.replenishments++;
			if (r->stream)
				rts_trace_event_at(r->stream, at, RTS_EV_RESERVATION_REPLENISH,
						   r->stats.replenishments, (uint32_t)used, r->budget_ns);
		}
		r->backlogged = ready;
	}
}

/*
 * Each sporadic reservation sees whether a task inside is ready (its
 * activation), traces the budget that came back, and has its eligible budget
 * in remaining_ns (ult/sporadic_reservation.c).
 */
static void sporadic_update(struct rts_ult_cluster *c, int64_t now_ns)
{
	int64_t t0 = atomic_load(c->runtime->t0_ns);
	if (!t0 || now_ns < t0)
		return;
	for (size_t i = 0; i < c->n_reservations; i++) {
		struct rts_reservation *r = c->reservations[i];
		if (!r->sporadic)
			continue;
		r->backlogged = has_ready(c, r);
		rts_ult_sporadic_update(r, r->backlogged, t0, now_ns);
	}
}

/* A reservation the walk may enter: budget left, begun; a CBS or a sporadic server only with
 * a task inside ready (its budget keeps meanwhile). */
static bool competes(const struct rts_reservation *r)
{
	switch (r->kind) {
	case RTS_RESERVATION_PERIODIC: /* enforced by the kernel: always (its worker is throttled) */
		return r->by_kernel || (r->remaining_ns > 0 && r->period_end_ns);
	case RTS_RESERVATION_CBS:
	case RTS_RESERVATION_HARD_CBS:
		return r->remaining_ns > 0 && r->period_end_ns && r->backlogged;
	case RTS_RESERVATION_SPORADIC:
		return r->remaining_ns > 0 && r->backlogged;
	}
	return false;
}

static int64_t reservation_key(const struct rts_ult_runtime *rt, const struct rts_reservation *level,
			       const struct rts_reservation *r)
{
	return orders_by_priority(rt, level) ? FP_KEY(r->priority) : r->period_end_ns;
}

static struct rts_ult *walk(struct rts_ult_cluster *c);

/* The decision, timed (the hierarchy's overhead: docs/reservations.md). */
struct rts_ult *rts_ult_reservations_pick(struct rts_ult_cluster *c, int64_t now_ns, int64_t cpu_now_ns)
{
	charge(c, now_ns, cpu_now_ns);
	if (c->active && c->active->control)
		rts_ult_control_picked(c->active, NULL); /* whatever ran was charged */
	replenish(c, now_ns);
	cbs_update(c, now_ns);
	sporadic_update(c, now_ns);
	c->active = NULL;
	c->active_since_ns = now_ns;
	struct rts_ult *ult = walk(c);
	c->active_since_cpu_ns = cpu_now_ns;
	c->active_runs = ult != NULL;
	for (struct rts_reservation *r = c->active; r; r = r->parent)
		if (r->sporadic) /* entered: a task inside runs */
			rts_ult_sporadic_start(r, now_ns);
	c->overhead.decisions++;
	c->overhead.decision_ns += rts_monotonic_now_ns() - now_ns;
	return ult;
}

/* Step 3: the walk from the top (the one before its first release goes first). */
static struct rts_ult *walk(struct rts_ult_cluster *c)
{
	if (c->ready && c->ready->key == INT64_MIN)
		return rts_ult_ready_pop(c); /* on its way to its first release sleep */
	struct rts_reservation *level = NULL;
	for (;;) {
		struct rts_ult *ult = c->ready; /* by key: the first at this level is its best */
		while (ult && ult->reservation != level)
			ult = ult->next;
		struct rts_reservation *best = NULL;
		int64_t best_key = INT64_MAX;
		for (size_t i = 0; i < c->n_reservations; i++) {
			struct rts_reservation *r = c->reservations[i];
			if (r->parent != level || !competes(r))
				continue;
			int64_t key = reservation_key(c->runtime, level, r);
			if (!best || key < best_key) /* index order: ties to the one made first */
				best = r, best_key = key;
		}
		if (ult && (!best || ult->key <= best_key)) {
			c->active = level;
			if (ult->task)
				rts_ult_control_picked(level, ult->task);
			rts_ult_ready_remove(c, ult);
			return ult;
		}
		if (!best) {
			c->active = level; /* idles in `level` (none: the CPU is free) */
			return NULL;
		}
		level = best;
	}
}

int64_t rts_ult_reservations_next_ns(const struct rts_ult_cluster *c)
{
	int64_t next = INT64_MAX;
	int64_t t0 = atomic_load(c->runtime->t0_ns);
	for (size_t i = 0; i < c->n_reservations; i++) {
		const struct rts_reservation *r = c->reservations[i];
		if (r->by_kernel)
			continue; /* the kernel's CBS */
		if (is_cbs(r->kind)) {
			/* its rules apply at decisions made for other reasons; a hard CBS
			 * throttled (no budget, its deadline still ahead) is let go then */
			if (r->kind == RTS_RESERVATION_HARD_CBS && r->remaining_ns <= 0 &&
			    r->period_end_ns > c->active_since_ns && r->period_end_ns < next)
				next = r->period_end_ns;
			continue;
		}
		int64_t at = r->sporadic ? rts_ult_sporadic_next_ns(r, t0, c->active_since_ns)
			     : r->period_end_ns ? r->period_end_ns : t0;
		if (at > 0 && at < next)
			next = at;
	}
	for (const struct rts_reservation *r = c->active; r; r = r->parent) {
		int64_t depleted = c->active_since_ns + r->remaining_ns;
		if (!r->by_kernel && r->remaining_ns > 0 && depleted < next)
			next = depleted;
	}
	return next;
}
