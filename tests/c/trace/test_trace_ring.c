/* SPDX-License-Identifier: MIT */
/*
 * The SPSC ring of the trace (src/internal/trace_ring.h) on its own:
 * wrap-around, a full ring drops the new event and counts it, and a
 * producer/consumer pair loses nothing it does not count, tears no event and
 * reorders nothing (run under TSan too: the release/acquire pairs are the
 * only synchronization).
 */
#include "harness.h"

#include "internal/trace_ring.h"

static struct rts_trace_event_rec make(uint64_t seq)
{
	struct rts_trace_event_rec ev = {
		.time_ns = (int64_t)seq,
		.type = (uint16_t)(seq % 64 + 1),
		.cpu = (uint16_t)(seq % 7),
		.job = (uint32_t)seq,
		.arg0 = (uint32_t)(seq * 3),
		.arg1 = -(int64_t)seq,
	};
	return ev;
}

/* Every field of ev is the one make(seq) wrote: no torn event. */
static void check_event(const struct rts_trace_event_rec *ev, uint64_t seq)
{
	struct rts_trace_event_rec want = make(seq);
	CHECK_MSG(memcmp(ev, &want, sizeof(want)) == 0,
		  "event %llu: got time %lld type %u job %u arg0 %u arg1 %lld",
		  (unsigned long long)seq, (long long)ev->time_ns, ev->type, ev->job, ev->arg0,
		  (long long)ev->arg1);
}

/* Consume everything, checking it is seq, seq + 1, ...; returns the next seq. */
static uint64_t drain_check(struct rts_trace_ring *r, uint64_t seq)
{
	const struct rts_trace_event_rec *s0, *s1;
	uint64_t n0, n1;
	uint64_t n = rts_ring_peek(r, &s0, &n0, &s1, &n1);
	CHECK_EQ(n, n0 + n1);
	for (uint64_t i = 0; i < n0; i++)
		check_event(&s0[i], seq++);
	for (uint64_t i = 0; i < n1; i++)
		check_event(&s1[i], seq++);
	rts_ring_consume(r, n);
	return seq;
}

static void test_empty_ring(void)
{
	struct rts_trace_event_rec slots[8];
	struct rts_trace_ring r;
	rts_ring_init(&r, slots, 8);
	const struct rts_trace_event_rec *s0, *s1;
	uint64_t n0, n1;
	CHECK_EQ(rts_ring_peek(&r, &s0, &n0, &s1, &n1), 0);
	CHECK_EQ(n0, 0);
	CHECK_EQ(n1, 0);
	CHECK_EQ(rts_ring_capacity(&r), 8);
	CHECK_EQ(rts_ring_lost(&r), 0);
}

static void test_wrap_around(void)
{
	struct rts_trace_event_rec slots[8];
	struct rts_trace_ring r;
	rts_ring_init(&r, slots, 8);
	uint64_t pushed = 0, seq = 0;
	for (int i = 0; i < 5; i++) {
		struct rts_trace_event_rec ev = make(pushed++);
		CHECK(rts_ring_push(&r, &ev));
	}
	seq = drain_check(&r, seq);
	CHECK_EQ(seq, 5);
	/* Now 8 events from slot 5: 3 to the end, 5 after the wrap. */
	for (int i = 0; i < 8; i++) {
		struct rts_trace_event_rec ev = make(pushed++);
		CHECK(rts_ring_push(&r, &ev));
	}
	const struct rts_trace_event_rec *s0, *s1;
	uint64_t n0, n1;
	CHECK_EQ(rts_ring_peek(&r, &s0, &n0, &s1, &n1), 8);
	CHECK_EQ(n0, 3);
	CHECK_EQ(n1, 5);
	CHECK(s0 == &slots[5]);
	CHECK(s1 == &slots[0]);
	seq = drain_check(&r, seq);
	CHECK_EQ(seq, 13);
	CHECK_EQ(rts_ring_lost(&r), 0);
	/* Many laps, varying fill levels. */
	for (int lap = 0; lap < 1000; lap++) {
		int k = lap % 9;
		for (int i = 0; i < k; i++) {
			struct rts_trace_event_rec ev = make(pushed++);
			CHECK(rts_ring_push(&r, &ev));
		}
		seq = drain_check(&r, seq);
	}
	CHECK_EQ(seq, pushed);
}

static void test_full_ring_drops_and_counts(void)
{
	struct rts_trace_event_rec slots[8];
	struct rts_trace_ring r;
	rts_ring_init(&r, slots, 8);
	for (uint64_t i = 0; i < 10; i++) {
		struct rts_trace_event_rec ev = make(i);
		CHECK_EQ(rts_ring_push(&r, &ev), i < 8);
	}
	CHECK_EQ(rts_ring_lost(&r), 2);
	/* The first 8 are kept (the new events are the ones dropped). */
	const struct rts_trace_event_rec *s0, *s1;
	uint64_t n0, n1;
	CHECK_EQ(rts_ring_peek(&r, &s0, &n0, &s1, &n1), 8);
	for (uint64_t i = 0; i < 8; i++)
		check_event(&s0[i], i);
	rts_ring_consume(&r, 3);
	for (uint64_t i = 100; i < 104; i++) {
		struct rts_trace_event_rec ev = make(i);
		CHECK_EQ(rts_ring_push(&r, &ev), i < 103);
	}
	CHECK_EQ(rts_ring_lost(&r), 3);
	CHECK_EQ(rts_ring_peek(&r, &s0, &n0, &s1, &n1), 8);
	CHECK_EQ(n0, 5);
	CHECK_EQ(n1, 3);
	for (uint64_t i = 0; i < 5; i++)
		check_event(&s0[i], 3 + i);
	for (uint64_t i = 0; i < 3; i++)
		check_event(&s1[i], 100 + i);
}

