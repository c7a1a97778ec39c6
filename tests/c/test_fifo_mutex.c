/* SPDX-License-Identifier: MIT */
/*
 * RTS_PROTO_FIFO (seed 000): strict FIFO hand-over, no barging, DEQUEUE at a
 * timedlock's deadline from the middle of a queue, and the errors.
 */
#include "fifo_fixture.h"

#define QUEUE_LEN 5

/* Threads that queue in the order 0..4 get the mutex in that order. */
static void test_lock_fifo_order(void)
{
	rts_mutex_t m;
	struct fifo_log log = { 0 };
	struct queuer q[QUEUE_LEN];
	fifo_mutex_init(&m);
	CHECK_OK(rts_mutex_lock(&m));
	for (int i = 0; i < QUEUE_LEN; i++)
		queuer_start(&q[i], i, QUEUE_LOCK, &m, NULL, &log);
	CHECK_OK(rts_mutex_unlock(&m));
	for (int i = 0; i < QUEUE_LEN; i++)
		h_join(q[i].thread, 5000);
	check_order(&log, (const int[]){ 0, 1, 2, 3, 4 }, QUEUE_LEN);
	CHECK_OK(rts_mutex_destroy(&m));
}

/*
 * The unlock hands the mutex to the waiter at once: the unlocker cannot take
 * it back (its trylock succeeds only once the waiter has had the mutex).
 */
static void test_no_barging(void)
{
	rts_mutex_t m;
	struct fifo_log log = { 0 };
	struct queuer q;
	fifo_mutex_init(&m);
	CHECK_OK(rts_mutex_lock(&m));
	queuer_start(&q, 0, QUEUE_LOCK, &m, NULL, &log);
	CHECK_OK(rts_mutex_unlock(&m));
	int ret = rts_mutex_trylock(&m);
	if (ret == 0) { /* only if the waiter already came and went */
		CHECK_EQ(log.n, 1);
		CHECK_OK(rts_mutex_unlock(&m));
	} else {
		CHECK_ERR(EBUSY, ret);
	}
	h_join(q.thread, 5000);
	check_order(&log, (const int[]){ 0 }, 1);
	CHECK_OK(rts_mutex_trylock(&m));
	CHECK_OK(rts_mutex_unlock(&m));
}

/* A timedlock waiter in the middle of a queue of 5 leaves it at its deadline; the others keep their order. */
static void test_timedlock_dequeue_middle(void)
{
	rts_mutex_t m;
	struct fifo_log log = { 0 };
	struct queuer q[QUEUE_LEN];
	fifo_mutex_init(&m);
	CHECK_OK(rts_mutex_lock(&m));
	for (int i = 0; i < QUEUE_LEN; i++) {
		q[i].deadline = h_deadline_ms(CLOCK_MONOTONIC, 300 * H_SLOW);
		queuer_start(&q[i], i, i == 2 ? QUEUE_TIMEDLOCK : QUEUE_LOCK, &m, NULL, &log);
	}
	h_join(q[2].thread, 5000);
	CHECK_ERR(ETIMEDOUT, q[2].ret);
	CHECK_OK(rts_mutex_unlock(&m));
	for (int i = 0; i < QUEUE_LEN; i++)
		if (i != 2)
			h_join(q[i].thread, 5000);
	check_order(&log, (const int[]){ 0, 1, 3, 4 }, QUEUE_LEN - 1);
}

/* The last waiter timing out clears WAITERS: the unlock is the one-CAS fast path again. */
static void test_timedlock_last_waiter_clears_waiters(void)
{
	rts_mutex_t m;
	fifo_mutex_init(&m);
	CHECK_OK(rts_mutex_lock(&m));
	struct fifo_log log = { 0 };
	struct queuer q;
	q.deadline = h_deadline_ms(CLOCK_MONOTONIC, 50);
	queuer_start(&q, 0, QUEUE_TIMEDLOCK, &m, NULL, &log);
	h_join(q.thread, 5000);
	CHECK_ERR(ETIMEDOUT, q.ret);
	CHECK_EQ(H_LOAD(&m.s.word), (uint32_t)h_gettid());
	CHECK_OK(rts_mutex_unlock(&m));
	CHECK_EQ(H_LOAD(&m.s.word), 0u);
}

static void test_errors(void)
{
	rts_mutex_t m;
	rts_mutexattr_t a;
	CHECK_OK(rts_mutexattr_init(&a));
	CHECK_OK(rts_mutexattr_setprotocol(&a, RTS_PROTO_FIFO));
	CHECK_OK(rts_mutexattr_setrobust(&a, RTS_MUTEX_ROBUST));
	CHECK_ERR(EINVAL, rts_mutex_init(&m, &a)); /* not robust */
	CHECK_OK(rts_mutexattr_setrobust(&a, RTS_MUTEX_STALLED));
	CHECK_OK(rts_mutexattr_setpshared(&a, RTS_PROCESS_SHARED));
	CHECK_ERR(EINVAL, rts_mutex_init(&m, &a)); /* shared needs a lock domain */
	CHECK_OK(rts_mutexattr_destroy(&a));

	fifo_mutex_init(&m);
	CHECK_OK(rts_mutex_lock(&m));
	CHECK_ERR(EDEADLK, rts_mutex_lock(&m));
	CHECK_ERR(EBUSY, rts_mutex_trylock(&m));
	CHECK_ERR(EBUSY, rts_mutex_destroy(&m));
	CHECK_ERR(EPERM, unlock_elsewhere(&m));
	CHECK_ERR(EBUSY, trylock_elsewhere(&m));
	struct timespec bad = { .tv_sec = 0, .tv_nsec = 2000000000L };
	struct fifo_log log = { 0 };
	struct queuer q;
	q.deadline = bad;
	queuer_start(&q, 0, QUEUE_TIMEDLOCK, &m, NULL, &log);
	h_join(q.thread, 5000);
	CHECK_ERR(EINVAL, q.ret);
	CHECK_OK(rts_mutex_unlock(&m));
	CHECK_ERR(EPERM, rts_mutex_unlock(&m));
	CHECK_OK(rts_mutex_timedlock(&m, &bad)); /* checked only when it would block */
	CHECK_OK(rts_mutex_unlock(&m));
	CHECK_OK(rts_mutex_destroy(&m));
}

static const struct h_case cases[] = {
	H_CASE(test_lock_fifo_order, 20000),
	H_CASE(test_no_barging, 10000),
	H_CASE(test_timedlock_dequeue_middle, 20000),
	H_CASE(test_timedlock_last_waiter_clears_waiters, 10000),
	H_CASE(test_errors, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
