/* SPDX-License-Identifier: MIT */
/* Summary statistics of a set of samples (cycles). */
#ifndef LOCKBENCH_STATS_H
#define LOCKBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* avg, median, 99th percentile, min and max, in the unit of the samples. */
struct lb_dist {
	size_t n; /* 0: nothing measured; the other fields are then 0 */
	double avg;
	double p50;
	double p99;
	double min;
	double max;
};

/*
 * Summarise samples[0..n). Sorts samples in place. Percentiles use the
 * nearest-rank definition: the p-th percentile is the smallest sample such
 * that at least p% of the samples are <= it (sorted[ceil(p/100 * n) - 1]).
 */
struct lb_dist lb_dist_of(uint64_t *samples, size_t n);

/* The nearest-rank p-th percentile (0 < p <= 100) of sorted[0..n), n > 0. */
uint64_t lb_percentile_sorted(const uint64_t *sorted, size_t n, double p);

/* Every field multiplied by factor (e.g. 1/batch, or ns per cycle). */
struct lb_dist lb_dist_scaled(struct lb_dist d, double factor);

#endif
