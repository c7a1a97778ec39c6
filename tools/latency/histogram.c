/* SPDX-License-Identifier: MIT */
#include "histogram.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int lat_histogram_init(struct lat_histogram *h, uint64_t nbuckets)
{
	memset(h, 0, sizeof(*h));
	h->buckets = calloc(nbuckets, sizeof(h->buckets[0]));
	if (!h->buckets)
		return ENOMEM;
	memset(h->buckets, 0, nbuckets * sizeof(h->buckets[0])); /* fault the pages in now */
	h->nbuckets = nbuckets;
	h->min_ns = UINT64_MAX;
	return 0;
}

void lat_histogram_free(struct lat_histogram *h)
{
	free(h->buckets);
	h->buckets = NULL;
}

void lat_histogram_add(struct lat_histogram *h, uint64_t latency_ns)
{
	uint64_t us = latency_ns / 1000u;
	if (us < h->nbuckets)
		h->buckets[us]++;
	else
		h->overflows++;
	h->samples++;
	h->sum_ns += latency_ns;
	if (latency_ns < h->min_ns)
		h->min_ns = latency_ns;
	if (latency_ns > h->max_ns)
		h->max_ns = latency_ns;
}

uint64_t lat_histogram_used(const struct lat_histogram *h)
{
	uint64_t n = h->nbuckets;
	while (n > 0 && h->buckets[n - 1] == 0)
		n--;
	return n;
}
