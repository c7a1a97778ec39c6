/* SPDX-License-Identifier: MIT */
/*
 * rts_cond semantics, with a NONE and a PIP mutex:
 *  - a signal wakes exactly one of N sleeping waiters, a broadcast the rest;
 *  - a signal with nobody waiting is not remembered;
 *  - timedwait returns ETIMEDOUT after its deadline, owning the mutex again;
 *  - deadlines are on CLOCK_MONOTONIC by default, CLOCK_REALTIME with setclock.
 */
#include "rts_helpers.h"

#define NWAITERS 4

struct shared {
	rts_mutex_t m;
	rts_cond_t c;
	int woke;      /* waiters that returned from rts_cond_wait (under m) */
	int wait_errors;
	pid_t tids[NWAITERS];
	int started;
};

static void *one_wait(void *arg)
{
	struct shared *s = arg;
	int ret = rts_mutex_lock(&s->m);
	if (ret) {
		H_INC(&s->wait_errors);
		return NULL;
	}
	int idx = s->started++;
	H_STORE(&s->tids[idx], h_gettid());
	/* One call, no predicate loop: we count the returns themselves. */
	ret = rts_cond_wait(&s->c, &s->m);
	if (ret)
		s->wait_errors++;
	H_INC(&s->woke);
	rts_mutex_unlock(&s->m);
	return NULL;
}

static int woke(struct shared *s)
{
	return H_LOAD(&s->woke);
}

static bool all_sleeping(struct shared *s, int n)
{
	if (cond_waiters(&s->c) != (unsigned)n)
		return false;
	for (int i = 0; i < n; i++) {
		pid_t tid = H_LOAD(&s->tids[i]);
		if (tid == 0 || h_thread_state(tid) != 'S')
			return false;
	}
	return true;
}

static void signal_exactly_one(int proto)
{
	struct shared *s = calloc(1, sizeof(*s));
	CHECK(s != NULL);
	mutex_init_proto(&s->m, proto);
	CHECK_OK(rts_cond_init(&s->c, NULL));
	pthread_t t[NWAITERS];
	for (int i = 0; i < NWAITERS; i++)
		h_thread_start(&t[i], one_wait, s, 0, -1);
	WAIT_FOR(all_sleeping(s, NWAITERS), 3000);

	/* One signal wakes one waiter... */
	CHECK_OK(rts_mutex_lock(&s->m));
	CHECK_OK(rts_cond_signal(&s->c));
	CHECK_OK(rts_mutex_unlock(&s->m));
	WAIT_FOR(woke(s) >= 1, 2000);
	/* ...and no other: give a wrongly woken one ample time to show up. */
	h_sleep_ms(100);
	CHECK_EQ(woke(s), 1);
	WAIT_FOR(cond_waiters(&s->c) == NWAITERS - 1, 2000);

	/* A second signal, without holding the mutex: again exactly one. */
	CHECK_OK(rts_cond_signal(&s->c));
	WAIT_FOR(woke(s) >= 2, 2000);
	h_sleep_ms(100);
	CHECK_EQ(woke(s), 2);

	/* A broadcast wakes all the rest. */
	CHECK_OK(rts_mutex_lock(&s->m));
	CHECK_OK(rts_cond_broadcast(&s->c));
	CHECK_OK(rts_mutex_unlock(&s->m));
	WAIT_FOR(woke(s) == NWAITERS, 3000);
	for (int i = 0; i < NWAITERS; i++)
		h_join(t[i], 2000);
	CHECK_EQ(s->wait_errors, 0);
	CHECK_EQ(cond_waiters(&s->c), 0);
	CHECK_OK(rts_cond_destroy(&s->c));
	CHECK_OK(rts_mutex_destroy(&s->m));
	free(s);
}

static void test_signal_exactly_one_none(void)
{
	signal_exactly_one(RTS_PROTO_NONE);
}

static void test_signal_exactly_one_pip(void)
{
	signal_exactly_one(RTS_PROTO_PIP);
}

