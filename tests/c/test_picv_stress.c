/* SPDX-License-Identifier: MIT */
/*
 * PI-CV under load: a bounded buffer in the image of seed 004 Fig. 5, whose
 * producers are the helpers of "not empty" and whose consumers are the
 * helpers of "not full", so waiters lend in both directions (cycles of loans
 * that are no deadlock). Meanwhile the test adds and removes idle helpers on
 * both condvars (switching waits between token and donation), and some
 * consumers wait with 1 ms timeouts. Checked: mutual exclusion, progress
 * (every thread ends in time), every item consumed exactly once, and every
 * thread back at its base priority at the end (no leaked boost).
 * Generated from a parameter table, each row with its own seed.
 */
#include "picv_fixture.h"

#define MAX_PRODUCERS 6
#define MAX_CONSUMERS 6
#define MAX_IDLE 4
#define MAX_CAPACITY 8

struct params {
	int producers, consumers, capacity, items_per_producer, idle_helpers;
	bool timed_consumers;
	uint32_t seed;
};

static const struct params table[] = {
	{ 1, 1, 1, 1000, 2, false, 1 }, /* token mode, donation while idle helpers are added */
	{ 2, 2, 1, 1000, 0, false, 2 },
	{ 3, 2, 2, 800, 2, true, 3 },
	{ 4, 4, 2, 600, 3, true, 4 },
	{ 6, 6, 4, 400, 4, true, 5 },
	{ 6, 2, 1, 400, 4, false, 6 },
};

struct buffer {
	rts_mutex_t mutex;
	rts_cond_t not_empty, not_full;
	int items[MAX_CAPACITY];
	int head, count, capacity;
	bool closed;               /* no more items will come */
	atomic_int inside;         /* threads in the critical section: 0 or 1 */
	atomic_int *times_consumed; /* per item value */
	atomic_int producers_done;
};

static struct buffer buf;

static void enter(void)
{
	CHECK_EQ(atomic_fetch_add(&buf.inside, 1), 0);
}

static void leave(void)
{
	CHECK_EQ(atomic_fetch_sub(&buf.inside, 1), 1);
}

struct worker {
	struct actor actor;
	int first_item, n_items; /* producers */
	bool timed;              /* consumers */
	pthread_t thread;
	atomic_int finish;       /* it may end */
};

static void linger(struct actor *a)
{
	struct worker *w = (struct worker *)a; /* every actor here is a worker's */
	atomic_store(&a->done, 1);
	while (!atomic_load(&w->finish))
		h_sleep_ms(1);
}

/*
 * End the workers one at a time: threads that end together at different SCHED_FIFO priorities
 * on one CPU may contend in a sanitizer runtime's spin lock at thread exit, where the higher
 * spins above the holder (the cause is a hypothesis; the effect was measured under ASan+UBSan
 * here: a join timed out after 5 s in 3 of 400 runs of stress_row_2 when all ended together, in
 * none of 1200 one at a time).
 */
static void finish_all(struct worker *workers, int n)
{
	for (int i = 0; i < n; i++) {
		atomic_store(&workers[i].finish, 1);
		h_join(workers[i].thread, 5000);
	}
}

static void *producer_main(struct actor *a)
{
	struct worker *w = (struct worker *)a;
	pid_t self = h_gettid();
	CHECK_OK(rts_cond_helper_add(&buf.not_empty, self));
	for (int k = 0; k < w->n_items; k++) {
		CHECK_OK(rts_mutex_lock(&buf.mutex));
		while (buf.count == buf.capacity)
			CHECK_OK(rts_cond_wait(&buf.not_full, &buf.mutex));
		enter();
		buf.items[(buf.head + buf.count) % buf.capacity] = w->first_item + k;
		buf.count++;
		leave();
		CHECK_OK(rts_cond_signal(&buf.not_empty));
		CHECK_OK(rts_mutex_unlock(&buf.mutex));
	}
	CHECK_OK(rts_cond_helper_del(&buf.not_empty, self));
	atomic_fetch_add(&buf.producers_done, 1);
	linger(a);
	return NULL;
}

static int consumer_wait(struct worker *w)
{
	if (!w->timed)
		return rts_cond_wait(&buf.not_empty, &buf.mutex);
	struct timespec deadline = h_deadline_ms(CLOCK_MONOTONIC, 1);
	int ret = rts_cond_timedwait(&buf.not_empty, &buf.mutex, &deadline);
	return ret == ETIMEDOUT ? 0 : ret;
}

static void *consumer_main(struct actor *a)
{
	struct worker *w = (struct worker *)a;
	pid_t self = h_gettid();
	CHECK_OK(rts_cond_helper_add(&buf.not_full, self));
	CHECK_OK(rts_mutex_lock(&buf.mutex));
	for (;;) {
		while (buf.count == 0 && !buf.closed)
			CHECK_OK(consumer_wait(w));
		if (buf.count == 0)
			break;
		enter();
		int item = buf.items[buf.head];
		buf.head = (buf.head + 1) % buf.capacity;
		buf.count--;
		leave();
		atomic_fetch_add(&buf.times_consumed[item], 1);
		CHECK_OK(rts_cond_signal(&buf.not_full));
	}
	CHECK_OK(rts_mutex_unlock(&buf.mutex));
	CHECK_OK(rts_cond_helper_del(&buf.not_full, self));
	linger(a);
	return NULL;
}

