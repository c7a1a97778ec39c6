/* SPDX-License-Identifier: MIT */
/* rtsched-calibrate's option parser and sample summaries against known input. */
#include "options.h"
#include "samples.h"

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

#define PARSE(o, err, ...)                                                              \
	({                                                                              \
		char *argv_[] = {"rtsched-calibrate", __VA_ARGS__, NULL};               \
		cal_options_parse((int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_, 4, \
				  (o), (err), sizeof(err));                             \
	})

static void test_defaults(void)
{
	struct cal_options o;
	char err[256] = "";
	char *argv[] = {"rtsched-calibrate", NULL};
	CHECK(cal_options_parse(1, argv, 4, &o, err, sizeof(err)) == CAL_EXIT_OK);
	CHECK(o.cpu == 3); /* the last CPU */
	CHECK(o.priority == CAL_DEFAULT_PRIORITY);
	CHECK(o.samples == CAL_DEFAULT_SAMPLES);
	for (int m = 0; m < CAL_NR_MEASURES; m++)
		CHECK(o.selected[m]);
}

static void test_options(void)
{
	struct cal_options o;
	char err[256] = "";
	CHECK(PARSE(&o, err, "--cpu", "1", "--priority", "50", "--samples", "10", "--only", "trace-event,rpc-call") == 0);
	CHECK(o.cpu == 1 && o.priority == 50 && o.samples == 10);
	CHECK(!o.selected[CAL_CONTEXT_SWITCH] && o.selected[CAL_RPC_CALL] && o.selected[CAL_TRACE_EVENT]);

	CHECK(PARSE(&o, err, "--cpu", "4") == CAL_EXIT_USAGE);
	CHECK(strstr(err, "--cpu: CPU 4 does not exist") != NULL);
	CHECK(PARSE(&o, err, "--priority", "99") == CAL_EXIT_USAGE);
	CHECK(strstr(err, "--priority: '99'") != NULL);
	CHECK(PARSE(&o, err, "--priority", "1") == CAL_EXIT_USAGE); /* the RPC server runs one below */
	CHECK(PARSE(&o, err, "--samples", "9") == CAL_EXIT_USAGE);
	CHECK(strstr(err, "--samples: '9'") != NULL);
	CHECK(PARSE(&o, err, "--only", "") == CAL_EXIT_USAGE);
	CHECK(strstr(err, "--only: unknown measurement ''") != NULL);
	CHECK(PARSE(&o, err, "--bogus") == CAL_EXIT_USAGE);
	CHECK(strstr(err, "--bogus") != NULL);
	CHECK(PARSE(&o, err, "--samples") == CAL_EXIT_USAGE);
	CHECK(PARSE(&o, err, "stray") == CAL_EXIT_USAGE);
	CHECK(strstr(err, "stray") != NULL);
	CHECK(PARSE(&o, err, "--help") == CAL_EXIT_OK && o.help);
}

static void test_summary(void)
{
	struct cal_samples s;
	CHECK(cal_samples_init(&s, 200) == 0);
	for (uint64_t v = 200; v >= 1; v--) /* 1..200, reversed */
		cal_samples_add(&s, v);
	cal_samples_add(&s, 1000); /* beyond capacity: ignored */
	struct cal_summary sum = cal_samples_summarise(&s);
	CHECK(sum.n == 200);
	CHECK(sum.min_ns == 1 && sum.max_ns == 200);
	CHECK(sum.p50_ns == 100); /* nearest rank: ceil(0.5 * 200) = 100 */
	CHECK(sum.p99_ns == 198); /* ceil(0.99 * 200) = 198 */
	CHECK(sum.avg_ns == 100.5);
	cal_samples_free(&s);

	CHECK(cal_samples_init(&s, 3) == 0);
	cal_samples_add(&s, 7);
	sum = cal_samples_summarise(&s);
	CHECK(sum.n == 1 && sum.min_ns == 7 && sum.p50_ns == 7 && sum.p99_ns == 7 && sum.max_ns == 7);
	cal_samples_free(&s);

	CHECK(cal_samples_init(&s, 3) == 0);
	sum = cal_samples_summarise(&s);
	CHECK(sum.n == 0 && sum.max_ns == 0);
	cal_samples_free(&s);
}

int main(void)
{
	test_defaults();
	test_options();
	test_summary();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	puts("calibrate units: ok");
	return 0;
}