/* A broadcast with all waiters asleep, under the mutex: all of them return, one at a time. */
static void broadcast_all(int proto)
{
	struct shared *s = calloc(1, sizeof(*s));
	CHECK(s != NULL);
	mutex_init_proto(&s->m, proto);
	CHECK_OK(rts_cond_init(&s->c, NULL));
	pthread_t t[NWAITERS];
	for (int i = 0; i < NWAITERS; i++)
		h_thread_start(&t[i], one_wait, s, 0, -1);
	WAIT_FOR(all_sleeping(s, NWAITERS), 3000);
	CHECK_OK(rts_mutex_lock(&s->m));
	CHECK_OK(rts_cond_broadcast(&s->c));
	h_sleep_ms(20); /* woken waiters now queue on the mutex we hold */
	CHECK_EQ(woke(s), 0);
	CHECK_OK(rts_mutex_unlock(&s->m));
	WAIT_FOR(woke(s) == NWAITERS, 3000);
	for (int i = 0; i < NWAITERS; i++)
		h_join(t[i], 2000);
	CHECK_EQ(s->wait_errors, 0);
	CHECK_EQ(mutex_owner(&s->m), 0);
	free(s);
}

static void test_broadcast_all_none(void)
{
	broadcast_all(RTS_PROTO_NONE);
}

static void test_broadcast_all_pip(void)
{
	broadcast_all(RTS_PROTO_PIP);
}

/* A signal that finds nobody waiting is lost, as POSIX says. */
static void signal_not_remembered(int proto)
{
	rts_mutex_t m;
	rts_cond_t c;
	mutex_init_proto(&m, proto);
	CHECK_OK(rts_cond_init(&c, NULL));
	CHECK_OK(rts_cond_signal(&c));
	CHECK_OK(rts_cond_broadcast(&c));
	CHECK_OK(rts_mutex_lock(&m));
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 20);
	CHECK_ERR(ETIMEDOUT, rts_cond_timedwait(&c, &m, &dl));
	CHECK_OK(rts_mutex_unlock(&m));
}

static void test_signal_not_remembered_none(void)
{
	signal_not_remembered(RTS_PROTO_NONE);
}

static void test_signal_not_remembered_pip(void)
{
	signal_not_remembered(RTS_PROTO_PIP);
}

/* ETIMEDOUT after the deadline, and the caller owns the mutex again. */
static void timedwait_timeout(int proto, clockid_t clock)
{
	rts_mutex_t m;
	rts_cond_t c;
	mutex_init_proto(&m, proto);
	cond_init_with(&c, RTS_PROCESS_PRIVATE, clock);
	CHECK_OK(rts_mutex_lock(&m));
	struct timespec dl = h_deadline_ms(clock, 50);
	CHECK_ERR(ETIMEDOUT, rts_cond_timedwait(&c, &m, &dl));
	CHECK_GE(clock_ns(clock), timespec_ns(&dl));
	CHECK_EQ(mutex_owner(&m), h_gettid());
	CHECK_ERR(EBUSY, trylock_elsewhere(&m));
	CHECK_EQ(cond_waiters(&c), 0);
	/* A deadline already past. */
	struct timespec past = h_deadline_ms(clock, -10);
	CHECK_ERR(ETIMEDOUT, rts_cond_timedwait(&c, &m, &past));
	CHECK_ERR(EBUSY, trylock_elsewhere(&m));
	CHECK_OK(rts_mutex_unlock(&m));
	CHECK_OK(lock_unlock_elsewhere(&m));
}

static void test_timedwait_timeout_none(void)
{
	timedwait_timeout(RTS_PROTO_NONE, CLOCK_MONOTONIC);
}

static void test_timedwait_timeout_pip(void)
{
	timedwait_timeout(RTS_PROTO_PIP, CLOCK_MONOTONIC);
}

static void test_timedwait_timeout_realtime_none(void)
{
	timedwait_timeout(RTS_PROTO_NONE, CLOCK_REALTIME);
}

static void test_timedwait_timeout_realtime_pip(void)
{
	timedwait_timeout(RTS_PROTO_PIP, CLOCK_REALTIME);
}

/*
 * Which clock is used: a deadline 10 s ahead on `clock` is far in the past
 * read on the other clock (REALTIME is decades ahead of MONOTONIC), or decades
 * ahead. A signalled timed wait on the right clock returns 0; the same value
 * read as the other clock would give ETIMEDOUT at once (MONOTONIC read as
 * REALTIME), which the test catches.
 */
struct timed_waiter {
	rts_mutex_t m;
	rts_cond_t c;
	struct timespec deadline;
	int predicate;
	int ret;
	pid_t tid;
};

static void *timed_wait_main(void *arg)
{
	struct timed_waiter *w = arg;
	H_STORE(&w->tid, h_gettid());
	int ret = rts_mutex_lock(&w->m);
	while (ret == 0 && !w->predicate)
		ret = rts_cond_timedwait(&w->c, &w->m, &w->deadline);
	w->ret = ret;
	rts_mutex_unlock(&w->m);
	return NULL;
}

