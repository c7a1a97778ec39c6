/* SPDX-License-Identifier: MIT */
#include "samples.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cal_samples_init(struct cal_samples *s, uint64_t capacity)
{
	memset(s, 0, sizeof(*s));
	s->ns = calloc(capacity ? capacity : 1, sizeof(*s->ns));
	if (!s->ns)
		return ENOMEM;
	s->capacity = capacity;
	return 0;
}

void cal_samples_free(struct cal_samples *s)
{
	free(s->ns);
	memset(s, 0, sizeof(*s));
}

void cal_samples_add(struct cal_samples *s, uint64_t ns)
{
	if (s->n < s->capacity)
		s->ns[s->n++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: the sample at 1-based rank ceil(p/100 * n). */
static uint64_t rank(const struct cal_samples *s, unsigned percent)
{
	uint64_t r = (s->n * percent + 99) / 100;
	return s->ns[(r ? r : 1) - 1];
}

struct cal_summary cal_samples_summarise(struct cal_samples *s)
{
	struct cal_summary sum = {0};
	if (!s->n)
		return sum;
	qsort(s->ns, s->n, sizeof(*s->ns), cmp_u64);
	double total = 0;
	for (uint64_t i = 0; i < s->n; i++)
		total += (double)s->ns[i];
	sum.n = s->n;
	sum.min_ns = s->ns[0];
	sum.p50_ns = rank(s, 50);
	sum.p99_ns = rank(s, 99);
	sum.max_ns = s->ns[s->n - 1];
	sum.avg_ns = total / (double)s->n;
	return sum;
}

uint64_t cal_samples_median(struct cal_samples *s)
{
	return s->n ? cal_samples_summarise(s).p50_ns : 0;
}
