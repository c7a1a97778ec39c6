/* SPDX-License-Identifier: MIT */
/*
 * PREM's gate with real threads (no real-time policy, no timing): a
 * peripheral thread marks when it is inside a run span; the main thread
 * closes the gate many times and checks the mark through each whole "memory
 * phase". Also: the execution phase's line orders are permutations, and the
 * memory phase touches every line once.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clock_ns.h"
#include "prem_ops.h"

#define PHASES 3000
#define PHASE_LOOKS 200
#define WAIT_FOREVER_NS (60ll * 1000 * 1000 * 1000)

static int failures;

#define CHECK(cond)                                                                           \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                           \
		}                                                                             \
	} while (0)

struct peripheral {
	struct prem_gate *gate;
	atomic_bool inside; /* set between a successful enter and its leave */
	atomic_bool quit;
	atomic_long spans, held;
};

static void *peripheral_main(void *arg)
{
	struct peripheral *p = arg;
	while (!atomic_load(&p->quit)) {
		if (!prem_gate_enter(p->gate)) {
			atomic_fetch_add(&p->held, 1);
			prem_gate_wait(p->gate);
			continue;
		}
		atomic_store(&p->inside, true);
		atomic_fetch_add(&p->spans, 1);
		for (int chunk = 0; chunk < 50 && !prem_gate_wanted(p->gate); chunk++)
			for (volatile int spin = 0; spin < 100; spin++)
				;
		atomic_store(&p->inside, false);
		prem_gate_leave(p->gate);
	}
	return NULL;
}

static void test_no_span_overlaps_a_memory_phase(void)
{
	static struct prem_gate gate;
	struct peripheral p = { .gate = &gate };
	pthread_t thread;
	CHECK(pthread_create(&thread, NULL, peripheral_main, &p) == 0);
	while (atomic_load(&p.spans) == 0)
		sched_yield(); /* the peripheral is running */
	long overlaps = 0;
	for (int phase = 0; phase < PHASES; phase++) {
		CHECK(prem_gate_close(&gate, clock_ns(CLOCK_MONOTONIC), WAIT_FOREVER_NS));
		for (int look = 0; look < PHASE_LOOKS; look++)
			overlaps += atomic_load(&p.inside);
		prem_gate_open(&gate);
		/* the gate open until the peripheral has begun a new span (or a while, on a busy machine) */
		long before = atomic_load(&p.spans);
		for (int wait = 0; wait < 1000 && atomic_load(&p.spans) == before; wait++)
			sched_yield();
	}
	atomic_store(&p.quit, true);
	CHECK(pthread_join(thread, NULL) == 0);
	CHECK(overlaps == 0);
	CHECK(atomic_load(&p.spans) > PHASES / 10); /* it did run between the phases */
	CHECK(atomic_load(&gate.memory_phases) == 0 && atomic_load(&gate.running) == 0);
}

static void test_a_closed_gate_keeps_a_peripheral_out_and_times_out_on_one_inside(void)
{
	struct prem_gate gate = { 0 };
	CHECK(prem_gate_enter(&gate)); /* a peripheral inside that never leaves */
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	CHECK(!prem_gate_close(&gate, now, 1000000)); /* the wait runs out: forced */
	CHECK(prem_gate_wanted(&gate));
	CHECK(!prem_gate_enter(&gate)); /* no new span while the phase is on */
	prem_gate_leave(&gate);
	prem_gate_open(&gate);
	CHECK(!prem_gate_wanted(&gate) && prem_gate_enter(&gate));
	prem_gate_leave(&gate);
	prem_gate_wait(&gate); /* open: returns at once */
}

static void test_line_orders_are_permutations(void)
{
	const uint64_t counts[] = { 1, 2, 3, 64, 4096, 4097, 65536 };
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		uint64_t n = counts[c];
		unsigned char *seen = calloc(n, 1);
		for (int random_order = 0; random_order < 2; random_order++) {
			for (uint64_t k = 0; k < n; k++)
				seen[k] = 0;
			for (uint64_t k = 0; k < n; k++)
				seen[prem_line_of(k, n, random_order)]++;
			uint64_t once = 0;
			for (uint64_t k = 0; k < n; k++)
				once += seen[k] == 1;
			CHECK(once == n);
		}
		free(seen);
	}
	CHECK(prem_line_of(1, 4096, true) != 1); /* random is not the identity */
}

static void test_the_memory_phase_loads_one_word_per_line(void)
{
	uint64_t buffer[4 * PREM_LINE_WORDS];
	for (size_t w = 0; w < sizeof(buffer) / sizeof(buffer[0]); w++)
		buffer[w] = w % PREM_LINE_WORDS == 0 ? 1000 + w : 1;
	CHECK(prem_touch_lines(buffer, sizeof(buffer)) == 4 * 1000 + 0 + 8 + 16 + 24);
}

int main(void)
{
	test_no_span_overlaps_a_memory_phase();
	test_a_closed_gate_keeps_a_peripheral_out_and_times_out_on_one_inside();
	test_line_orders_are_permutations();
	test_the_memory_phase_loads_one_word_per_line();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
