/* SPDX-License-Identifier: MIT */
/*
 * Where the ult backend handles a release (internal/ult.h, "Release
 * timers"): an idle worker of the cluster takes it on its own CPU, so a
 * running job is neither preempted nor moved for a release that has a free
 * CPU; and the workers' timestamps (internal/ult_probe.h) count what they
 * say. Order and counts only.
 */
#include "internal/ult_probe.h"
#include "ult_scenario.h"

static struct sc_run run;
static struct rts_ult_probes probes; /* read after the set's workers are joined */

/* The first two allowed CPUs; SKIP if fewer. */
static void two_cpus_or_skip(void)
{
	cpu_set_t set;
	CHECK_OK(sched_getaffinity(0, sizeof(set), &set) == 0 ? 0 : errno);
	if (CPU_COUNT(&set) < 2)
		SKIP("needs 2 CPUs, this process may use %d", CPU_COUNT(&set));
}

/*
 * G-EDF on two CPUs: "long" (deadline 200 ms) runs 60 ms on one CPU while
 * "tick" (deadline 5 ms, earlier) is released every 5 ms. Each release goes
 * to the idle worker, which sleeps until it, so "long" is never preempted
 * (as it would be if the release went to its worker first, which would then
 * run "tick" itself and hand "long" to the other CPU) and never moves; every
 * job of "tick" runs on the other CPU.
 */
static void test_gedf_release_goes_to_the_idle_worker(void)
{
	two_cpus_or_skip();
	struct sc_task tasks[] = {
		{.name = "long", .cpu = -1, .period_ms = 400, .deadline_ms = 200, .busy_us = 60000, .jobs = 1},
		{.name = "tick", .cpu = -1, .offset_ms = 5, .period_ms = 5, .deadline_ms = 5, .busy_us = 500, .jobs = 8},
	};
	sc_run_set("ult:gedf", tasks, 2, &run);
	size_t long_start = sc_must_find(&run, tasks, 0, 0, RTS_EV_START, 1);
	size_t long_done = sc_must_find(&run, tasks, long_start, 0, RTS_EV_COMPLETE, 1);
	CHECK_EQ(sc_count(&run, 0, RTS_EV_PREEMPT), 0);
	CHECK_EQ(sc_count(&run, 0, RTS_EV_MIGRATE), 0);
	uint16_t long_cpu = run.ev[long_start].rec.cpu;
	size_t ticks_inside = 0;
	for (size_t i = 0; i < run.n; i++) {
		const struct rts_trace_event_rec *r = &run.ev[i].rec;
		if (run.ev[i].task != 1 || r->type != RTS_EV_START)
			continue;
		CHECK(r->cpu != long_cpu);
		ticks_inside += i > long_start && i < long_done;
	}
	CHECK_MSG(ticks_inside >= 8, "only %zu of tick's 8 jobs while long ran", ticks_inside);
	CHECK_EQ(tasks[1].stats.jobs_completed, 8);
	SC_CHECK_TIMING(tasks[1].stats.deadline_misses == 0, "%d deadline misses", (int)tasks[1].stats.deadline_misses);
	SC_CHECK_TIMING(tasks[0].stats.deadline_misses == 0, "%d deadline misses", (int)tasks[0].stats.deadline_misses);
}

static struct rts_ult_probe_stat probe_sum(enum rts_ult_probe_kind kind)
{
	struct rts_ult_probe_stat sum = {0};
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		sum.count += probes.cpu[cpu][kind].count;
		sum.sum_ns += probes.cpu[cpu][kind].sum_ns;
	}
	return sum;
}

/*
 * One CPU, one task of 10 jobs, the timestamps attached: each release is
 * one decision that releases a sleeper (event latency, release work and
 * requests once each), each job one switch to it at least (scheduling), and
 * no worker ever tells another (no signal latency). Detached, the next set
 * records nothing.
 */
static void test_timestamps_count_each_release_once(void)
{
	cpu_set_t set;
	CHECK_OK(sched_getaffinity(0, sizeof(set), &set) == 0 ? 0 : errno);
	int cpu = 0;
	while (!CPU_ISSET(cpu, &set))
		cpu++;
	struct sc_task tasks[] = {
		{.name = "tick", .cpu = cpu, .period_ms = 2, .deadline_ms = 2, .busy_us = 100, .jobs = 10},
	};
	memset(&probes, 0, sizeof(probes));
	rts_ult_probes_attach(&probes);
	sc_run_set("ult:pedf", tasks, 1, &run);
	rts_ult_probes_attach(NULL);
	CHECK_EQ(tasks[0].stats.jobs_completed, 10);
	CHECK_EQ(probe_sum(RTS_ULT_PROBE_EVENT_LATENCY).count, 10);
	CHECK_EQ(probe_sum(RTS_ULT_PROBE_RELEASE).count, 10);
	CHECK_EQ(probe_sum(RTS_ULT_PROBE_REQUEST).count, 10);
	CHECK_EQ(probe_sum(RTS_ULT_PROBE_SIGNAL_LATENCY).count, 0);
	CHECK(probe_sum(RTS_ULT_PROBE_SCHEDULING).count >= 10);
	CHECK(probe_sum(RTS_ULT_PROBE_EVENT_LATENCY).sum_ns > 0);
	for (int k = 0; k < RTS_ULT_PROBE_KINDS; k++)
		CHECK_EQ(probes.cpu[cpu][k].count, probe_sum((enum rts_ult_probe_kind)k).count);

	memset(&probes, 0, sizeof(probes));
	sc_run_set("ult:pedf", tasks, 1, &run);
	for (int k = 0; k < RTS_ULT_PROBE_KINDS; k++)
		CHECK_EQ(probe_sum((enum rts_ult_probe_kind)k).count, 0);
}

static const struct h_case cases[] = {
	H_CASE(test_gedf_release_goes_to_the_idle_worker, 20000),
	H_CASE(test_timestamps_count_each_release_once, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
