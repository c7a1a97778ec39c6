/* SPDX-License-Identifier: MIT */
#include "cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BITS_PER_WORD (8 * sizeof(unsigned long))

bool rts_cpulist_has(const struct rts_cpulist *set, int cpu)
{
	if (cpu < 0 || cpu >= RTS_CPULIST_MAX)
		return false;
	return (set->bits[cpu / BITS_PER_WORD] >> (cpu % BITS_PER_WORD)) & 1ul;
}

void rts_cpulist_add(struct rts_cpulist *set, int cpu)
{
	if (cpu >= 0 && cpu < RTS_CPULIST_MAX)
		set->bits[cpu / BITS_PER_WORD] |= 1ul << (cpu % BITS_PER_WORD);
}

int rts_cpulist_count(const struct rts_cpulist *set)
{
	int n = 0;
	for (size_t i = 0; i < sizeof(set->bits) / sizeof(set->bits[0]); i++)
		n += __builtin_popcountl(set->bits[i]);
	return n;
}

int rts_cpulist_to_array(const struct rts_cpulist *set, int *cpus, int max)
{
	int n = 0;
	for (int cpu = 0; cpu < RTS_CPULIST_MAX; cpu++) {
		if (!rts_cpulist_has(set, cpu))
			continue;
		if (n < max)
			cpus[n] = cpu;
		n++;
	}
	return n;
}

/* One non-negative decimal number at *p; advances *p. -1 if there is none. */
static long parse_number(const char **p)
{
	const char *s = *p;
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno)
		return RTS_CPULIST_MAX; /* out of range: caught by the caller */
	*p = end;
	return v;
}

int rts_cpulist_parse(const char *text, struct rts_cpulist *set, char *err, size_t err_size)
{
	memset(set, 0, sizeof(*set));
	const char *p = text;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n') {
		snprintf(err, err_size, "empty CPU list");
		return EINVAL;
	}
	for (;;) {
		long first = parse_number(&p);
		if (first < 0) {
			snprintf(err, err_size, "'%s' is not a CPU list (expected e.g. 0,2-3)", text);
			return EINVAL;
		}
		long last = first;
		if (*p == '-') {
			p++;
			last = parse_number(&p);
			if (last < 0) {
				snprintf(err, err_size, "'%s' is not a CPU list (expected e.g. 0,2-3)", text);
				return EINVAL;
			}
			if (last < first) {
				snprintf(err, err_size, "reversed range %ld-%ld in CPU list '%s'", first, last, text);
				return EINVAL;
			}
		}
		if (last >= RTS_CPULIST_MAX) {
			snprintf(err, err_size, "CPU %ld in '%s' is beyond %d", last, text, RTS_CPULIST_MAX - 1);
			return EINVAL;
		}
		for (long cpu = first; cpu <= last; cpu++)
			rts_cpulist_add(set, (int)cpu);
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		if (*p != '\0') {
			snprintf(err, err_size, "'%s' is not a CPU list (expected e.g. 0,2-3)", text);
			return EINVAL;
		}
		return 0;
	}
}
