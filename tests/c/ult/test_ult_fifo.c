/* SPDX-License-Identifier: MIT */
/*
 * The FIFO mutex and its condition variable (seed 000, RTS_PROTO_FIFO;
 * docs/fifo-mutex.md) under the ult backend, on one CPU under fixed
 * priorities: waiters get the mutex in the order they asked, whatever their
 * priorities, the holder inherits nothing; a signal wakes the longest
 * condvar waiter; and each ULT keeps one record per scope, its own, however
 * many ULTs take turns on the worker (a record cache per task, not per
 * worker), given back when the ULT ends.
 */
#include "ult_actors.h"

/* Library test hook (lock/fifo_scope.c): records claimed in a scope (NULL: the process's own). */
uint32_t rts_fifo_scope_records_claimed(const struct rts_lockdomain *domain);

#define WAITERS 4

struct order {
	rts_mutex_t m;
	rts_cond_t c;
	int signals_left;
	atomic_int asked;
	int holder_effective; /* the holder's priority while the waiters wait */
	struct actor *waiters; /* WAITERS of them, in the order they must ask */
};

static void holder_plays(struct actor *a)
{
	struct order *s = a->scene;
	(void)a;
	CHECK_OK(rts_mutex_lock(&s->m));
	/* asleep, holding it, while the waiters ask one after another */
	CHECK(sleep_until_blocked(s->waiters, WAITERS));
	CHECK_EQ(atomic_load(&s->asked), WAITERS);
	s->holder_effective = effective_priority(0);
	CHECK_OK(rts_mutex_unlock(&s->m));
}

/* Waiter i asks once waiter i - 1 waits: the order of asking is the scene's, whatever the releases' timing. */
static void ask_in_turn(struct actor *a)
{
	struct order *s = a->scene;
	if (a->result > 0)
		CHECK(sleep_until_blocked(&s->waiters[a->result - 1], 1));
}

static void waiter_plays(struct actor *a)
{
	struct order *s = a->scene;
	ask_in_turn(a);
	atomic_fetch_add(&s->asked, 1);
	CHECK_OK(rts_mutex_lock(&s->m));
	log_tag(a->result);
	CHECK_OK(rts_mutex_unlock(&s->m));
}

/* Priorities 15, 25, 20, 12 ask in that order: served in that order, no inheritance. */
static void test_fifo_mutex_serves_in_arrival_order(void)
{
	static struct order s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.m, RTS_PROTO_FIFO, 0, 0, -1);
	struct actor actors[] = {
		{.name = "holder", .priority = 5, .cpu = 0, .play = holder_plays, .scene = &s},
		{.name = "w0", .priority = 15, .offset_ms = 2, .cpu = 0, .play = waiter_plays, .scene = &s, .result = 0},
		{.name = "w1", .priority = 25, .offset_ms = 3, .cpu = 0, .play = waiter_plays, .scene = &s, .result = 1},
		{.name = "w2", .priority = 20, .offset_ms = 4, .cpu = 0, .play = waiter_plays, .scene = &s, .result = 2},
		{.name = "w3", .priority = 12, .offset_ms = 5, .cpu = 0, .play = waiter_plays, .scene = &s, .result = 3},
	};
	s.waiters = &actors[1];
	run_actors("ult:pfp", actors, 5);
	const int want[] = {0, 1, 2, 3};
	check_log(want, WAITERS);
	CHECK_EQ(s.holder_effective, 5); /* the FIFO mutex lends no priority */
	CHECK_OK(rts_mutex_destroy(&s.m));
}

static void cond_waiter_plays(struct actor *a)
{
	struct order *s = a->scene;
	ask_in_turn(a);
	CHECK_OK(rts_mutex_lock(&s->m));
	atomic_fetch_add(&s->asked, 1);
	CHECK_OK(rts_cond_wait(&s->c, &s->m));
	log_tag(a->result);
	CHECK_OK(rts_mutex_unlock(&s->m));
}

static void signaller_plays(struct actor *a)
{
	struct order *s = a->scene;
	(void)a;
	CHECK(sleep_until_blocked(s->waiters, WAITERS));
	for (int i = 0; i < WAITERS; i++) {
		CHECK_OK(rts_mutex_lock(&s->m));
		CHECK_OK(rts_cond_signal(&s->c));
		CHECK_OK(rts_mutex_unlock(&s->m));
		CHECK_OK(rts_task_sleep_until(now_ns() + MS)); /* the woken one runs meanwhile */
	}
}

