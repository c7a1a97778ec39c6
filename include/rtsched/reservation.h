/* SPDX-License-Identifier: MIT */
/*
 * Reservations (docs/reservations.md; seed 000, AdHierSched): a periodic
 * server gives its children -- tasks, or other reservations, to any depth --
 * budget_ns of CPU time every period_ns, and orders them by its own policy
 * (fixed priority or EDF). Under the ult backend's one-CPU forms ("ult:pfp",
 * "ult:pedf"), the library's scheduler enforces the budgets with its timers:
 *
 *     rts_taskset_set_backend(set, "ult:pedf");
 *     struct rts_reservation_params s = {.name = "S1", .period_ns = 100 * MS,
 *             .budget_ns = 39 * MS, .order = RTS_RESERVATION_FP, .cpu = 0};
 *     rts_reservation_t *s1;
 *     rts_reservation_create(set, &s, NULL, &s1);      // top level, on CPU 0
 *     params.reservation = s1;                         // before rts_task_create
 *
 * Semantics (the paper's periodic server): at t0 (the set's release) and
 * every period after, the budget is set back to budget_ns (unused budget is
 * not carried over). A reservation with budget left competes with its
 * siblings in its parent's order (FP: its priority; EDF: the end of its
 * current period as its deadline); while it is chosen it consumes its budget,
 * and its ancestors theirs, whether a child runs or nothing inside is ready
 * (the CPU then idles: the budget idles away). At zero budget nothing inside
 * runs until the next replenishment.
 *
 * With a trace, each reservation gets a stream of its own (task_id -1, its
 * name, made here: before rts_trace_start) with RTS_EV_RESERVATION_REPLENISH
 * at each period it begins and RTS_EV_RESERVATION_DEPLETE when its budget
 * reaches zero (docs/trace-format.md).
 *
 * Made before the set's release, by the thread that makes the tasks; a
 * task's reservation must be a leaf (no child reservations) on the task's
 * CPU. Freed with the set.
 */
#ifndef RTSCHED_RESERVATION_H
#define RTSCHED_RESERVATION_H

#include <stdint.h>

#include <rtsched/budget_controller.h>
#include <rtsched/task.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rts_reservation_order {
	RTS_RESERVATION_FP = 0,  /* children by priority: tasks' SCHED_FIFO priority, reservations' */
	RTS_RESERVATION_EDF = 1, /* children by absolute deadline */
};

enum rts_reservation_kind {
	RTS_RESERVATION_PERIODIC = 0, /* the periodic server above (the default) */
	RTS_RESERVATION_CBS = 1,      /* a constant bandwidth server, below */
	RTS_RESERVATION_SPORADIC = 2, /* a sporadic server, below */
	RTS_RESERVATION_HARD_CBS = 3, /* a CBS throttled until its deadline when its budget runs out */
};

/*
 * Who enforces a top-level periodic reservation's budget (docs/reservations.md,
 * "Enforced by the kernel"). RTS_RESERVATION_BY_KERNEL: its CPU's worker runs
 * under SCHED_DEADLINE with runtime = budget_ns and deadline = period =
 * period_ns, so the kernel's CBS throttles the whole subtree against
 * everything else on the machine, and the user-level scheduler keeps no
 * budget for this level (its children's budgets it still enforces). It must
 * be the only thing at the top of its CPU (no other top-level reservation, no
 * task outside it), periodic, without a budget controller, and made before
 * the set's first task (the worker takes its policy when it starts). The
 * kernel pins a SCHED_DEADLINE thread to one CPU only if that CPU is a root
 * domain of its own: give `cpuset`, the folder of an exclusive cpuset holding
 * just that CPU (rtsched run makes one), which the worker joins first.
 */
enum rts_reservation_enforcement {
	RTS_RESERVATION_BY_USER = 0,   /* the ult scheduler's timers (the default) */
	RTS_RESERVATION_BY_KERNEL = 1, /* SCHED_DEADLINE on its CPU's worker */
};

/*
 * A CBS (Abeni & Buttazzo), kind RTS_RESERVATION_CBS, in an EDF parent (or
 * at the top of an "ult:pedf" CPU), holding tasks: budget Q = budget_ns per
 * period T = period_ns, a deadline d. When a task inside becomes ready and
 * none was: if Q_left >= (d - now) * Q / T, then d = now + T and Q_left = Q.
 * At zero budget while tasks are ready: Q_left = Q, d += T. It competes in
 * its parent by d and is chosen only while a task inside is ready (its budget
 * does not idle away). So a task that overruns only postpones its own
 * deadlines: its siblings in other CBSs keep their bandwidth.
 *
 * A hard CBS, kind RTS_RESERVATION_HARD_CBS (as SCHED_DEADLINE's): the same,
 * except that at zero budget with tasks ready it is throttled until its
 * deadline d, and only then gets Q_left = Q and d += T. So it never runs
 * more than Q between two of its deadlines, even when the CPU would be idle
 * (a soft CBS alone on its CPU takes all of it).
 */
