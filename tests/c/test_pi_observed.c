/* SPDX-License-Identifier: MIT */
/*
 * Priority inheritance seen from outside, in /proc/self/task/<tid>/stat
 * (field 18, prio: -1 - rtprio for SCHED_FIFO, boosts included):
 *  - PIP mutex: a SCHED_FIFO 10 owner rises to 50 while a SCHED_FIFO 50
 *    thread blocks on the mutex, and falls back to 10 at unlock;
 *  - PIP condvar: a prio-50 waiter that a prio-10 signaller requeues onto the
 *    mutex it holds boosts the signaller between signal and unlock;
 *  - NONE mutex / condvar: the owner's priority never changes.
 * All real-time threads run on one CPU and sleep (never spin); the
 * controller, SCHED_OTHER on the other CPU, reads /proc.
 */
#include "rts_helpers.h"

#define LOW 10
#define HIGH 50

struct shared {
	rts_mutex_t m;
	rts_cond_t c;
	int predicate;
	/* low */
	pid_t low_tid;
	int low_locked;
	int low_signalled;
	int low_release;
	int low_unlocked;
	int low_prio_before_unlock;
	int low_prio_after_unlock;
	int low_exit;
	int low_ret;
	/* high */
	pid_t high_tid;
	int high_started;
	int high_done;
	int high_ret;
};

static void sleep_until_flag(int *flag)
{
	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + 10LL * 1000000000;
	while (!H_LOAD(flag) && clock_ns(CLOCK_MONOTONIC) < give_up)
		h_sleep_us(500);
}

/* Low, mutex scenario: lock, hold until told, unlock, stay alive until told. */
static void *low_mutex_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->low_tid, h_gettid());
	s->low_ret = rts_mutex_lock(&s->m);
	H_STORE(&s->low_locked, 1);
	sleep_until_flag(&s->low_release);
	H_STORE(&s->low_prio_before_unlock, h_thread_prio(h_gettid()));
	int ret = rts_mutex_unlock(&s->m);
	if (ret)
		s->low_ret = ret;
	H_STORE(&s->low_prio_after_unlock, h_thread_prio(h_gettid()));
	H_STORE(&s->low_unlocked, 1);
	sleep_until_flag(&s->low_exit);
	return NULL;
}

static void *high_lock_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->high_tid, h_gettid());
	H_STORE(&s->high_started, 1);
	int ret = rts_mutex_lock(&s->m);
	if (ret == 0)
		ret = rts_mutex_unlock(&s->m);
	if (ret)
		H_STORE(&s->high_ret, ret);
	H_STORE(&s->high_done, 1);
	return NULL;
}

static void mutex_scenario(int proto)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct shared *s = calloc(1, sizeof(*s));
	CHECK(s != NULL);
	mutex_init_proto(&s->m, proto);

	pthread_t low, high;
	h_thread_start(&low, low_mutex_main, s, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&s->low_locked), 2000);
	CHECK_OK(s->low_ret);
	pid_t low_tid = H_LOAD(&s->low_tid);
	CHECK_EQ(h_thread_prio(low_tid), h_fifo_prio_field(LOW));

	h_thread_start(&high, high_lock_main, s, HIGH, rt_cpu);
	WAIT_FOR(H_LOAD(&s->high_started) && h_thread_state(H_LOAD(&s->high_tid)) == 'S', 2000);
	CHECK_EQ(h_thread_prio(s->high_tid), h_fifo_prio_field(HIGH));
	CHECK(!H_LOAD(&s->high_done));

	if (proto == RTS_PROTO_PIP) {
		/* The owner inherits the waiter's priority while the waiter is blocked. */
		WAIT_FOR(h_thread_prio(low_tid) == h_fifo_prio_field(HIGH), 2000);
	} else {
		/* No inheritance: sample for a while, the owner's priority stays put. */
		for (int i = 0; i < 50; i++) {
			CHECK_EQ(h_thread_prio(low_tid), h_fifo_prio_field(LOW));
			h_sleep_ms(1);
		}
	}
	H_STORE(&s->low_release, 1);
	WAIT_FOR(H_LOAD(&s->low_unlocked), 2000);
	WAIT_FOR(H_LOAD(&s->high_done), 2000);
	CHECK_OK(s->high_ret);
	CHECK_OK(s->low_ret);
	CHECK_EQ(H_LOAD(&s->low_prio_before_unlock),
		 h_fifo_prio_field(proto == RTS_PROTO_PIP ? HIGH : LOW));
	/* Back to its own priority as soon as it let go. */
	CHECK_EQ(H_LOAD(&s->low_prio_after_unlock), h_fifo_prio_field(LOW));
	CHECK_EQ(h_thread_prio(low_tid), h_fifo_prio_field(LOW));
	H_STORE(&s->low_exit, 1);
	h_join(low, 2000);
	h_join(high, 2000);
	free(s);
}

static void test_mutex_boost_pip(void)
{
	mutex_scenario(RTS_PROTO_PIP);
}

static void test_mutex_no_boost_none(void)
{
	mutex_scenario(RTS_PROTO_NONE);
}

/* ---- condition variable -------------------------------------------------- */

static void *high_wait_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->high_tid, h_gettid());
	int ret = rts_mutex_lock(&s->m);
	H_STORE(&s->high_started, 1);
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 10000);
	while (ret == 0 && !s->predicate)
		ret = rts_cond_timedwait(&s->c, &s->m, &dl);
	if (ret == 0)
		ret = rts_mutex_unlock(&s->m);
	s->high_ret = ret;
	H_STORE(&s->high_done, 1);
	return NULL;
}

