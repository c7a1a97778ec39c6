/* SPDX-License-Identifier: MIT */
/* A latency histogram: 1 us buckets up to a limit, an overflow count, exact min/max/sum in ns. */
#ifndef LATENCY_HISTOGRAM_H
#define LATENCY_HISTOGRAM_H

#include <stdint.h>

struct lat_histogram {
	uint64_t *buckets;  /* buckets[i]: samples with i us <= latency < i+1 us */
	uint64_t nbuckets;
	uint64_t overflows; /* samples >= nbuckets us */
	uint64_t samples;
	uint64_t min_ns, max_ns;
	uint64_t sum_ns;
};

/* Allocate and touch every bucket (so mlockall'd pages are resident). 0 or ENOMEM. */
int lat_histogram_init(struct lat_histogram *h, uint64_t nbuckets);
void lat_histogram_free(struct lat_histogram *h);
void lat_histogram_add(struct lat_histogram *h, uint64_t latency_ns);
/* Index of the last non-empty bucket + 1 (0 when empty): the part worth printing. */
uint64_t lat_histogram_used(const struct lat_histogram *h);

#endif
