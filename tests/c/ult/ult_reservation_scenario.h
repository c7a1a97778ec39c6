/* SPDX-License-Identifier: MIT */
/*
 * Scenarios for the reservation tests of the ult backend (docs/reservations.md):
 * reservations (made in order, each in its parent) and tasks that compute
 * for CPU time (rts_task_cputime_ns) until told to stop, run on one CPU for
 * a given time after t0 with a trace, read back (ult_scenario.h) with the
 * tasks' and the reservations' counters; a task's CPU time in a window from
 * its execution intervals in the trace. In the run, task i is stream i and
 * reservation r stream -1 - r.
 */
#ifndef RTSCHED_TESTS_ULT_RESERVATION_SCENARIO_H
#define RTSCHED_TESTS_ULT_RESERVATION_SCENARIO_H

#include <rtsched/reservation.h>
#include <rtsched/task.h>

#include "ult_scenario.h"

#define RV_MAX_TASKS 6

struct rv_task {
	const char *name;
	int64_t period_ms, offset_ms;
	int64_t compute_us;     /* CPU time per job; stops early when the run ends */
	int priority;           /* in an FP reservation */
	int reservation;        /* index into the scenario's reservations (unless outside) */
	bool outside;           /* in no reservation: at the top of its CPU */
	struct rts_task_stats stats;
};

struct rv_reservation {
	struct rts_reservation_params params;
	int parent; /* -1: top level */
	rts_reservation_t *made;
	struct rts_reservation_stats stats;
	struct rts_reservation_overhead overhead; /* its CPU's */
};

static atomic_bool run_over;

static void compute_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	const struct rv_task *t = arg;
	int64_t end = rts_task_cputime_ns() + t->compute_us * 1000;
	while (rts_task_cputime_ns() < end && !atomic_load(&run_over))
		;
}

