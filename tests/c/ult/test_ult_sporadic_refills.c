/* SPDX-License-Identifier: MIT */
/*
 * A sporadic reservation's refills (src/ult/sporadic_reservation.c) driven
 * directly, with exact times, as the cluster's decisions drive them: the
 * simulator's hand-computed schedules (tests/python/test_sim_sporadic_reservations.py)
 * give the same refills, replenishments and depletions to the nanosecond;
 * what a real run adds is checked too: a run that overran its eligible
 * budget (a late decision) takes the excess from the next refill and posts
 * it after it, and with the refill list full a posting merges into the last
 * at the later time. On generated runs the refills keep their invariants
 * (sorted, distinct times, positive amounts summing to the budget), what
 * comes back never exceeds what ran (no budget created), and every amount
 * that becomes eligible again is counted as a replenishment once.
 */
#include <rtsched/reservation.h>

#include "harness.h"
#include "internal/sporadic_reservation.h"
#include "internal/ult.h"

#define MS (1000 * 1000LL)
#define US (1000LL)
#define BASE (1000 * MS) /* t0: CLOCK_MONOTONIC-like times, far from 0 */

static struct rts_reservation server(int64_t period_ns, int64_t budget_ns)
{
	struct rts_reservation r = {.period_ns = period_ns, .budget_ns = budget_ns,
				    .kind = RTS_RESERVATION_SPORADIC};
	CHECK_OK(rts_ult_sporadic_create(&r));
	return r;
}

/* The run since the decision that entered r, charged at now_ns: its wall time (here the
 * worker is never preempted, so its CPU time is the same). */
static void stop_at(struct rts_reservation *r, int64_t now_ns)
{
	int64_t since = r->sporadic->running_since_ns;
	rts_ult_sporadic_stop(r, since < 0 ? 0 : now_ns - since, now_ns);
}

/* A decision at BASE + at_ns: the run since the last one is charged, then the server sees
 * whether a task inside is ready and, if `runs`, is entered. */
static void decide(struct rts_reservation *r, int64_t at_ns, bool backlogged, bool runs)
{
	stop_at(r, BASE + at_ns);
	rts_ult_sporadic_update(r, backlogged, BASE, BASE + at_ns);
	if (runs) {
		CHECK_GT(r->remaining_ns, 0);
		rts_ult_sporadic_start(r, BASE + at_ns);
	}
}

/* The refills are exactly want[] (times after t0). */
static void check_refills(const struct rts_reservation *r, const int64_t (*want)[2], size_t n)
{
	const struct rts_sporadic_state *s = r->sporadic;
	CHECK_EQ(s->n_refills, n);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ(s->refills[i].at_ns - BASE, want[i][0]);
		CHECK_EQ(s->refills[i].amount_ns, want[i][1]);
	}
}

/* Sorted, distinct times, positive amounts summing to the budget. */
static void check_invariants(const struct rts_reservation *r)
{
	const struct rts_sporadic_state *s = r->sporadic;
	int64_t sum = 0;
	CHECK_GE(s->n_refills, 1);
	CHECK_LE(s->n_refills, RTS_SPORADIC_MAX_REFILLS);
	for (size_t i = 0; i < s->n_refills; i++) {
		CHECK_GT(s->refills[i].amount_ns, 0);
		if (i)
			CHECK_LT(s->refills[i - 1].at_ns, s->refills[i].at_ns);
		sum += s->refills[i].amount_ns;
	}
	CHECK_EQ(sum, r->budget_ns);
}

