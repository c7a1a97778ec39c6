/* SPDX-License-Identifier: MIT */
/*
 * The loop's two binary min-heaps, growing on demand:
 * - events, by (time_ns, seq): seq increases with every push, so events of
 *   one time come out in push order (python/rtsched/sim/eventq.py);
 * - a domain's ready threads, by (key, seq, queued): a thread has one live
 *   entry (queued equal to its own count), older ones are stale and skipped
 *   by the loop; two threads never share a seq, so the live order is total.
 * Any correct heap pops the same sequence as Python's heapq on these keys,
 * since no two entries compare equal.
 */
#ifndef RTS_SIM_HEAPS_H
#define RTS_SIM_HEAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sim_event_kind { SIM_RELEASE = 0, SIM_DONE = 2 }; /* eventq.py's RELEASE and DONE */

struct sim_event {
	int64_t time_ns;
	uint64_t seq;
	int64_t arg; /* RELEASE: nominal release (ns); DONE: the thread's version when pushed */
	uint32_t thread;
	uint32_t kind;
};

struct sim_ready {
	int64_t key;
	uint64_t seq;
	uint64_t queued;
	uint32_t thread;
};

struct event_heap {
	struct sim_event *at;
	size_t n, cap;
	uint64_t next_seq;
};

struct ready_heap {
	struct sim_ready *at;
	size_t n, cap;
};

/* Push: 0, or -1 when memory runs out (the heap unchanged). */
int event_heap_push(struct event_heap *h, int64_t time_ns, uint32_t kind, uint32_t thread, int64_t arg);
struct sim_event event_heap_pop(struct event_heap *h); /* h->n > 0 */
int ready_heap_push(struct ready_heap *h, struct sim_ready entry);
void ready_heap_pop(struct ready_heap *h); /* h->n > 0: drops the head */

#endif
