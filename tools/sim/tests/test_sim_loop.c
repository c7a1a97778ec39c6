/* SPDX-License-Identifier: MIT */
/*
 * rtsched-sim-loop's parts against known answers: CPython's random.Random
 * draws (values printed by CPython 3.11), two hand-computed schedules with
 * exact times (P-FP on one CPU; G-EDF on two CPUs with a preemption and a
 * migration), the input's errors, and a trace that spills to files reads
 * back and writes the same bytes as one kept in memory. That the loop equals the Python one on
 * generated sets is tests/python/test_sim_native.py's part.
 */
#include <rtsched/trace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "pyrandom.h"
#include "spec.h"
#include "trace_file.h"

static int failures;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                      \
		}                                                                        \
	} while (0)

#define MS 1000000ll

/* random.Random(seed): [randint(1, 10) x3, randint(200000, 1000000), randint(1, 1),
 * randint(5e9, 9e9), randint(1e18, 4e18)] as CPython 3.11 prints them. */
static void test_pyrandom_draws_cpython_s_numbers(void)
{
	static const struct {
		uint32_t words[2];
		size_t n_words;
		uint64_t expect[7];
	} cases[] = {
		{{0}, 1, {7, 7, 1, 471493, 1, 6739178872ull, 2398783036970057056ull}},
		{{1}, 1, {3, 10, 2, 467459, 1, 7127877499ull, 3072911645936348996ull}},
		{{3000011}, 1, {9, 1, 4, 843046, 1, 8975752234ull, 3955723199151181223ull}},
		{{5, 256}, 2, {9, 9, 5, 896042, 1, 7280452553ull, 1763055202951335725ull}}, /* 2^40 + 5 */
		{{7}, 1, {6, 3, 7, 882554, 1, 5311111475ull, 3471319555671001124ull}},     /* -7: |seed| */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct py_random r;
		py_random_seed(&r, cases[i].words, cases[i].n_words);
		uint64_t got[7];
		for (int k = 0; k < 3; k++)
			got[k] = py_random_randint(&r, 1, 10);
		got[3] = py_random_randint(&r, 200000, 1000000);
		got[4] = py_random_randint(&r, 1, 1);
		got[5] = py_random_randint(&r, 5000000000ull, 9000000000ull);
		got[6] = py_random_randint(&r, 1000000000000000000ull, 4000000000000000000ull);
		for (int k = 0; k < 7; k++)
			if (got[k] != cases[i].expect[k]) {
				fprintf(stderr, "case %zu draw %d: %llu, CPython %llu\n", i, k, (unsigned long long)got[k],
					(unsigned long long)cases[i].expect[k]);
				failures++;
			}
	}
}

struct expected {
	int64_t time_ns;
	uint16_t type, cpu;
	uint32_t job, arg0;
	int64_t arg1;
};

static void check_events(const struct sim_trace *trace, const struct expected *want, size_t n, const char *task)
{
	if (trace->n != n) {
		fprintf(stderr, "%s: %zu events, expected %zu\n", task, trace->n, n);
		failures++;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct rts_trace_event_rec scratch;
		const struct rts_trace_event_rec *e = sim_trace_at(trace, i, &scratch);
		if (!e) {
			fprintf(stderr, "%s event %zu: not read back\n", task, i);
			failures++;
			return;
		}
		if (e->time_ns != want[i].time_ns || e->type != want[i].type || e->cpu != want[i].cpu ||
		    e->job != want[i].job || e->arg0 != want[i].arg0 || e->arg1 != want[i].arg1 || e->reserved) {
			fprintf(stderr, "%s event %zu: (%lld, %u, %u, %u, %u, %lld), expected (%lld, %u, %u, %u, %u, %lld)\n",
				task, i, (long long)e->time_ns, e->type, e->cpu, e->job, e->arg0, (long long)e->arg1,
				(long long)want[i].time_ns, want[i].type, want[i].cpu, want[i].job, want[i].arg0,
				(long long)want[i].arg1);
			failures++;
		}
	}
}

static int run_text(const char *text, const char *spill_dir, struct sim_spec *spec, struct sim_result *result)
{
	char *copy = strdup(text);
	char error[256];
	int rc = copy ? sim_spec_parse(copy, spec, error, sizeof(error)) : -1;
	free(copy);
	if (rc) {
		fprintf(stderr, "spec: %s\n", error);
		return -1;
	}
	rc = sim_run(spec, true, spill_dir, result);
	if (rc)
		sim_spec_free(spec);
	return rc;
}

/* RM on one CPU: a (priority 2, 3 ms every 10 ms), b (priority 1, 8 ms every 20 ms), 30 ms.
 * a runs [0, 3), [10, 13), [20, 23); b [3, 10), [13, 14) and completes at 14 after 8 ms of CPU;
 * b's second job starts at 23 and would end at 31, after the end: it has no COMPLETE. */
