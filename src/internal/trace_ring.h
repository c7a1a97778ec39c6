/* SPDX-License-Identifier: MIT */
/*
 * A single-producer / single-consumer ring of trace events.
 *
 * The producer is the thread bound to the stream, the consumer the drain
 * thread (or rts_trace_close once the drain thread has stopped). head and
 * tail are free-running 64-bit counters (they never wrap in practice: 2^64
 * events); the slot of counter c is slots[c & mask].
 *
 * Invariant: 0 <= head - tail <= capacity, and the slots of counters
 * [tail, head) hold events the producer has finished writing that the
 * consumer has not yet finished reading. Hence:
 *
 *   - Only the producer writes head, only the consumer writes tail, only the
 *     producer writes lost. Each side reads its own counter relaxed.
 *   - Producer: write the slot, THEN publish head + 1 with a release store.
 *     The consumer's acquire load of head therefore sees the slot's bytes.
 *   - Consumer: read (copy or write(2)) the slots, THEN publish the new tail
 *     with a release store. The producer's acquire load of tail therefore
 *     orders its overwrite of a slot after the consumer's read of it.
 *   - The producer keeps a private copy of tail (cached_tail, never ahead of
 *     the real tail) and reloads the real one only when the copy says the
 *     ring is full: the consumer's cache line is touched once per drain, not
 *     once per event.
 *   - A full ring drops the NEW event and counts it in lost (cumulative).
 *
 * Layout: the read-only fields, the producer's and the consumer's fields on
 * three different cache lines, so that the consumer's tail store does not
 * invalidate the line the producer writes on every event.
 */
#ifndef RTS_INTERNAL_TRACE_RING_H
#define RTS_INTERNAL_TRACE_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/trace_format.h"

#define RTS_CACHE_LINE 64

struct rts_trace_ring {
	/* read-only after init */
	struct rts_trace_event_rec *slots;
	uint64_t mask; /* capacity - 1, capacity a power of two */

	/* producer */
	_Alignas(RTS_CACHE_LINE) _Atomic uint64_t head;
	uint64_t cached_tail;
	_Atomic uint64_t lost;

	/* consumer */
	_Alignas(RTS_CACHE_LINE) _Atomic uint64_t tail;
	char pad_[RTS_CACHE_LINE - sizeof(uint64_t)];
};

_Static_assert(sizeof(struct rts_trace_ring) == 3 * RTS_CACHE_LINE, "three cache lines");

static inline void rts_ring_init(struct rts_trace_ring *r, struct rts_trace_event_rec *slots,
				 uint64_t capacity)
{
	r->slots = slots;
	r->mask = capacity - 1;
	atomic_init(&r->head, 0);
	r->cached_tail = 0;
	atomic_init(&r->lost, 0);
	atomic_init(&r->tail, 0);
}

static inline uint64_t rts_ring_capacity(const struct rts_trace_ring *r)
{
	return r->mask + 1;
}

/*
 * Producer: the slot for the next event, or NULL (and the loss counted) when
 * the ring is full. Fill it, then rts_ring_publish().
 */
static inline __attribute__((always_inline)) struct rts_trace_event_rec *
rts_ring_reserve(struct rts_trace_ring *r)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (__builtin_expect(head - r->cached_tail > r->mask, 0)) {
		r->cached_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (head - r->cached_tail > r->mask) {
			uint64_t lost = atomic_load_explicit(&r->lost, memory_order_relaxed);
			atomic_store_explicit(&r->lost, lost + 1, memory_order_relaxed);
			return 0;
		}
	}
	return &r->slots[head & r->mask];
}

static inline __attribute__((always_inline)) void rts_ring_publish(struct rts_trace_ring *r)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
}

static inline bool rts_ring_push(struct rts_trace_ring *r, const struct rts_trace_event_rec *ev)
{
	struct rts_trace_event_rec *slot = rts_ring_reserve(r);
	if (!slot)
		return false;
	*slot = *ev;
	rts_ring_publish(r);
	return true;
}

/*
 * Consumer: the events ready to read, as at most two contiguous segments
 * (the second after the wrap-around). Returns the total; nothing changes in
 * the ring until rts_ring_consume().
 */
static inline uint64_t rts_ring_peek(struct rts_trace_ring *r,
				     const struct rts_trace_event_rec **seg0, uint64_t *n0,
				     const struct rts_trace_event_rec **seg1, uint64_t *n1)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t n = head - tail;
	uint64_t first = tail & r->mask;
	uint64_t to_end = r->mask + 1 - first;
	*seg0 = &r->slots[first];
	*n0 = n < to_end ? n : to_end;
	*seg1 = r->slots;
	*n1 = n - *n0;
	return n;
}

/* Consumer: the first n events reported by rts_ring_peek() are read. */
static inline void rts_ring_consume(struct rts_trace_ring *r, uint64_t n)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	atomic_store_explicit(&r->tail, tail + n, memory_order_release);
}

/* Either side: events dropped so far. */
static inline uint64_t rts_ring_lost(const struct rts_trace_ring *r)
{
	return atomic_load_explicit(&((struct rts_trace_ring *)r)->lost, memory_order_relaxed);
}

#endif
