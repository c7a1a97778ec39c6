/* SPDX-License-Identifier: MIT */
/* The loop's event heap and ready heaps (heaps.h). */
#include "heaps.h"

#include <stdlib.h>

static bool event_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->seq < b->seq);
}

static bool ready_before(const struct sim_ready *a, const struct sim_ready *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->seq != b->seq)
		return a->seq < b->seq;
	return a->queued < b->queued;
}

static size_t next_cap(size_t cap)
{
	return cap ? cap * 2 : 64;
}

static int grow_events(struct event_heap *h)
{
	size_t cap = next_cap(h->cap);
	struct sim_event *at = realloc(h->at, cap * sizeof(*at));
	if (!at)
		return -1;
	h->at = at;
	h->cap = cap;
	return 0;
}

static int grow_ready(struct ready_heap *h)
{
	size_t cap = next_cap(h->cap);
	struct sim_ready *at = realloc(h->at, cap * sizeof(*at));
	if (!at)
		return -1;
	h->at = at;
	h->cap = cap;
	return 0;
}

int event_heap_push(struct event_heap *h, int64_t time_ns, uint32_t kind, uint32_t thread, int64_t arg)
{
	if (h->n == h->cap && grow_events(h))
		return -1;
	struct sim_event e = {time_ns, h->next_seq++, arg, thread, kind};
	size_t i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!event_before(&e, &h->at[parent]))
			break;
		h->at[i] = h->at[parent];
		i = parent;
	}
	h->at[i] = e;
	return 0;
}

struct sim_event event_heap_pop(struct event_heap *h)
{
	struct sim_event top = h->at[0];
	struct sim_event last = h->at[--h->n];
	size_t i = 0, n = h->n;
	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= n)
			break;
		if (child + 1 < n && event_before(&h->at[child + 1], &h->at[child]))
			child++;
		if (!event_before(&h->at[child], &last))
			break;
		h->at[i] = h->at[child];
		i = child;
	}
	if (n)
		h->at[i] = last;
	return top;
}

int ready_heap_push(struct ready_heap *h, struct sim_ready entry)
{
	if (h->n == h->cap && grow_ready(h))
		return -1;
	size_t i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!ready_before(&entry, &h->at[parent]))
			break;
		h->at[i] = h->at[parent];
		i = parent;
	}
	h->at[i] = entry;
	return 0;
}

void ready_heap_pop(struct ready_heap *h)
{
	struct sim_ready last = h->at[--h->n];
	size_t i = 0, n = h->n;
	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= n)
			break;
		if (child + 1 < n && ready_before(&h->at[child + 1], &h->at[child]))
			child++;
		if (!ready_before(&h->at[child], &last))
			break;
		h->at[i] = h->at[child];
		i = child;
	}
	if (n)
		h->at[i] = last;
}