/* The simulator's first case: server 4 ms / 10 ms; a1 1 ms at 1, a2 2 ms at 5, a3 3 ms at 8. */
static void test_each_chunk_back_one_period_after_its_own_activation(void)
{
	struct rts_reservation r = server(10 * MS, 4 * MS);
	decide(&r, 0, false, false);
	CHECK_EQ(r.stats.replenishments, 1); /* t0, the whole budget */
	decide(&r, 1 * MS, true, true);      /* a1 */
	decide(&r, 2 * MS, false, false);
	decide(&r, 5 * MS, true, true);      /* a2 */
	decide(&r, 7 * MS, false, false);
	decide(&r, 8 * MS, true, true);      /* a3: 1 ms left */
	CHECK_EQ(r.remaining_ns, 1 * MS);
	decide(&r, 9 * MS, true, false);     /* depleted, waits */
	CHECK_EQ(r.stats.depletions, 1);
	check_refills(&r, (const int64_t[][2]){{11 * MS, 1 * MS}, {15 * MS, 2 * MS}, {18 * MS, 1 * MS}}, 3);
	decide(&r, 11 * MS, true, true);     /* 1 ms back, posted at 11 + 10, not 8 + 10 */
	CHECK_EQ(r.stats.replenishments, 2);
	decide(&r, 12 * MS, true, false);
	CHECK_EQ(r.stats.depletions, 2);
	decide(&r, 15 * MS, true, true);
	decide(&r, 16 * MS, false, false);   /* a3 done */
	check_refills(&r, (const int64_t[][2]){{15 * MS, 1 * MS}, {18 * MS, 1 * MS}, {21 * MS, 1 * MS},
					       {25 * MS, 1 * MS}}, 4);
	decide(&r, 18 * MS, false, false);
	decide(&r, 21 * MS, false, false);
	decide(&r, 25 * MS, false, false);
	CHECK_EQ(r.stats.replenishments, 6);
	CHECK_EQ(r.stats.consumed_ns, 6 * MS);
	CHECK_EQ(r.remaining_ns, 4 * MS);
	free(r.sporadic);
}

/* The second: a higher task preempts the run 1..3; 4 ms come back at 10, not the 6 ms spanned. */
static void test_what_comes_back_is_what_ran(void)
{
	struct rts_reservation r = server(10 * MS, 4 * MS);
	decide(&r, 0, true, true);
	decide(&r, 1 * MS, true, false); /* hi runs */
	decide(&r, 3 * MS, true, true);
	CHECK_EQ(r.remaining_ns, 3 * MS);
	decide(&r, 6 * MS, true, false);
	check_refills(&r, (const int64_t[][2]){{10 * MS, 4 * MS}}, 1);
	decide(&r, 10 * MS, true, true);
	CHECK_EQ(r.stats.replenishments, 2);
	CHECK_EQ(r.remaining_ns, 4 * MS);
	decide(&r, 14 * MS, true, false);
	decide(&r, 20 * MS, true, true);
	decide(&r, 22 * MS, false, false);
	check_refills(&r, (const int64_t[][2]){{20 * MS, 2 * MS}, {30 * MS, 2 * MS}}, 2);
	CHECK_EQ(r.stats.depletions, 2);
	CHECK_EQ(r.stats.consumed_ns, 10 * MS);
	free(r.sporadic);
}

/* A run that overran its eligible 3 ms by 0.2 ms takes it from the refill at 10, which comes
 * back 0.8 ms; the 0.2 ms is posted at 10 + 10. */
static void test_an_overrun_defers_the_next_refill(void)
{
	struct rts_reservation r = server(10 * MS, 4 * MS);
	decide(&r, 0, true, true);
	decide(&r, 1 * MS, false, false);
	decide(&r, 2 * MS, true, true);
	CHECK_EQ(r.remaining_ns, 3 * MS);
	decide(&r, 5 * MS + 200 * US, true, false);
	CHECK_EQ(r.stats.depletions, 1);
	check_refills(&r, (const int64_t[][2]){{10 * MS, 800 * US}, {12 * MS, 3 * MS}, {20 * MS, 200 * US}}, 3);
	decide(&r, 10 * MS, true, true);
	CHECK_EQ(r.remaining_ns, 800 * US);
	free(r.sporadic);
}

