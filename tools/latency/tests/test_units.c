/* SPDX-License-Identifier: MIT */
/* rtsched-latency: option parsing and the histogram against known input. */
#include "histogram.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                      \
		}                                                                        \
	} while (0)

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static int parse(char *const argv[], int argc, struct lat_options *o, char *err)
{
	err[0] = '\0';
	return lat_options_parse(argc, argv, 2 /* CPUs 0 and 1 */, o, err, 256);
}

static void test_defaults(void)
{
	struct lat_options o;
	char err[256];
	char *argv[] = {"x", NULL};
	CHECK(parse(argv, ARGC(argv), &o, err) == LAT_EXIT_OK);
	CHECK(o.interval_us == 1000 && o.distance_us == 500);
	CHECK(o.policy == RTS_POLICY_FIFO && o.priority == 99);
	CHECK(o.mlock && o.timerslack_ns == -1 && o.dma_latency_us == 0);
	CHECK(lat_thread_interval_ns(&o, 0) == 1000000 && lat_thread_interval_ns(&o, 2) == 2000000);
}

static void test_good(void)
{
	struct lat_options o;
	char err[256];
	char *argv[] = {"x", "--cpus", "1", "--interval-us", "200", "--distance-us", "0", "--policy",
			"deadline", "--duration", "1.5", "--histogram-us", "50", "--output", "f.json",
			"--cpuset", "/a", "--cpuset", "/b", NULL};
	CHECK(parse(argv, ARGC(argv), &o, err) == LAT_EXIT_OK);
	CHECK(rts_cpulist_count(&o.cpus) == 1 && rts_cpulist_has(&o.cpus, 1));
	CHECK(o.interval_us == 200 && o.distance_us == 0 && o.policy == RTS_POLICY_DEADLINE);
	CHECK(o.duration_s == 1.5 && o.histogram_us == 50 && !strcmp(o.output, "f.json"));
	CHECK(o.ncpusets == 2 && !strcmp(o.cpusets[1], "/b"));
}

struct bad_case {
	const char *option;
	const char *value;
	const char *needle; /* in the message */
};

static void test_bad(void)
{
	static const struct bad_case cases[] = {
		{"--cpus", "5-3", "--cpus"},       {"--cpus", "x", "--cpus"},
		{"--cpus", "2", "does not exist"}, {"--interval-us", "0", "--interval-us"},
		{"--interval-us", "-5", "--interval-us"}, {"--duration", "-1", "--duration"},
		{"--duration", "abc", "--duration"}, {"--policy", "rr", "--policy"},
		{"--priority", "0", "--priority"}, {"--priority", "100", "--priority"},
		{"--histogram-us", "0", "--histogram-us"}, {"--frobnicate", "1", "frobnicate"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lat_options o;
		char err[256];
		char *argv[] = {"x", (char *)cases[i].option, (char *)cases[i].value, NULL};
		int rc = parse(argv, ARGC(argv), &o, err);
		CHECK(rc == LAT_EXIT_USAGE);
		if (!strstr(err, cases[i].needle)) {
			fprintf(stderr, "case %s %s: message '%s' lacks '%s'\n", cases[i].option, cases[i].value,
				err, cases[i].needle);
			failures++;
		}
	}
	struct lat_options o;
	char err[256];
	char *prio_other[] = {"x", "--policy", "other", "--priority", "10", NULL};
	CHECK(parse(prio_other, ARGC(prio_other), &o, err) == LAT_EXIT_USAGE && strstr(err, "--priority"));
	char *missing[] = {"x", "--cpus", NULL};
	CHECK(parse(missing, ARGC(missing), &o, err) == LAT_EXIT_USAGE && strstr(err, "--cpus"));
}

static void test_histogram(void)
{
	struct lat_histogram h;
	CHECK(lat_histogram_init(&h, 10) == 0);
	CHECK(lat_histogram_used(&h) == 0);
	lat_histogram_add(&h, 999);   /* bucket 0 */
	lat_histogram_add(&h, 1000);  /* bucket 1 */
	lat_histogram_add(&h, 1999);  /* bucket 1 */
	lat_histogram_add(&h, 9999);  /* bucket 9 */
	lat_histogram_add(&h, 10000); /* overflow */
	lat_histogram_add(&h, 5000000);
	CHECK(h.buckets[0] == 1 && h.buckets[1] == 2 && h.buckets[9] == 1);
	CHECK(h.overflows == 2 && h.samples == 6);
	CHECK(h.min_ns == 999 && h.max_ns == 5000000);
	CHECK(h.sum_ns == 999 + 1000 + 1999 + 9999 + 10000 + 5000000);
	CHECK(lat_histogram_used(&h) == 10);
	lat_histogram_free(&h);
}

int main(void)
{
	test_defaults();
	test_good();
	test_bad();
	test_histogram();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