static void test_fixed_priority_preemption(void)
{
	struct sim_spec spec;
	struct sim_result result;
	if (run_text("rtsched-sim-loop 1\nrun 30000000 30000000 1 2 7066\ndomain 1 0\n"
		     "task 0 0 2 10000000 10000000 0 0 -1 0 -1 0 1 3000000 10000 61\n"
		     "task 0 0 1 20000000 20000000 0 0 -1 0 -1 0 1 8000000 10001 62\n",
		     NULL, &spec, &result)) {
		failures++;
		return;
	}
	const struct expected a[] = {
		{0, RTS_EV_PRIORITY, RTS_TRACE_CPU_UNKNOWN, 0, 2, 0},
		{0, RTS_EV_RELEASE, 0, 1, 0, 10 * MS}, {0, RTS_EV_START, 0, 1, 0, 0},
		{3 * MS, RTS_EV_COMPLETE, 0, 1, 0, 3 * MS},
		{10 * MS, RTS_EV_RELEASE, 0, 2, 0, 20 * MS}, {10 * MS, RTS_EV_START, 0, 2, 0, 0},
		{13 * MS, RTS_EV_COMPLETE, 0, 2, 0, 3 * MS},
		{20 * MS, RTS_EV_RELEASE, 0, 3, 0, 30 * MS}, {20 * MS, RTS_EV_START, 0, 3, 0, 0},
		{23 * MS, RTS_EV_COMPLETE, 0, 3, 0, 3 * MS},
	};
	const struct expected b[] = {
		{0, RTS_EV_PRIORITY, RTS_TRACE_CPU_UNKNOWN, 0, 1, 0},
		{0, RTS_EV_RELEASE, 0, 1, 0, 20 * MS}, {3 * MS, RTS_EV_START, 0, 1, 0, 0},
		{14 * MS, RTS_EV_COMPLETE, 0, 1, 0, 8 * MS},
		{20 * MS, RTS_EV_RELEASE, 0, 2, 0, 40 * MS}, {23 * MS, RTS_EV_START, 0, 2, 0, 0},
	};
	CHECK(result.jobs_completed == 4);
	CHECK(result.n_traces == 2);
	check_events(&result.traces[0], a, sizeof(a) / sizeof(a[0]), "a");
	check_events(&result.traces[1], b, sizeof(b) / sizeof(b[0]), "b");
	sim_result_free(&result);
	sim_spec_free(&spec);
}

/* G-EDF on CPUs 0 and 1 for 12 ms: a (2 ms every 10 ms), b (10 ms every 20 ms), h (2 ms every
 * 5 ms from 1 ms). At 0 a takes CPU 0, b CPU 1; at 1 h (deadline 6) preempts b, the latest
 * deadline; at 2 a completes and b resumes on the free CPU 0 (a migration); h completes at 3
 * and runs again [6, 8) on CPU 1, its last; at 10 a's second job takes the idle CPU 1; at 11 b
 * completes (10 ms of CPU) and h's third job takes CPU 0; at 12 a completes. */
static void test_global_edf_preemption_and_migration(void)
{
	struct sim_spec spec;
	struct sim_result result;
	if (run_text("rtsched-sim-loop 1\nrun 12000000 12000000 1 3 -\ndomain 2 0 1\n"
		     "task 0 1 0 10000000 10000000 0 0 -1 0 -1 0 1 2000000 10000 61\n"
		     "task 0 1 0 20000000 20000000 0 0 -1 0 -1 0 1 10000000 10001 62\n"
		     "task 0 1 0 5000000 5000000 1000000 0 -1 0 -1 0 1 2000000 10002 68\n",
		     NULL, &spec, &result)) {
		failures++;
		return;
	}
	const struct expected a[] = {
		{0, RTS_EV_RELEASE, 0, 1, 0, 10 * MS}, {0, RTS_EV_START, 0, 1, 0, 0},
		{2 * MS, RTS_EV_COMPLETE, 0, 1, 0, 2 * MS},
		{10 * MS, RTS_EV_RELEASE, 1, 2, 0, 20 * MS}, {10 * MS, RTS_EV_START, 1, 2, 0, 0},
		{12 * MS, RTS_EV_COMPLETE, 1, 2, 0, 2 * MS},
	};
	const struct expected b[] = {
		{0, RTS_EV_RELEASE, 1, 1, 0, 20 * MS}, {0, RTS_EV_START, 1, 1, 0, 0},
		{11 * MS, RTS_EV_COMPLETE, 0, 1, 0, 10 * MS},
	};
	const struct expected h[] = {
		{1 * MS, RTS_EV_RELEASE, 1, 1, 0, 6 * MS}, {1 * MS, RTS_EV_START, 1, 1, 0, 0},
		{3 * MS, RTS_EV_COMPLETE, 1, 1, 0, 2 * MS},
		{6 * MS, RTS_EV_RELEASE, 1, 2, 0, 11 * MS}, {6 * MS, RTS_EV_START, 1, 2, 0, 0},
		{8 * MS, RTS_EV_COMPLETE, 1, 2, 0, 2 * MS},
		{11 * MS, RTS_EV_RELEASE, 0, 3, 0, 16 * MS}, {11 * MS, RTS_EV_START, 0, 3, 0, 0},
	};
	CHECK(result.jobs_completed == 5);
	check_events(&result.traces[0], a, sizeof(a) / sizeof(a[0]), "a");
	check_events(&result.traces[1], b, sizeof(b) / sizeof(b[0]), "b");
	check_events(&result.traces[2], h, sizeof(h) / sizeof(h[0]), "h");
	sim_result_free(&result);
	sim_spec_free(&spec);
}

