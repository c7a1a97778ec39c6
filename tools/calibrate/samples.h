/* SPDX-License-Identifier: MIT */
/* Samples of one measurement (ns) and their summary. */
#ifndef CALIBRATE_SAMPLES_H
#define CALIBRATE_SAMPLES_H

#include <stdint.h>

struct cal_samples {
	uint64_t *ns;  /* ns[0 .. n-1] */
	uint64_t n;
	uint64_t capacity;
};

struct cal_summary {
	uint64_t n;
	uint64_t min_ns, p50_ns, p99_ns, max_ns;
	double avg_ns;
};

/* Room for capacity samples: 0 or ENOMEM. */
int cal_samples_init(struct cal_samples *s, uint64_t capacity);
void cal_samples_free(struct cal_samples *s);
/* Append one sample (ignored once capacity is reached). */
void cal_samples_add(struct cal_samples *s, uint64_t ns);
/*
 * Sorts the samples and summarises them: percentiles by nearest rank (the
 * p99 is the smallest sample with at least 99% of the samples at or below
 * it), so min <= p50 <= p99 <= max. n == 0 gives an all-zero summary.
 */
struct cal_summary cal_samples_summarise(struct cal_samples *s);
/* The median of the samples (sorts them); 0 if there are none. */
uint64_t cal_samples_median(struct cal_samples *s);

#endif
