/* SPDX-License-Identifier: MIT */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint64_t lb_percentile_sorted(const uint64_t *sorted, size_t n, double p)
{
	/* ceil(p/100 * n) without floating-point surprises for exact products:
	 * p = 99, n = 100 must give rank 99, not 100. */
	double exact = p * (double)n / 100.0;
	size_t rank = (size_t)ceil(exact - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

struct lb_dist lb_dist_of(uint64_t *samples, size_t n)
{
	struct lb_dist d = { 0 };
	if (n == 0)
		return d;
	qsort(samples, n, sizeof(*samples), cmp_u64);
	long double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += samples[i];
	d.n = n;
	d.avg = (double)(sum / n);
	d.p50 = (double)lb_percentile_sorted(samples, n, 50);
	d.p99 = (double)lb_percentile_sorted(samples, n, 99);
	d.min = (double)samples[0];
	d.max = (double)samples[n - 1];
	return d;
}

struct lb_dist lb_dist_scaled(struct lb_dist d, double factor)
{
	d.avg *= factor;
	d.p50 *= factor;
	d.p99 *= factor;
	d.min *= factor;
	d.max *= factor;
	return d;
}
