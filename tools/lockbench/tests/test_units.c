/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of rtsched-lockbench's statistics, option parser and ratio
 * verdicts: known inputs, exact answers. Exit 0 when all pass.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "options.h"
#include "stats.h"
#include "views.h"
#include "workload.h"

static int failures;

#define CHECK(cond)                                                                          \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,     \
				#cond);                                                      \
			failures++;                                                          \
		}                                                                            \
	} while (0)

#define CHECK_NEAR(a, b) CHECK(fabs((double)(a) - (double)(b)) < 1e-9)

static void test_stats_one_to_hundred(void)
{
	uint64_t s[100];
	/* 100, 99, ..., 1: lb_dist_of must sort. */
	for (int i = 0; i < 100; i++)
		s[i] = (uint64_t)(100 - i);
	struct lb_dist d = lb_dist_of(s, 100);
	CHECK(d.n == 100);
	CHECK_NEAR(d.avg, 50.5);
	CHECK_NEAR(d.p50, 50);  /* nearest rank: ceil(0.50 * 100) = 50th value */
	CHECK_NEAR(d.p99, 99);  /* ceil(0.99 * 100) = 99th value, not the max */
	CHECK_NEAR(d.min, 1);
	CHECK_NEAR(d.max, 100);
}

static void test_stats_outlier(void)
{
	/* 999 samples of 10 and one of 1000000: the 99th percentile ignores the
	 * outlier, the average and the maximum do not. */
	size_t n = 1000;
	uint64_t *s = malloc(n * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		s[i] = 10;
	s[n / 2] = 1000000;
	struct lb_dist d = lb_dist_of(s, n);
	CHECK_NEAR(d.p99, 10);
	CHECK_NEAR(d.max, 1000000);
	CHECK_NEAR(d.avg, (999.0 * 10 + 1000000) / 1000);
	free(s);
}

static void test_stats_small(void)
{
	uint64_t one[1] = { 7 };
	struct lb_dist d = lb_dist_of(one, 1);
	CHECK(d.n == 1 && d.avg == 7 && d.p99 == 7 && d.max == 7 && d.min == 7);

	uint64_t three[3] = { 30, 10, 20 };
	d = lb_dist_of(three, 3);
	CHECK_NEAR(d.avg, 20);
	CHECK_NEAR(d.p50, 20); /* ceil(1.5) = 2nd */
	CHECK_NEAR(d.p99, 30); /* ceil(2.97) = 3rd */

	d = lb_dist_of(NULL, 0);
	CHECK(d.n == 0 && d.avg == 0 && d.max == 0);

	/* Percentiles at the edges of the definition. */
	uint64_t sorted[200];
	for (int i = 0; i < 200; i++)
		sorted[i] = (uint64_t)i + 1;
	CHECK(lb_percentile_sorted(sorted, 200, 99) == 198);
	CHECK(lb_percentile_sorted(sorted, 200, 100) == 200);
	CHECK(lb_percentile_sorted(sorted, 200, 0.1) == 1);
}

static void test_stats_scaled(void)
{
	uint64_t s[4] = { 64, 64, 64, 128 };
	struct lb_dist d = lb_dist_scaled(lb_dist_of(s, 4), 1.0 / 32);
	CHECK_NEAR(d.avg, 2.5);
	CHECK_NEAR(d.max, 4);
	CHECK_NEAR(d.min, 2);
	CHECK(d.n == 4);
}

/* Parse a NULL-terminated argument list. */
static int parse(struct lb_options *o, char *err, size_t err_size, ...)
{
	char *argv[32] = { "rtsched-lockbench" };
	int argc = 1;
	va_list ap;
	va_start(ap, err_size);
	char *a;
	while ((a = va_arg(ap, char *)) != NULL && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	return lb_options_parse(argc, argv, 2, o, err, err_size);
}

static void test_options_defaults(void)
{
	struct lb_options o;
	char err[256];
	CHECK(parse(&o, err, sizeof(err), NULL) == LB_EXIT_OK);
	CHECK(o.iterations == LB_DEFAULT_ITERATIONS);
	CHECK(o.rounds == LB_DEFAULT_ITERATIONS / 10);
	CHECK(o.cpu == 1 && !o.cpu_given);
	CHECK(o.priority == LB_DEFAULT_PRIORITY);
	CHECK(o.workload_ms == LB_DEFAULT_WORKLOAD_MS && o.seed == 1);
	CHECK(!o.json && !o.quick && !o.help);
	for (int s = 0; s < LB_NR_SUBJECTS; s++)
		CHECK(o.selected[s]);
}

static void test_options_values(void)
{
	struct lb_options o;
	char err[256];
	CHECK(parse(&o, err, sizeof(err), "--iterations", "5000", "--cpu=0", "--json",
		    "--priority", "50", "--only", "rts-pip,glibc-inherit,cond-rts-pip", NULL) ==
	      LB_EXIT_OK);
	CHECK(o.iterations == 5000 && o.rounds == 500);
	CHECK(o.cpu == 0 && o.cpu_given);
	CHECK(o.json && o.priority == 50);
	CHECK(o.selected[LB_RTS_PIP] && o.selected[LB_GLIBC_INHERIT] &&
	      o.selected[LB_COND_RTS_PIP]);
	CHECK(!o.selected[LB_RTS_NONE] && !o.selected[LB_GLIBC_PROTECT] &&
	      !o.selected[LB_COND_GLIBC_NONE]);

	CHECK(parse(&o, err, sizeof(err), "--quick", NULL) == LB_EXIT_OK);
	CHECK(o.quick && o.iterations == LB_QUICK_ITERATIONS && o.rounds == LB_QUICK_ITERATIONS / 10);
	CHECK(o.workload_ms == LB_QUICK_WORKLOAD_MS);
	CHECK(parse(&o, err, sizeof(err), "--quick", "--workload-ms", "0", "--seed", "42", NULL) ==
	      LB_EXIT_OK);
	CHECK(o.workload_ms == 0 && o.seed == 42);

	CHECK(parse(&o, err, sizeof(err), "--help", NULL) == LB_EXIT_OK && o.help);
}

/* Each bad command line: exit code 2 and a message naming the problem. */
static void expect_usage(const char *needle, ...)
{
	char *argv[8] = { "rtsched-lockbench" };
	int argc = 1;
	va_list ap;
	va_start(ap, needle);
	char *a;
	while ((a = va_arg(ap, char *)) != NULL && argc < 7)
		argv[argc++] = a;
	va_end(ap);
	struct lb_options o;
	char err[256] = "";
	int ret = lb_options_parse(argc, argv, 2, &o, err, sizeof(err));
	if (ret != LB_EXIT_USAGE || !strstr(err, needle)) {
		fprintf(stderr, "usage error for %s: got exit %d, message '%s', wanted '%s'\n",
			argc > 1 ? argv[1] : "(none)", ret, err, needle);
		failures++;
	}
}

static void test_options_errors(void)
{
	expect_usage("--iterations: 'abc' is not an integer", "--iterations", "abc", NULL);
	expect_usage("--iterations: '-5'", "--iterations", "-5", NULL);
	expect_usage("--iterations: '10'", "--iterations", "10", NULL); /* below the minimum */
	expect_usage("--iterations: '100x'", "--iterations=100x", NULL);
	expect_usage("--iterations: ''", "--iterations=", NULL);
	expect_usage("--iterations: '99999999999999999999999'", "--iterations",
		     "99999999999999999999999", NULL);
	expect_usage("--iterations needs a value", "--iterations", NULL);
	expect_usage("unknown option '--iteration'", "--iteration", "5", NULL);
	expect_usage("unknown option 'extra'", "extra", NULL);
	expect_usage("unknown option '-q'", "-q", NULL);
	expect_usage("--cpu: '2' is not a CPU", "--cpu", "2", NULL);
	expect_usage("--priority: '99'", "--priority", "99", NULL);
	expect_usage("--priority: '0'", "--priority", "0", NULL);
	expect_usage("--only: unknown subject 'rts-pi'", "--only", "rts-pip,rts-pi", NULL);
	expect_usage("--only: unknown subject ''", "--only", "rts-pip,", NULL);
	expect_usage("--json takes no value", "--json=yes", NULL);
	expect_usage("exclude each other", "--quick", "--iterations", "500", NULL);
}

static void test_ratio_verdicts(void)
{
	struct lb_ratio q[3] = {
		{ .available = true, .value = 1.19, .target_max = 1.2 },
		{ .available = true, .value = 3.0, .target_max = 0 },
		{ .available = false, .target_max = 1.5 },
	};
	CHECK(strcmp(lb_ratio_verdict(&q[0]), "PASS") == 0);
	CHECK(strcmp(lb_ratio_verdict(&q[1]), "info") == 0);
	CHECK(strcmp(lb_ratio_verdict(&q[2]), "n/a") == 0);
	CHECK(lb_targets_met(q, 3));
	q[0].value = 1.21;
	CHECK(strcmp(lb_ratio_verdict(&q[0]), "MISS") == 0);
	CHECK(!lb_targets_met(q, 3));
	CHECK(!lb_targets_met(&q[1], 2)); /* no targeted ratio measured */

	/* lb_ratios: a ratio of averages, only where both sides were measured. */
	static struct lb_results r;
	memset(&r, 0, sizeof(r));
	r.unc[LB_RTS_PIP].measured = true;
	r.unc[LB_RTS_PIP].pair = (struct lb_dist){ .n = 1, .avg = 60 };
	r.unc[LB_GLIBC_INHERIT].measured = true;
	r.unc[LB_GLIBC_INHERIT].pair = (struct lb_dist){ .n = 1, .avg = 50 };
	struct lb_ratio out[LB_MAX_RATIOS];
	size_t n = lb_ratios(&r, out);
	size_t available = 0;
	for (size_t i = 0; i < n; i++) {
		if (!out[i].available)
			continue;
		available++;
		CHECK(strcmp(out[i].key, "uncontended_pair_rts-pip_vs_glibc-inherit") == 0);
		CHECK_NEAR(out[i].value, 1.2);
		CHECK_NEAR(out[i].target_max, 1.2);
	}
	CHECK(available == 1);
}

/* The workload's task sets: the seed's ranges, rate-monotonic priorities, reproducible. */
static void test_workload_taskset(void)
{
	const int cpus[2] = { 1, 0 };
	struct lb_wl_taskset a, b, c;
	lb_wl_taskset_make(LB_WL_UNIPROCESSOR, cpus, 80, 7, &a);
	lb_wl_taskset_make(LB_WL_UNIPROCESSOR, cpus, 80, 7, &b);
	lb_wl_taskset_make(LB_WL_UNIPROCESSOR, cpus, 80, 8, &c);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	CHECK(memcmp(&a, &c, sizeof(a)) != 0);
	CHECK(a.ntasks == LB_UNI_TASKS);
	bool seen[LB_WL_MAX_TASKS] = { false };
	for (int i = 0; i < a.ntasks; i++) {
		const struct lb_wl_task *t = &a.task[i];
		CHECK(t->cpu == 1);
		CHECK(t->cs_ns >= LB_WL_CS_MIN_US * 1000 && t->cs_ns <= LB_WL_CS_MAX_US * 1000);
		CHECK(t->exec_ns >= t->cs_ns && t->exec_ns <= t->cs_ns + LB_WL_EXTRA_MAX_US * 1000);
		CHECK(t->period_ns >= LB_WL_PERIOD_MIN_US * 1000 * LB_WL_PERIOD_SCALE &&
		      t->period_ns <= LB_WL_PERIOD_MAX_US * 1000 * LB_WL_PERIOD_SCALE);
		CHECK(t->phase_ns < t->period_ns);
		CHECK(t->priority >= 80 && t->priority < 80 + a.ntasks);
		if (t->priority >= 80 && t->priority < 80 + a.ntasks) {
			CHECK(!seen[t->priority - 80]); /* distinct */
			seen[t->priority - 80] = true;
		}
		for (int j = 0; j < a.ntasks; j++) /* rate monotonic */
			if (a.task[j].period_ns < t->period_ns)
				CHECK(a.task[j].priority > t->priority);
	}
	CHECK(a.params.local_ceiling == 80 + a.ntasks - 1);
	CHECK(a.params.global_ceiling == 80 + a.ntasks);
	CHECK(a.params.partition == 1);

	lb_wl_taskset_make(LB_WL_MULTIPROCESSOR, cpus, 80, 7, &a);
	CHECK(a.ntasks == LB_MULTI_TASKS);
	int on_cpu0 = 0;
	for (int i = 0; i < a.ntasks; i++)
		on_cpu0 += a.task[i].cpu == 0;
	CHECK(on_cpu0 == a.ntasks / 2);
}

int main(void)
{
	test_stats_one_to_hundred();
	test_stats_outlier();
	test_stats_small();
	test_stats_scaled();
	test_options_defaults();
	test_options_values();
	test_options_errors();
	test_ratio_verdicts();
	test_workload_taskset();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("lockbench units: all checks passed\n");
	return 0;
}