static void *idle_main(struct actor *a)
{
	linger(a);
	return NULL;
}

/* PI-CV mode before anybody waits, so that helpers may come and go while threads wait. */
static void make_picv_cond(rts_cond_t *cond)
{
	CHECK_OK(rts_cond_helper_add(cond, h_gettid()));
	CHECK_OK(rts_cond_helper_del(cond, h_gettid()));
}

static uint32_t next_random(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 8;
}

/* Add or remove idle helper i on cond; `is_helper` tracks which. */
static void toggle_helper(rts_cond_t *cond, struct worker *idle, bool *is_helper)
{
	pid_t tid = atomic_load(&idle->actor.tid);
	if (*is_helper)
		CHECK_OK(rts_cond_helper_del(cond, tid));
	else
		CHECK_OK(rts_cond_helper_add(cond, tid));
	*is_helper = !*is_helper;
}

static void run_stress(int row)
{
	const struct params *p = &table[row];
	h_require_rt(&rt_cpu, &free_cpu);
	uint32_t random = p->seed;
	int total = p->producers * p->items_per_producer;
	memset(&buf, 0, sizeof(buf));
	buf.capacity = p->capacity;
	buf.times_consumed = calloc((size_t)total, sizeof(atomic_int));
	CHECK(buf.times_consumed != NULL);
	rts_mutexattr_t attr;
	CHECK_OK(rts_mutexattr_init(&attr));
	CHECK_OK(rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP));
	CHECK_OK(rts_mutex_init(&buf.mutex, &attr));
	CHECK_OK(rts_cond_init(&buf.not_empty, NULL));
	CHECK_OK(rts_cond_init(&buf.not_full, NULL));
	make_picv_cond(&buf.not_empty);
	make_picv_cond(&buf.not_full);

	static struct worker producers[MAX_PRODUCERS], consumers[MAX_CONSUMERS], idle[MAX_IDLE];
	memset(producers, 0, sizeof(producers));
	memset(consumers, 0, sizeof(consumers));
	memset(idle, 0, sizeof(idle));
	bool idle_on_empty[MAX_IDLE] = { false }, idle_on_full[MAX_IDLE] = { false };
	for (int i = 0; i < p->idle_helpers; i++)
		start(&idle[i].actor, idle_main, NULL, 1 + (int)(next_random(&random) % 5),
		      &idle[i].thread);
	for (int i = 0; i < p->consumers; i++) {
		consumers[i].timed = p->timed_consumers && i % 2 == 0;
		start(&consumers[i].actor, consumer_main, NULL, 10 + (int)(next_random(&random) % 40),
		      &consumers[i].thread);
	}
	for (int i = 0; i < p->producers; i++) {
		producers[i].first_item = i * p->items_per_producer;
		producers[i].n_items = p->items_per_producer;
		start(&producers[i].actor, producer_main, NULL, 10 + (int)(next_random(&random) % 40),
		      &producers[i].thread);
	}

	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + 30LL * 1000000000 * H_SLOW;
	while (atomic_load(&buf.producers_done) < p->producers) {
		CHECK_MSG(clock_ns(CLOCK_MONOTONIC) < give_up, "no progress: %d of %d producers done",
			  atomic_load(&buf.producers_done), p->producers);
		if (p->idle_helpers) {
			int i = (int)(next_random(&random) % (uint32_t)p->idle_helpers);
			if (next_random(&random) % 2)
				toggle_helper(&buf.not_empty, &idle[i], &idle_on_empty[i]);
			else
				toggle_helper(&buf.not_full, &idle[i], &idle_on_full[i]);
		}
		h_sleep_us(200);
	}
	CHECK_OK(rts_mutex_lock(&buf.mutex));
	buf.closed = true;
	CHECK_OK(rts_cond_broadcast(&buf.not_empty));
	CHECK_OK(rts_mutex_unlock(&buf.mutex));
	for (int i = 0; i < p->consumers; i++)
		WAIT_FOR(atomic_load(&consumers[i].actor.done), 10000);
	for (int i = 0; i < p->idle_helpers; i++) {
		if (idle_on_empty[i])
			toggle_helper(&buf.not_empty, &idle[i], &idle_on_empty[i]);
		if (idle_on_full[i])
			toggle_helper(&buf.not_full, &idle[i], &idle_on_full[i]);
	}

	for (int v = 0; v < total; v++)
		CHECK_MSG(atomic_load(&buf.times_consumed[v]) == 1, "item %d consumed %d times", v,
			  atomic_load(&buf.times_consumed[v]));
	CHECK_EQ(buf.count, 0);
	for (int i = 0; i < p->producers; i++)
		EXPECT_AT_BASE(&producers[i].actor);
	for (int i = 0; i < p->consumers; i++)
		EXPECT_AT_BASE(&consumers[i].actor);
	for (int i = 0; i < p->idle_helpers; i++)
		EXPECT_AT_BASE(&idle[i].actor);

	finish_all(producers, p->producers);
	finish_all(consumers, p->consumers);
	finish_all(idle, p->idle_helpers);
	CHECK_OK(rts_cond_destroy(&buf.not_empty));
	CHECK_OK(rts_cond_destroy(&buf.not_full));
	free(buf.times_consumed);
}

#define ROW(i) { "stress_row_" #i, NULL, 60000, run_stress, i }

static const struct h_case cases[] = {
	ROW(0), ROW(1), ROW(2), ROW(3), ROW(4), ROW(5),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
