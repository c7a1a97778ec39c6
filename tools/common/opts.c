/* SPDX-License-Identifier: MIT */
#include "opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int opts_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!text || text[0] < '0' || text[0] > '9')
		return EINVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return EINVAL;
	*out = v;
	return 0;
}

int opts_parse_double(const char *text, double min, double max, double *out)
{
	if (!text)
		return EINVAL;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v < min || v > max)
		return EINVAL;
	*out = v;
	return 0;
}

void opts_bad_option(int c, char *const argv[], char *err, size_t err_size)
{
	if (c == ':')
		snprintf(err, err_size, "%s needs a value", argv[optind - 1]);
	else
		snprintf(err, err_size, "unknown option '%s'", argv[optind - 1]);
}

int opts_no_operands(int argc, char *const argv[], char *err, size_t err_size)
{
	if (optind >= argc)
		return 0;
	snprintf(err, err_size, "unexpected argument '%s'", argv[optind]);
	return EINVAL;
}