/* Beyond RTS_SPORADIC_MAX_REFILLS pending refills, a posting merges into the last at the later time. */
static void test_a_full_list_merges_into_the_last(void)
{
	struct rts_reservation r = server(10 * MS, 1 * MS);
	decide(&r, 0, false, false);
	for (int k = 0; k < RTS_SPORADIC_MAX_REFILLS + 5; k++) { /* a 1 us run every 10 us */
		decide(&r, k * 10 * US, true, true);
		decide(&r, k * 10 * US + 1 * US, false, false);
		check_invariants(&r);
	}
	const struct rts_sporadic_state *s = r.sporadic;
	CHECK_EQ(s->n_refills, RTS_SPORADIC_MAX_REFILLS);
	/* the last holds k = 62's posting and the 6 from k = 63 on, at the latest one's time */
	CHECK_EQ(s->refills[s->n_refills - 1].at_ns - BASE, (RTS_SPORADIC_MAX_REFILLS + 4) * 10 * US + 10 * MS);
	CHECK_EQ(s->refills[s->n_refills - 1].amount_ns, 7 * US);
	free(r.sporadic);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static int64_t draw(int64_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (int64_t)(rng % (uint64_t)n);
}

/* The budget eligible at BASE + at_ns. */
static int64_t eligible_at(const struct rts_reservation *r, int64_t at_ns)
{
	int64_t sum = 0;
	for (size_t i = 0; i < r->sporadic->n_refills; i++)
		if (r->sporadic->refills[i].at_ns <= BASE + at_ns)
			sum += r->sporadic->refills[i].amount_ns;
	return sum;
}

/*
 * Generated runs: arrivals, completions, preemptions, each run stopped as the
 * runtime stops it (its eligible budget used up, or the next refill) or
 * earlier, and sometimes late by up to 50 us (within the whole budget): the
 * excess is borrowed from refills not yet eligible.
 */
static void test_generated_runs_keep_the_invariants(void)
{
	int64_t all_borrowed = 0;
	uint32_t all_replenishments = 0;
	for (int round = 0; round < 200; round++) {
		int64_t period = (1 + draw(20)) * MS, budget = 1 + draw(period);
		struct rts_reservation r = server(period, budget);
		int64_t now = 0, came_back = 0, ran = 0, borrowed = 0;
		uint32_t replenishments = 0;
		bool backlogged = false, running = false;
		decide(&r, now, false, false);
		for (int step = 0; step < 400; step++) {
			int64_t next = now + 1 + draw(3 * MS);
			if (running) {
				int64_t limit = r.remaining_ns, refill = rts_ult_sporadic_next_ns(&r, BASE, BASE + now);
				if (refill - BASE - now < limit)
					limit = refill - BASE - now;
				limit += draw(4) ? 0 : 50 * US;
				next = now + 1 + draw(limit < budget ? limit : budget);
				int64_t over = next - now - eligible_at(&r, next);
				borrowed += over > 0 ? over : 0;
				ran += next - now;
			}
			now = next;
			backlogged = draw(3) != 0;
			stop_at(&r, BASE + now);
			int64_t before_update = r.sporadic->seen_ns;
			replenishments = r.stats.replenishments;
			rts_ult_sporadic_update(&r, backlogged, BASE, BASE + now);
			if (r.stats.replenishments > replenishments)
				came_back += r.remaining_ns - before_update;
			running = backlogged && r.remaining_ns > 0 && draw(4) != 0;
			if (running)
				rts_ult_sporadic_start(&r, BASE + now);
			check_invariants(&r);
			CHECK_LE(r.remaining_ns, budget);
			CHECK_LE(came_back, ran); /* nothing comes back that did not run */
			/* and all that came back is counted: what is not eligible ran from eligible
			 * refills and has not come back (what ran borrowed was pending already) */
			CHECK_EQ(r.remaining_ns, budget - (ran - borrowed) + came_back);
		}
		all_borrowed += borrowed;
		all_replenishments += r.stats.replenishments;
		free(r.sporadic);
	}
	CHECK_GT(all_borrowed, 0); /* the overruns happened */
	CHECK_GT(all_replenishments, 200 * 20);
}

static const struct h_case cases[] = {
	H_CASE(test_each_chunk_back_one_period_after_its_own_activation, 5000),
	H_CASE(test_what_comes_back_is_what_ran, 5000),
	H_CASE(test_an_overrun_defers_the_next_refill, 5000),
	H_CASE(test_a_full_list_merges_into_the_last, 5000),
	H_CASE(test_generated_runs_keep_the_invariants, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