/* Low, condvar scenario: lock, signal, hold until told, unlock, stay alive until told. */
static void *low_signal_main(void *p)
{
	struct shared *s = p;
	H_STORE(&s->low_tid, h_gettid());
	int ret = rts_mutex_lock(&s->m);
	H_STORE(&s->low_locked, 1);
	if (ret == 0) {
		s->predicate = 1;
		ret = rts_cond_signal(&s->c);
	}
	s->low_ret = ret;
	H_STORE(&s->low_signalled, 1);
	sleep_until_flag(&s->low_release);
	H_STORE(&s->low_prio_before_unlock, h_thread_prio(h_gettid()));
	ret = rts_mutex_unlock(&s->m);
	if (ret)
		s->low_ret = ret;
	H_STORE(&s->low_prio_after_unlock, h_thread_prio(h_gettid()));
	H_STORE(&s->low_unlocked, 1);
	sleep_until_flag(&s->low_exit);
	return NULL;
}

static void cond_scenario(int proto)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct shared *s = calloc(1, sizeof(*s));
	CHECK(s != NULL);
	mutex_init_proto(&s->m, proto);
	CHECK_OK(rts_cond_init(&s->c, NULL));

	pthread_t low, high;
	h_thread_start(&high, high_wait_main, s, HIGH, rt_cpu);
	WAIT_FOR(cond_waiters(&s->c) == 1 && h_thread_state(H_LOAD(&s->high_tid)) == 'S', 2000);

	h_thread_start(&low, low_signal_main, s, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&s->low_signalled), 2000);
	CHECK_OK(s->low_ret);
	pid_t low_tid = H_LOAD(&s->low_tid);
	/* The waiter is off the condvar and blocked on the mutex low holds. */
	WAIT_FOR(h_thread_state(s->high_tid) == 'S', 2000);
	CHECK(!H_LOAD(&s->high_done));
	if (proto == RTS_PROTO_PIP) {
		WAIT_FOR(h_thread_prio(low_tid) == h_fifo_prio_field(HIGH), 2000);
	} else {
		for (int i = 0; i < 50; i++) {
			CHECK_EQ(h_thread_prio(low_tid), h_fifo_prio_field(LOW));
			h_sleep_ms(1);
		}
	}
	H_STORE(&s->low_release, 1);
	WAIT_FOR(H_LOAD(&s->low_unlocked), 2000);
	WAIT_FOR(H_LOAD(&s->high_done), 2000);
	CHECK_OK(s->high_ret);
	CHECK_OK(s->low_ret);
	CHECK_EQ(H_LOAD(&s->low_prio_before_unlock),
		 h_fifo_prio_field(proto == RTS_PROTO_PIP ? HIGH : LOW));
	CHECK_EQ(H_LOAD(&s->low_prio_after_unlock), h_fifo_prio_field(LOW));
	CHECK_EQ(h_thread_prio(low_tid), h_fifo_prio_field(LOW));
	H_STORE(&s->low_exit, 1);
	h_join(low, 2000);
	h_join(high, 2000);
	CHECK_EQ(cond_waiters(&s->c), 0);
	free(s);
}

static void test_cond_requeue_boost_pip(void)
{
	cond_scenario(RTS_PROTO_PIP);
}

static void test_cond_no_boost_none(void)
{
	cond_scenario(RTS_PROTO_NONE);
}

/*
 * Two waiters (30, then 40): the owner takes the maximum of its waiters'
 * priorities, and its own back at unlock.
 */
static void test_mutex_boost_is_max_of_waiters_pip(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct shared *s = calloc(1, sizeof(*s));
	CHECK(s != NULL);
	mutex_init_proto(&s->m, RTS_PROTO_PIP);

	pthread_t low, w30, w40;
	h_thread_start(&low, low_mutex_main, s, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&s->low_locked), 2000);
	pid_t low_tid = H_LOAD(&s->low_tid);

	h_thread_start(&w30, high_lock_main, s, 30, rt_cpu);
	WAIT_FOR(H_LOAD(&s->high_started) && h_thread_state(H_LOAD(&s->high_tid)) == 'S', 2000);
	WAIT_FOR(h_thread_prio(low_tid) == h_fifo_prio_field(30), 2000);
	pid_t first = H_LOAD(&s->high_tid);
	H_STORE(&s->high_started, 0);
	h_thread_start(&w40, high_lock_main, s, 40, rt_cpu);
	WAIT_FOR(H_LOAD(&s->high_started) && H_LOAD(&s->high_tid) != first &&
			 h_thread_state(H_LOAD(&s->high_tid)) == 'S',
		 2000);
	WAIT_FOR(h_thread_prio(low_tid) == h_fifo_prio_field(40), 2000);
	H_STORE(&s->low_release, 1);
	WAIT_FOR(H_LOAD(&s->low_unlocked), 2000);
	h_join(w30, 2000);
	h_join(w40, 2000);
	CHECK_OK(s->high_ret);
	CHECK_OK(s->low_ret);
	CHECK_EQ(H_LOAD(&s->low_prio_before_unlock), h_fifo_prio_field(40));
	CHECK_EQ(H_LOAD(&s->low_prio_after_unlock), h_fifo_prio_field(LOW));
	H_STORE(&s->low_exit, 1);
	h_join(low, 2000);
	free(s);
}

static const struct h_case cases[] = {
	H_CASE(test_mutex_boost_pip, 8000),
	H_CASE(test_mutex_no_boost_none, 8000),
	H_CASE(test_cond_requeue_boost_pip, 8000),
	H_CASE(test_cond_no_boost_none, 8000),
	H_CASE(test_mutex_boost_is_max_of_waiters_pip, 8000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