static void expect_error(const char *text, const char *message)
{
	char *copy = strdup(text);
	char error[256] = "";
	struct sim_spec spec;
	CHECK(copy && sim_spec_parse(copy, &spec, error, sizeof(error)) == -1);
	if (strcmp(error, message)) {
		fprintf(stderr, "error '%s', expected '%s'\n", error, message);
		failures++;
	}
	free(copy);
}

static void test_bad_input_is_named(void)
{
	expect_error("", "expected 'rtsched-sim-loop', got '(end of input)'");
	expect_error("rtsched-sim-loop 2", "version 2, this program reads 1");
	expect_error("rtsched-sim-loop 1 run 10 10 1 1 - domain 1 0 task 0 0 1 0", "task: period: not an integer >= 1: '0'");
	expect_error("rtsched-sim-loop 1 run 10 10 1 1 - domain 1 0 task 1", "task: domain: 1 is more than 0");
	expect_error("rtsched-sim-loop 1 run 10 10 1 0 zz", "run: name: not hex bytes: 'zz'");
	expect_error("rtsched-sim-loop 1 run 10 10 1 1 - domain 1 0 task 0 0 1 5 5 0 0 -1 0 200000 0",
		     "task: drawn execution times need a seed");
	expect_error("rtsched-sim-loop 1 run 10 10 1 0 - domain 1 0 extra", "unexpected 'extra' after the last task");
}

/* The whole file at path, or NULL; *size its length. */
static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0) {
		long len = ftell(f);
		data = len >= 0 ? malloc((size_t)len + 1) : NULL;
		if (data && (fseek(f, 0, SEEK_SET) != 0 || fread(data, 1, (size_t)len, f) != (size_t)len)) {
			free(data);
			data = NULL;
		}
		*size = (size_t)len;
	}
	if (f)
		fclose(f);
	return data;
}

/*
 * 20,000 jobs of 3 events each: the task's 60,001 events pass its buffer of
 * SIM_TRACE_BUFFER_EVENTS three times, so most of them wait in the spill
 * file; read back, and written as a trace file, they are the same as kept
 * in memory.
 */
static void test_spilled_events_are_the_same(void)
{
	static const char text[] = "rtsched-sim-loop 1\nrun 20000000000 20000000000 1 1 7066\ndomain 1 0\n"
				   "task 0 0 2 1000000 1000000 0 0 -1 0 -1 0 1 100000 10000 61\n";
	char dir[] = "/tmp/test_sim_loop.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	struct sim_spec kept_spec, spilled_spec;
	struct sim_result kept, spilled;
	if (run_text(text, NULL, &kept_spec, &kept) || run_text(text, dir, &spilled_spec, &spilled)) {
		failures++;
		return;
	}
	const struct sim_trace *k = &kept.traces[0], *s = &spilled.traces[0];
	CHECK(k->n == 60001 && s->n == k->n);
	CHECK(k->spill_fd < 0 && s->spill_fd >= 0);
	CHECK(s->buffered <= SIM_TRACE_BUFFER_EVENTS && k->buffered == k->n);
	for (size_t i = 0; i < k->n && i < s->n; i++) {
		struct rts_trace_event_rec scratch;
		const struct rts_trace_event_rec *e = sim_trace_at(s, i, &scratch);
		if (!e || memcmp(e, &k->events[i], sizeof(*e)) != 0) {
			fprintf(stderr, "spilled event %zu differs from the kept one\n", i);
			failures++;
			break;
		}
	}
	char kept_path[64], spilled_path[64];
	snprintf(kept_path, sizeof(kept_path), "%s/kept.rtst", dir);
	snprintf(spilled_path, sizeof(spilled_path), "%s/spilled.rtst", dir);
	CHECK(sim_trace_write(kept_path, &kept_spec, &kept) == 0);
	CHECK(sim_trace_write(spilled_path, &spilled_spec, &spilled) == 0);
	size_t kept_size = 0, spilled_size = 0;
	char *a = slurp(kept_path, &kept_size), *b = slurp(spilled_path, &spilled_size);
	CHECK(a && b && kept_size == spilled_size && memcmp(a, b, kept_size) == 0);
	CHECK(kept_size > 60001 * sizeof(struct rts_trace_event_rec));
	free(a);
	free(b);
	unlink(kept_path);
	unlink(spilled_path);
	CHECK(rmdir(dir) == 0); /* the spill file had no name there */
	sim_result_free(&kept);
	sim_result_free(&spilled);
	sim_spec_free(&kept_spec);
	sim_spec_free(&spilled_spec);
}

int main(void)
{
	test_pyrandom_draws_cpython_s_numbers();
	test_fixed_priority_preemption();
	test_global_edf_preemption_and_migration();
	test_bad_input_is_named();
	test_spilled_events_are_the_same();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return 1;
	}
	printf("sim loop: all checks passed\n");
	return 0;
}