/*
 * A sporadic server (Sprunt, Sha, Lehoczky; with the corrections of Stanovich
 * et al., RTAS 2010), kind RTS_RESERVATION_SPORADIC, in an FP parent (or at
 * the top of an "ult:pfp" CPU), holding tasks: its budget_ns is a list of
 * refills. It is activated when a task inside becomes ready while none was
 * and stays active until none is; it competes by its priority only while a
 * task inside is ready and it has eligible budget, and consumes budget only
 * while a task inside runs (never idled away, never reset). What a run took
 * from a refill eligible since e, in an activation that began at a, comes
 * back at max(a, e) + period_ns. Its stream: a REPLENISH at t0 (arg0 0) and
 * at each decision that finds budget come back (arg0 the amount), a DEPLETE
 * when a run empties its eligible budget.
 */
/*
 * The budget controller (docs/reservations.md; <rtsched/budget_controller.h>)
 * of a soft periodic reservation that holds tasks: at every control period
 * its group (the adapted reservations of its parent) gets budgets from the
 * policy; its own applies at once (it is its replenishment), a sibling's
 * smaller one at once (its budget left is cut), a larger one at the
 * sibling's next replenishment. period_ns 0: the budget stays.
 */
struct rts_reservation_control {
	int64_t period_ns;           /* a whole number >= 1 of the reservation's periods; 0: off */
	int64_t min_budget_ns;       /* 0 < min <= budget_ns <= max <= the reservation's period */
	int64_t max_budget_ns;
	int importance;              /* >= 1; larger is served first in overload */
	int headroom_percent;        /* 0..1000: added to the CPU time used */
	rts_budget_policy_fn policy; /* NULL: rts_budget_control */
};

struct rts_reservation_params {
	const char *name;               /* for errors; at most 31 bytes kept */
	int64_t period_ns;              /* > 0 */
	int64_t budget_ns;              /* 0 < budget <= period */
	enum rts_reservation_order order;
	int priority;                   /* 1..99 when the parent (or the CPU's scheduler) is FP */
	int cpu;                        /* top level: the CPU of its one-CPU cluster; else ignored */
	enum rts_reservation_kind kind; /* 0: periodic */
	struct rts_reservation_control control; /* zero: a fixed budget */
	enum rts_reservation_enforcement enforcement; /* 0: by the user-level scheduler */
	const char *cpuset; /* RTS_RESERVATION_BY_KERNEL: an exclusive cpuset of its CPU (copied); NULL: none */
};

/* Counters, readable after rts_taskset_join(): final then, as the tree of a
 * CPU stops (no charge, replenishment or trace event) once every task of
 * that CPU has ended. */
struct rts_reservation_stats {
	uint32_t replenishments;  /* periods begun, the first (at t0) included */
	uint32_t depletions;      /* times its budget reached zero */
	int64_t consumed_ns;      /* budget consumed in all, running children or idling */
	uint32_t budget_changes;  /* changes by the budget controller */
	int64_t budget_ns;        /* its budget at the end */
};

/* Time its CPU's scheduler spent on the hierarchy, measured with timestamps
 * (CLOCK_MONOTONIC) around each decision and each run of the controller. */
struct rts_reservation_overhead {
	uint64_t decisions;  /* scheduler decisions of the CPU's reservation tree */
	int64_t decision_ns; /* their time, the controller's included */
	uint32_t controls;   /* runs of the budget controller's policy (ends of control periods) */
	int64_t control_ns;  /* the controller's time: those, and its sampling at every replenishment */
};

/*
 * Make a reservation in `parent` (NULL: the top level of params->cpu's
 * cluster). 0; EINVAL (bad parameters, not the ult backend, a cluster of
 * several CPUs, a parent that holds tasks), EBUSY after the release,
 * ENOMEM. rts_taskset_error() says which.
 */
int rts_reservation_create(rts_taskset_t *set, const struct rts_reservation_params *params,
			   rts_reservation_t *parent, rts_reservation_t **reservation);

int rts_reservation_stats(const rts_reservation_t *reservation, struct rts_reservation_stats *stats);
/* The overhead of the reservation tree of reservation's CPU (after rts_taskset_join). */
int rts_reservation_overhead(const rts_reservation_t *reservation, struct rts_reservation_overhead *overhead);

#ifdef __cplusplus
}
#endif

#endif
