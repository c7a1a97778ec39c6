/* SPDX-License-Identifier: MIT */
/*
 * The ult backend under load: generated task sets (periodic and sporadic,
 * 60% of the CPUs, periods of 3-12 ms) on every form, run for a while and
 * stopped in the middle of their jobs, several seeds, then the trace checked
 * for what must hold whatever the timing:
 *  - each task's events nest: RELEASE, START, (PREEMPT, [MIGRATE], RESUME)*,
 *    COMPLETE, and a job never preempted twice without a RESUME between;
 *  - on each CPU the execution intervals (START or RESUME to PREEMPT or
 *    COMPLETE) never overlap: one worker runs one ULT at a time;
 *  - partitioned forms never migrate, and jobs run where their task's CPU is;
 *  - the counts agree: COMPLETE events = jobs completed = job bodies run.
 * Meant for the sanitizers as much as for the logic.
 */
#include "ult_scenario.h"

static struct sc_run run;
static struct sc_run by_stream; /* run, sorted by task, then recording order */

static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

static int allowed(int *cpus)
{
	cpu_set_t set;
	CHECK_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
	int n = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

/* n tasks with total utilisation 0.6 per CPU; partitioned: task i on cpus[i % n_cpus]. */
static void generate(struct sc_task *tasks, int n, uint64_t seed, const int *cpus, int n_cpus,
		     bool partitioned, bool fp)
{
	static char names[SC_MAX_TASKS][16];
	for (int i = 0; i < n; i++) {
		struct sc_task *t = &tasks[i];
		memset(t, 0, sizeof(*t));
		snprintf(names[i], sizeof(names[i]), "t%d", i);
		t->name = names[i];
		t->period_ms = 3 + (int64_t)(next_random(&seed) % 10);
		t->deadline_ms = t->period_ms;
		t->offset_ms = (int64_t)(next_random(&seed) % 3);
		/* each task 0.6 * n_cpus / n of a CPU */
		t->busy_us = t->period_ms * 1000 * 6 * n_cpus / (10 * n);
		t->cpu = partitioned ? cpus[i % n_cpus] : -1;
		t->priority = fp ? 10 + (int)(100 / t->period_ms) : 0; /* rate monotonic */
		if (i % 3 == 2)
			t->sporadic_extra_us = (int64_t)(next_random(&seed) % 2000);
	}
}

/* The last events of task t up to event i, for a failure's message. */
static void dump_task_before(int t, size_t i)
{
	size_t shown = 0;
	for (size_t j = i + 1; j-- > 0 && shown < 12;) {
		const struct sc_event *e = &by_stream.ev[j];
		if (e->task != t)
			continue;
		fprintf(stderr, "  event %zu: %s job %u cpu %u arg0 %u arg1 %lld t %lld\n", j,
			sc_type_name(e->rec.type), e->rec.job, e->rec.cpu, e->rec.arg0,
			(long long)e->rec.arg1, (long long)e->rec.time_ns);
		shown++;
	}
}

#define EXPECT_STATE(want)                                                        \
	do {                                                                      \
		if (state != (want)) {                                            \
			fprintf(stderr, "task %d: state %d, expected %d; latest first:\n", t, \
				(int)state, (int)(want));                         \
			dump_task_before(t, i);                                   \
			CHECK_EQ(state, (want));                                  \
		}                                                                 \
	} while (0)

static int by_task_then_seq(const void *a, const void *b)
{
	const struct sc_event *x = a, *y = b;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}


/* Each task's events in recording order: a RELEASE carries its nominal time,
 * which is before the previous COMPLETE when that job ended late. */
static void check_nesting(const struct sc_task *tasks, int n)
{
	by_stream.n = run.n;
	memcpy(by_stream.ev, run.ev, run.n * sizeof(run.ev[0]));
	qsort(by_stream.ev, by_stream.n, sizeof(by_stream.ev[0]), by_task_then_seq);
	for (int t = 0; t < n; t++) {
		enum { IDLE, RUNNING, PREEMPTED } state = IDLE;
		uint32_t job = 0;
		bool released = false;
		for (size_t i = 0; i < by_stream.n; i++) {
			const struct sc_event *e = &by_stream.ev[i];
			if (e->task != t)
				continue;
			switch (e->rec.type) {
			case RTS_EV_RELEASE:
				EXPECT_STATE(IDLE);
				CHECK_EQ(e->rec.job, job + 1);
				released = true;
				break;
			case RTS_EV_START:
				CHECK(released && state == IDLE);
				job = e->rec.job;
				state = RUNNING;
				released = false;
				break;
			case RTS_EV_PREEMPT:
				EXPECT_STATE(RUNNING);
				state = PREEMPTED;
				break;
			case RTS_EV_MIGRATE:
				EXPECT_STATE(PREEMPTED);
				break;
			case RTS_EV_RESUME:
				EXPECT_STATE(PREEMPTED);
				state = RUNNING;
				break;
			case RTS_EV_COMPLETE:
				EXPECT_STATE(RUNNING);
				CHECK_EQ(e->rec.job, job);
				state = IDLE;
				break;
			default:
				break;
			}
		}
		CHECK(state == IDLE || state == RUNNING || state == PREEMPTED);
		CHECK_EQ(sc_count(&run, t, RTS_EV_COMPLETE), (size_t)tasks[t].stats.jobs_completed);
		/* A job the stop caught was started and never completed: at most one. */
		int run_bodies = atomic_load(&tasks[t].jobs_run);
		CHECK_EQ((uint32_t)run_bodies, tasks[t].stats.jobs_completed);
	}
}

/*
 * Per CPU, intervals from START/RESUME to PREEMPT/COMPLETE, in time order,
 * never overlap (the backend stamps a ULT's switch events under its cluster
 * lock or after it, so their times are in the order they happened).
 */
static void check_one_at_a_time(int n_tasks)
{
	int running_on[64];
	for (int c = 0; c < 64; c++)
		running_on[c] = -1;
	int cpu_of_task[SC_MAX_TASKS];
	for (int t = 0; t < n_tasks; t++)
		cpu_of_task[t] = -1;
	for (size_t i = 0; i < run.n; i++) {
		const struct sc_event *e = &run.ev[i];
		int cpu = e->rec.cpu;
		CHECK_LT(cpu, 64);
		switch (e->rec.type) {
		case RTS_EV_START:
		case RTS_EV_RESUME:
			if (running_on[cpu] >= 0) {
				for (size_t j = i > 12 ? i - 12 : 0; j < i + 4 && j < run.n; j++)
					fprintf(stderr, "  event %zu: task %d %s job %u cpu %u t %lld\n", j,
						run.ev[j].task, sc_type_name(run.ev[j].rec.type),
						run.ev[j].rec.job, run.ev[j].rec.cpu,
						(long long)run.ev[j].rec.time_ns);
				CHECK_MSG(false, "event %zu: task %d starts on CPU %d while task %d runs there",
					  i, e->task, cpu, running_on[cpu]);
			}
			running_on[cpu] = e->task;
			cpu_of_task[e->task] = cpu;
			break;
		case RTS_EV_PREEMPT:
		case RTS_EV_COMPLETE:
			CHECK_EQ(cpu_of_task[e->task], cpu);
			CHECK_EQ(running_on[cpu], e->task);
			running_on[cpu] = -1;
			cpu_of_task[e->task] = -1;
			break;
		default:
			break;
		}
	}
}

static void stress(const char *form, bool partitioned, bool fp)
{
	int cpus[2];
	int n_cpus = allowed(cpus);
	if (partitioned && strstr(form, "cedf:1") == NULL && strstr(form, "pedf") == NULL &&
	    strstr(form, "pfp") == NULL)
		partitioned = false;
	static struct sc_task tasks[SC_MAX_TASKS];
	const int n = 10;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		generate(tasks, n, seed * 0x9e3779b97f4a7c15ull, cpus, n_cpus, partitioned, fp);
		sc_run_set_until(form, tasks, n, 150, &run);
		check_nesting(tasks, n);
		check_one_at_a_time(n);
		for (int t = 0; t < n; t++) {
			CHECK(tasks[t].stats.jobs_completed >= 1);
			if (partitioned) {
				CHECK_EQ(sc_count(&run, t, RTS_EV_MIGRATE), 0);
				CHECK_EQ(atomic_load(&tasks[t].cpus_seen), 1u << tasks[t].cpu);
			}
		}
	}
}

static void test_stress_gedf(void) { stress("ult:gedf", false, false); }
static void test_stress_pedf(void) { stress("ult:pedf", true, false); }
static void test_stress_cedf1(void) { stress("ult:cedf:1", true, false); }
static void test_stress_gfp(void) { stress("ult:gfp", false, true); }
static void test_stress_pfp(void) { stress("ult:pfp", true, true); }

static const struct h_case cases[] = {
	H_CASE(test_stress_gedf, 60000),
	H_CASE(test_stress_pedf, 60000),
	H_CASE(test_stress_cedf1, 60000),
	H_CASE(test_stress_gfp, 60000),
	H_CASE(test_stress_pfp, 60000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