/* Waiters of priorities 15, 25, 20, 12 wait in that order; each signal wakes the longest waiter. */
static void test_fifo_cond_signal_wakes_the_longest_waiter(void)
{
	static struct order s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.m, RTS_PROTO_FIFO, 0, 0, -1);
	CHECK_OK(rts_cond_init(&s.c, NULL));
	struct actor actors[] = {
		{.name = "signaller", .priority = 5, .cpu = 0, .play = signaller_plays, .scene = &s},
		{.name = "w0", .priority = 15, .offset_ms = 2, .cpu = 0, .play = cond_waiter_plays, .scene = &s, .result = 0},
		{.name = "w1", .priority = 25, .offset_ms = 3, .cpu = 0, .play = cond_waiter_plays, .scene = &s, .result = 1},
		{.name = "w2", .priority = 20, .offset_ms = 4, .cpu = 0, .play = cond_waiter_plays, .scene = &s, .result = 2},
		{.name = "w3", .priority = 12, .offset_ms = 5, .cpu = 0, .play = cond_waiter_plays, .scene = &s, .result = 3},
	};
	s.waiters = &actors[1];
	run_actors("ult:pfp", actors, 5);
	const int want[] = {0, 1, 2, 3};
	check_log(want, WAITERS);
	CHECK_OK(rts_cond_destroy(&s.c));
	CHECK_OK(rts_mutex_destroy(&s.m));
}

#define TURNS 8
#define QUEUERS 6

struct turns {
	rts_mutex_t m;
	atomic_int waits;
	uint32_t claimed_before, claimed_most; /* under m */
};

/* Hold the mutex across a sleep, so that every other actor's lock waits (claims its record). */
static void turn_plays(struct actor *a)
{
	struct turns *s = a->scene;
	(void)a;
	for (int i = 0; i < TURNS; i++) {
		CHECK_OK(rts_mutex_lock(&s->m));
		atomic_fetch_add(&s->waits, 1);
		uint32_t claimed = rts_fifo_scope_records_claimed(NULL) - s->claimed_before;
		if (claimed > s->claimed_most)
			s->claimed_most = claimed;
		CHECK_OK(rts_task_sleep_until(now_ns() + 200 * 1000));
		CHECK_OK(rts_mutex_unlock(&s->m));
		CHECK_OK(rts_task_sleep_until(now_ns() + 100 * 1000));
	}
}

/*
 * Six ULTs on one worker take turns holding a FIFO mutex and waiting for it:
 * while they run, each has claimed one record at most (a cache shared by
 * the worker would make each claim a new record whenever another ran in
 * between), and when they have ended every record is back.
 */
static void test_each_ult_keeps_one_record_and_gives_it_back(void)
{
	static struct turns s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.m, RTS_PROTO_FIFO, 0, 0, -1);
	s.claimed_before = rts_fifo_scope_records_claimed(NULL);
	struct actor actors[QUEUERS];
	static const char *names[QUEUERS] = {"q0", "q1", "q2", "q3", "q4", "q5"};
	for (int i = 0; i < QUEUERS; i++)
		actors[i] = (struct actor){.name = names[i], .priority = 10 + i, .cpu = 0,
					   .play = turn_plays, .scene = &s};
	run_actors("ult:pfp", actors, QUEUERS);
	CHECK_EQ(atomic_load(&s.waits), QUEUERS * TURNS);
	CHECK_MSG(s.claimed_most >= 2 && s.claimed_most <= QUEUERS, "%u records at most",
		  s.claimed_most); /* at least two waited at once: the test means something */
	CHECK_EQ(rts_fifo_scope_records_claimed(NULL), s.claimed_before);
	CHECK_OK(rts_mutex_destroy(&s.m));
}

static const struct h_case cases[] = {
	H_CASE(test_fifo_mutex_serves_in_arrival_order, 20000),
	H_CASE(test_fifo_cond_signal_wakes_the_longest_waiter, 20000),
	H_CASE(test_each_ult_keeps_one_record_and_gives_it_back, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
