/* SPDX-License-Identifier: MIT */
/* The shared tool helpers against known input. */
#include "cpulist.h"
#include "jsonw.h"
#include "opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                              \
		}                                                                \
	} while (0)

static void test_cpulist_good(void)
{
	struct rts_cpulist set;
	char err[128];
	int cpus[8];
	CHECK(rts_cpulist_parse("0", &set, err, sizeof(err)) == 0);
	CHECK(rts_cpulist_count(&set) == 1 && rts_cpulist_has(&set, 0));
	CHECK(rts_cpulist_parse("0,2-4,7\n", &set, err, sizeof(err)) == 0);
	CHECK(rts_cpulist_to_array(&set, cpus, 8) == 5);
	CHECK(cpus[0] == 0 && cpus[1] == 2 && cpus[2] == 3 && cpus[3] == 4 && cpus[4] == 7);
	CHECK(!rts_cpulist_has(&set, 1) && !rts_cpulist_has(&set, -1) && !rts_cpulist_has(&set, 5000));
	CHECK(rts_cpulist_parse("3-3", &set, err, sizeof(err)) == 0 && rts_cpulist_count(&set) == 1);
}

static void test_cpulist_bad(void)
{
	struct rts_cpulist set;
	char err[128];
	const char *bad[] = {"", "x", "5-3", "1,", ",1", "1-", "-1", "1 2", "99999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CHECK(rts_cpulist_parse(bad[i], &set, err, sizeof(err)) == EINVAL);
		CHECK(err[0] != '\0');
	}
	CHECK(rts_cpulist_parse("5-3", &set, err, sizeof(err)) == EINVAL);
	CHECK(strstr(err, "5-3") != NULL);
}

static void test_opts_numbers(void)
{
	uint64_t u = 0;
	double d = 0;
	CHECK(opts_parse_u64("42", 1, 99, &u) == 0 && u == 42);
	const char *bad_u64[] = {"", "-1", "+1", " 1", "1x", "0", "100", "99999999999999999999"};
	for (size_t i = 0; i < sizeof(bad_u64) / sizeof(bad_u64[0]); i++)
		CHECK(opts_parse_u64(bad_u64[i], 1, 99, &u) == EINVAL);
	CHECK(opts_parse_u64(NULL, 1, 99, &u) == EINVAL);
	CHECK(opts_parse_double("0.25", 0, 1, &d) == 0 && d == 0.25);
	const char *bad_double[] = {"", "x", "1.5", "-0.1", "nan", "inf", "0.5s"};
	for (size_t i = 0; i < sizeof(bad_double) / sizeof(bad_double[0]); i++)
		CHECK(opts_parse_double(bad_double[i], 0, 1, &d) == EINVAL);
	CHECK(opts_parse_double(NULL, 0, 1, &d) == EINVAL);
}

static void test_json(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jw w;
	jw_init(&w, f);
	jw_object_begin(&w);
	jw_key(&w, "a");
	jw_int(&w, -3);
	jw_key(&w, "b\"");
	jw_array_begin(&w);
	jw_uint(&w, 1);
	jw_bool(&w, true);
	jw_null(&w);
	jw_array_end(&w);
	jw_key(&w, "c");
	jw_object_begin(&w);
	jw_object_end(&w);
	jw_object_end(&w);
	fclose(f);
	CHECK(!strcmp(buf, "{\"a\":-3,\"b\\\"\":[1,true,null],\"c\":{}}"));
	free(buf);
}

int main(void)
{
	test_cpulist_good();
	test_cpulist_bad();
	test_opts_numbers();
	test_json();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