static int the_cpu(void)
{
	cpu_set_t set;
	CHECK_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

/*
 * Keep the calling thread (the run's clock: it ends the run) off `cpu`, the tasks' CPU, while
 * the run lasts; *saved gets its affinity to restore. Left there, a woken thread of the fair
 * class may wait behind a real-time hog until the kernel's fair server runs it, most of a
 * second later: the run then lasts that much longer than asked.
 */
static void keep_off_cpu(int cpu, cpu_set_t *saved)
{
	CHECK_EQ(sched_getaffinity(0, sizeof(*saved), saved), 0);
	cpu_set_t others = *saved;
	CPU_CLR(cpu, &others);
	if (CPU_COUNT(&others) > 0)
		CHECK_EQ(sched_setaffinity(0, sizeof(others), &others), 0);
}

static struct sc_run run;
static int64_t run_t0;

/* Run the scenario on `form` for run_ms after t0, then stop; run holds the trace. */
static void rv_run(const char *form, struct rv_reservation *rs, int n_rs, struct rv_task *ts, int n_ts,
		   int64_t run_ms)
{
	int cpu = the_cpu();
	struct sc_traced_set traced;
	sc_open_traced_set(&traced, form, "rv");
	rts_taskset_t *set = traced.set;
	for (int i = 0; i < n_rs; i++) {
		rs[i].params.cpu = cpu;
		rts_reservation_t *parent = rs[i].parent >= 0 ? rs[rs[i].parent].made : NULL;
		CHECK_MSG(rts_reservation_create(set, &rs[i].params, parent, &rs[i].made) == 0, "%s",
			  rts_taskset_error(set));
	}
	static cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	rts_task_t *made[RV_MAX_TASKS];
	atomic_store(&run_over, false);
	for (int i = 0; i < n_ts; i++) {
		struct rts_task_params p = {
			.name = ts[i].name,
			.kind = RTS_TASK_PERIODIC,
			.period_ns = ts[i].period_ms * MS,
			.deadline_ns = ts[i].period_ms * MS,
			.offset_ns = ts[i].offset_ms * MS,
			.policy = ts[i].priority ? RTS_POLICY_FIFO : RTS_POLICY_OTHER,
			.priority = ts[i].priority,
			.cpus = &cpus,
			.trace_task_id = i,
			.reservation = ts[i].outside ? NULL : rs[ts[i].reservation].made,
		};
		int err = rts_task_create(set, &p, compute_job, &ts[i], &made[i]);
		if (err == EPERM)
			SKIP("%s", rts_taskset_error(set));
		CHECK_MSG(err == 0, "task %s: %s: %s", ts[i].name, h_errname(err), rts_taskset_error(set));
	}
	cpu_set_t affinity;
	keep_off_cpu(cpu, &affinity);
	run_t0 = clock_ns(CLOCK_MONOTONIC) + 20 * MS;
	struct sc_machine_sample before;
	sc_sample_machine(&before);
	CHECK_OK(rts_trace_start(traced.trace, run_t0, 0));
	CHECK_OK(rts_taskset_release(set, run_t0));
	h_sleep_ms(20 + run_ms);
	atomic_store(&run_over, true);
	CHECK_OK(rts_taskset_stop(set));
	CHECK_OK(rts_taskset_join(set));
	sc_note_disturbance(&before, run_ms * MS);
	CHECK_EQ(sched_setaffinity(0, sizeof(affinity), &affinity), 0);
	for (int i = 0; i < n_ts; i++)
		CHECK_OK(rts_task_stats(made[i], &ts[i].stats));
	for (int i = 0; i < n_rs; i++) {
		CHECK_OK(rts_reservation_stats(rs[i].made, &rs[i].stats));
		CHECK_OK(rts_reservation_overhead(rs[i].made, &rs[i].overhead));
	}
	/* Final after the join: the tree stopped with its last task (the set is
	 * not destroyed yet, so its workers still run), and the trace, closed
	 * below, holds no event the counters do not count. */
	h_sleep_ms(25);
	for (int i = 0; i < n_rs; i++) {
		struct rts_reservation_stats again;
		CHECK_OK(rts_reservation_stats(rs[i].made, &again));
		CHECK_EQ(again.replenishments, rs[i].stats.replenishments);
		CHECK_EQ(again.depletions, rs[i].stats.depletions);
		CHECK_EQ(again.consumed_ns, rs[i].stats.consumed_ns);
	}
	sc_close_traced_set(&traced, &run);
	if (h_verbose()) {
		for (size_t i = 0; i < run.n; i++)
			fprintf(stderr, "  %3zu task %d %-10s job %u t %.3f ms\n", i, run.ev[i].task,
				rts_trace_type_name(run.ev[i].rec.type) ? rts_trace_type_name(run.ev[i].rec.type) : "?",
				run.ev[i].rec.job, (double)(run.ev[i].rec.time_ns - run_t0) / 1e6);
	}
}

/* CPU time task `task` ran in [from, to), from its execution intervals in the trace. */
__attribute__((unused)) static int64_t ran_ns(int task, int64_t from, int64_t to)
{
	int64_t total = 0, since = -1;
	for (size_t i = 0; i < run.n; i++) {
		if (run.ev[i].task != task)
			continue;
		uint16_t type = run.ev[i].rec.type;
		int64_t t = run.ev[i].rec.time_ns;
		if (type == RTS_EV_START || type == RTS_EV_RESUME) {
			since = t;
		} else if ((type == RTS_EV_PREEMPT || type == RTS_EV_COMPLETE) && since >= 0) {
			int64_t a = since > from ? since : from, b = t < to ? t : to;
			if (b > a)
				total += b - a;
			since = -1;
		}
	}
	if (since >= 0 && since < to) /* still running when the trace ends: up to `to` */
		total += to - (since > from ? since : from);
	return total;
}

__attribute__((unused)) static struct rts_reservation_params
periodic(const char *name, int64_t period_ms, int64_t budget_us, enum rts_reservation_order order,
	 int priority)
{
	return (struct rts_reservation_params){.name = name, .period_ns = period_ms * MS,
					       .budget_ns = budget_us * 1000, .order = order,
					       .priority = priority};
}

#endif