static void clock_is_used(int proto, clockid_t clock, clockid_t other)
{
	struct timed_waiter *w = calloc(1, sizeof(*w));
	CHECK(w != NULL);
	mutex_init_proto(&w->m, proto);
	cond_init_with(&w->c, RTS_PROCESS_PRIVATE, clock);

	/* 10 s ahead on the condvar's clock: the waiter sleeps until signalled. */
	w->deadline = h_deadline_ms(clock, 10000);
	pthread_t t;
	h_thread_start(&t, timed_wait_main, w, 0, -1);
	WAIT_FOR(cond_waiters(&w->c) == 1 && h_thread_state(H_LOAD(&w->tid)) == 'S', 2000);
	CHECK_OK(rts_mutex_lock(&w->m));
	w->predicate = 1;
	CHECK_OK(rts_cond_signal(&w->c));
	CHECK_OK(rts_mutex_unlock(&w->m));
	h_join(t, 3000);
	CHECK_OK(w->ret);

	if (clock == CLOCK_REALTIME) {
		/* MONOTONIC now + 10 s is decades in the past on CLOCK_REALTIME. */
		CHECK_OK(rts_mutex_lock(&w->m));
		struct timespec mono = h_deadline_ms(other, 10000);
		CHECK_ERR(ETIMEDOUT, rts_cond_timedwait(&w->c, &w->m, &mono));
		CHECK_OK(rts_mutex_unlock(&w->m));
	}
	free(w);
}

static void test_clock_monotonic_none(void)
{
	clock_is_used(RTS_PROTO_NONE, CLOCK_MONOTONIC, CLOCK_REALTIME);
}

static void test_clock_monotonic_pip(void)
{
	clock_is_used(RTS_PROTO_PIP, CLOCK_MONOTONIC, CLOCK_REALTIME);
}

static void test_clock_realtime_none(void)
{
	clock_is_used(RTS_PROTO_NONE, CLOCK_REALTIME, CLOCK_MONOTONIC);
}

static void test_clock_realtime_pip(void)
{
	clock_is_used(RTS_PROTO_PIP, CLOCK_REALTIME, CLOCK_MONOTONIC);
}

/* A timed wait that is signalled before its deadline returns 0, not ETIMEDOUT. */
static void signalled_timedwait(int proto)
{
	struct timed_waiter *w = calloc(1, sizeof(*w));
	CHECK(w != NULL);
	mutex_init_proto(&w->m, proto);
	CHECK_OK(rts_cond_init(&w->c, NULL));
	w->deadline = h_deadline_ms(CLOCK_MONOTONIC, 5000);
	pthread_t t;
	h_thread_start(&t, timed_wait_main, w, 0, -1);
	WAIT_FOR(cond_waiters(&w->c) == 1 && h_thread_state(H_LOAD(&w->tid)) == 'S', 2000);
	CHECK_OK(rts_mutex_lock(&w->m));
	w->predicate = 1;
	CHECK_OK(rts_cond_broadcast(&w->c));
	CHECK_OK(rts_mutex_unlock(&w->m));
	h_join(t, 3000);
	CHECK_OK(w->ret);
	CHECK_LT(clock_ns(CLOCK_MONOTONIC), timespec_ns(&w->deadline));
	free(w);
}

static void test_signalled_timedwait_none(void)
{
	signalled_timedwait(RTS_PROTO_NONE);
}

static void test_signalled_timedwait_pip(void)
{
	signalled_timedwait(RTS_PROTO_PIP);
}

static const struct h_case cases[] = {
	H_CASE(test_signal_exactly_one_none, 8000),
	H_CASE(test_signal_exactly_one_pip, 8000),
	H_CASE(test_broadcast_all_none, 5000),
	H_CASE(test_broadcast_all_pip, 5000),
	H_CASE(test_signal_not_remembered_none, 3000),
	H_CASE(test_signal_not_remembered_pip, 3000),
	H_CASE(test_timedwait_timeout_none, 3000),
	H_CASE(test_timedwait_timeout_pip, 3000),
	H_CASE(test_timedwait_timeout_realtime_none, 3000),
	H_CASE(test_timedwait_timeout_realtime_pip, 3000),
	H_CASE(test_clock_monotonic_none, 5000),
	H_CASE(test_clock_monotonic_pip, 5000),
	H_CASE(test_clock_realtime_none, 5000),
	H_CASE(test_clock_realtime_pip, 5000),
	H_CASE(test_signalled_timedwait_none, 5000),
	H_CASE(test_signalled_timedwait_pip, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