/* ---- producer / consumer pair ------------------------------------------- */

struct pair {
	struct rts_trace_ring ring;
	uint64_t n_events;
	bool backpressure; /* the producer waits for room instead of dropping */
	atomic_bool producer_done;
	uint64_t received;
	uint64_t consumer_batches;
};

static void *producer(void *arg)
{
	struct pair *p = arg;
	for (uint64_t seq = 0; seq < p->n_events; seq++) {
		if (p->backpressure) {
			/* Wait for room (test-only: the real producer never waits). */
			uint64_t head = atomic_load_explicit(&p->ring.head, memory_order_relaxed);
			while (head - atomic_load_explicit(&p->ring.tail, memory_order_acquire) >
			       p->ring.mask)
				sched_yield();
		} else if (seq % 4096 == 0) {
			sched_yield(); /* let the consumer in now and then */
		}
		struct rts_trace_event_rec *slot = rts_ring_reserve(&p->ring);
		if (!slot)
			continue; /* counted in lost */
		/* Field by field, as the library does: GCC's TSan does not
		 * instrument a whole-struct copy, and the test would then miss a
		 * missing release (checked: a relaxed publish is reported). */
		struct rts_trace_event_rec e = make(seq);
		slot->time_ns = e.time_ns;
		slot->type = e.type;
		slot->cpu = e.cpu;
		slot->job = e.job;
		slot->arg0 = e.arg0;
		slot->reserved = e.reserved;
		slot->arg1 = e.arg1;
		rts_ring_publish(&p->ring);
	}
	atomic_store_explicit(&p->producer_done, true, memory_order_release);
	return NULL;
}

static void consume_some(struct pair *p, uint64_t *last_seq, bool *any)
{
	const struct rts_trace_event_rec *s0, *s1;
	uint64_t n0, n1;
	uint64_t n = rts_ring_peek(&p->ring, &s0, &n0, &s1, &n1);
	for (uint64_t i = 0; i < n; i++) {
		const struct rts_trace_event_rec *ev = i < n0 ? &s0[i] : &s1[i - n0];
		uint64_t seq = (uint64_t)ev->time_ns;
		check_event(ev, seq);
		/* Drops leave gaps, but the order is kept. */
		if (*any)
			CHECK_MSG(seq > *last_seq, "event %llu after %llu", (unsigned long long)seq,
				  (unsigned long long)*last_seq);
		*last_seq = seq;
		*any = true;
	}
	rts_ring_consume(&p->ring, n);
	p->received += n;
	if (n)
		p->consumer_batches++;
}

static void *consumer(void *arg)
{
	struct pair *p = arg;
	uint64_t last_seq = 0;
	bool any = false;
	while (!atomic_load_explicit(&p->producer_done, memory_order_acquire)) {
		consume_some(p, &last_seq, &any);
		sched_yield();
	}
	consume_some(p, &last_seq, &any); /* what was published before done */
	return NULL;
}

static void run_pair(uint64_t capacity, uint64_t n_events, bool backpressure)
{
	struct pair *p = calloc(1, sizeof(*p));
	struct rts_trace_event_rec *slots = calloc(capacity, sizeof(*slots));
	CHECK(p && slots);
	rts_ring_init(&p->ring, slots, capacity);
	p->n_events = n_events;
	p->backpressure = backpressure;
	pthread_t prod, cons;
	CHECK_OK(pthread_create(&cons, NULL, consumer, p));
	CHECK_OK(pthread_create(&prod, NULL, producer, p));
	h_join(prod, 30000);
	h_join(cons, 30000);
	uint64_t lost = rts_ring_lost(&p->ring);
	H_LOG("capacity %llu: %llu received in %llu batches, %llu lost",
	      (unsigned long long)capacity, (unsigned long long)p->received,
	      (unsigned long long)p->consumer_batches, (unsigned long long)lost);
	CHECK_EQ(p->received + lost, n_events);
	CHECK_GT(p->received, 0);
	if (backpressure) {
		CHECK_EQ(lost, 0);
		CHECK_GT(p->consumer_batches, n_events / capacity - 1); /* many laps */
	}
	free(slots);
	free(p);
}

static uint64_t pair_events(void)
{
	return H_TSAN ? 200000 : 2000000;
}

/* Every event arrives, in order, untorn, through many laps of a small ring. */
static void test_spsc_lossless_small_ring(void)
{
	run_pair(64, pair_events(), true);
}

/* A producer faster than the consumer: what arrives is in order and untorn,
 * and what does not is counted. */
static void test_spsc_dropping_small_ring(void)
{
	run_pair(64, pair_events(), false);
}

static void test_spsc_dropping_large_ring(void)
{
	run_pair(1u << 16, pair_events(), false);
}

static const struct h_case cases[] = {
	H_CASE(test_empty_ring, 5000),
	H_CASE(test_wrap_around, 5000),
	H_CASE(test_full_ring_drops_and_counts, 5000),
	H_CASE(test_spsc_lossless_small_ring, 60000),
	H_CASE(test_spsc_dropping_small_ring, 60000),
	H_CASE(test_spsc_dropping_large_ring, 60000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
