/* SPDX-License-Identifier: MIT */
/*
 * rts_cond with an RTS_PROTO_FIFO mutex (seed 000's COND_WAIT / COND_REQUEUE):
 * FIFO order of wait -> wake -> reacquire, the global order of a requeue
 * onto a mutex that already has waiters, and DEQUEUE from the middle of a
 * queue of 5 by timeout, cancellation and thread exit.
 */
#include "fifo_fixture.h"

#define QUEUE_LEN 5

struct pair {
	rts_mutex_t m;
	rts_cond_t c;
	struct fifo_log log;
	struct queuer q[QUEUE_LEN + 2];
};

static void pair_init(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	fifo_mutex_init(&p->m);
	CHECK_OK(rts_cond_init(&p->c, NULL));
}

/* Start waiter i on the condvar; return once it is in the condvar's queue. */
static void start_waiter(struct pair *p, int i, enum queuer_kind kind)
{
	unsigned before = cond_waiters(&p->c);
	queuer_start(&p->q[i], i, kind, &p->m, &p->c, &p->log);
	WAIT_FOR(cond_waiters(&p->c) == before + 1, 5000);
}

static void join_all(struct pair *p, int n)
{
	for (int i = 0; i < n; i++)
		h_join(p->q[i].thread, 5000);
}

static void wake_all_by(struct pair *p, bool broadcast, int n)
{
	CHECK_OK(rts_mutex_lock(&p->m));
	if (broadcast)
		CHECK_OK(rts_cond_broadcast(&p->c));
	else
		for (int i = 0; i < n; i++)
			CHECK_OK(rts_cond_signal(&p->c));
	CHECK_EQ(cond_waiters(&p->c), 0u); /* all moved at once, none woken yet */
	CHECK_OK(rts_mutex_unlock(&p->m));
}

static void cond_order(bool broadcast)
{
	static struct pair p;
	pair_init(&p);
	for (int i = 0; i < QUEUE_LEN; i++)
		start_waiter(&p, i, QUEUE_COND);
	wake_all_by(&p, broadcast, QUEUE_LEN);
	join_all(&p, QUEUE_LEN);
	check_order(&p.log, (const int[]){ 0, 1, 2, 3, 4 }, QUEUE_LEN);
	CHECK_OK(rts_cond_destroy(&p.c));
}

static void test_broadcast_fifo_order(void)
{
	cond_order(true);
}

static void test_signal_fifo_order(void)
{
	cond_order(false);
}

/*
 * Waiters 0..2 in the condvar, then 3 and 4 queued on the mutex; a broadcast
 * appends the condvar's queue behind 3 and 4: 3 4 0 1 2.
 */
static void test_requeue_global_order(void)
{
	static struct pair p;
	pair_init(&p);
	for (int i = 0; i < 3; i++)
		start_waiter(&p, i, QUEUE_COND);
	CHECK_OK(rts_mutex_lock(&p.m));
	for (int i = 3; i < 5; i++)
		queuer_start(&p.q[i], i, QUEUE_LOCK, &p.m, NULL, &p.log);
	CHECK_OK(rts_cond_broadcast(&p.c));
	CHECK_OK(rts_mutex_unlock(&p.m));
	join_all(&p, QUEUE_LEN);
	check_order(&p.log, (const int[]){ 3, 4, 0, 1, 2 }, QUEUE_LEN);
}

/* Signal moves one: the first waiter goes behind the mutex's waiter, the rest stay. */
static void test_signal_moves_head_only(void)
{
	static struct pair p;
	pair_init(&p);
	for (int i = 0; i < 3; i++)
		start_waiter(&p, i, QUEUE_COND);
	CHECK_OK(rts_mutex_lock(&p.m));
	queuer_start(&p.q[3], 3, QUEUE_LOCK, &p.m, NULL, &p.log);
	CHECK_OK(rts_cond_signal(&p.c));
	CHECK_EQ(cond_waiters(&p.c), 2u);
	CHECK_OK(rts_mutex_unlock(&p.m));
	h_join(p.q[3].thread, 5000);
	h_join(p.q[0].thread, 5000);
	check_order(&p.log, (const int[]){ 3, 0 }, 2);
	CHECK_ERR(EBUSY, rts_cond_destroy(&p.c));
	wake_all_by(&p, true, 0);
	h_join(p.q[1].thread, 5000);
	h_join(p.q[2].thread, 5000);
	check_order(&p.log, (const int[]){ 3, 0, 1, 2 }, 4);
	CHECK_OK(rts_cond_destroy(&p.c));
}

enum leave_how { BY_TIMEOUT, BY_CANCEL, BY_EXIT };

static void exit_now(int sig)
{
	(void)sig;
	pthread_exit(NULL);
}

/* Waiter 2 of 5 leaves the condvar's queue; the others keep their order. */
static void dequeue_middle(enum leave_how how)
{
	static struct pair p;
	pair_init(&p);
	for (int i = 0; i < QUEUE_LEN; i++) {
		p.q[i].deadline = h_deadline_ms(CLOCK_MONOTONIC, 300 * H_SLOW);
		start_waiter(&p, i, i == 2 && how == BY_TIMEOUT ? QUEUE_TIMEDWAIT : QUEUE_COND);
	}
	if (how == BY_CANCEL)
		CHECK_OK(pthread_cancel(p.q[2].thread));
	if (how == BY_EXIT) {
		struct sigaction sa = { .sa_handler = exit_now };
		CHECK_SYS(sigaction(SIGUSR1, &sa, NULL));
		CHECK_OK(pthread_kill(p.q[2].thread, SIGUSR1));
	}
	h_join(p.q[2].thread, 5000);
	/* it left owning the mutex (cleanup handlers ran with it held) */
	CHECK_ERR(how == BY_TIMEOUT ? ETIMEDOUT : ECANCELED, H_LOAD(&p.q[2].ret));
	CHECK_EQ(cond_waiters(&p.c), (unsigned)QUEUE_LEN - 1);
	wake_all_by(&p, true, 0);
	for (int i = 0; i < QUEUE_LEN; i++)
		if (i != 2)
			h_join(p.q[i].thread, 5000);
	check_order(&p.log, (const int[]){ 0, 1, 3, 4 }, QUEUE_LEN - 1);
	CHECK_OK(rts_cond_destroy(&p.c));
}

static void test_dequeue_middle_timeout(void)
{
	dequeue_middle(BY_TIMEOUT);
}

static void test_dequeue_middle_cancel(void)
{
	dequeue_middle(BY_CANCEL);
}

static void test_dequeue_middle_exit(void)
{
	if (H_TSAN)
		SKIP("pthread_exit from a signal handler is not async-signal-safe: TSan reports it");
	dequeue_middle(BY_EXIT);
}

static void test_errors(void)
{
	static struct pair p;
	pair_init(&p);
	start_waiter(&p, 0, QUEUE_COND);
	CHECK_ERR(EPERM, rts_cond_signal(&p.c)); /* the FIFO condvar needs the mutex held */
	CHECK_ERR(EBUSY, rts_cond_destroy(&p.c));
	rts_mutex_t other;
	mutex_init_proto(&other, RTS_PROTO_NONE);
	CHECK_OK(rts_mutex_lock(&other));
	CHECK_ERR(EINVAL, rts_cond_wait(&p.c, &other)); /* another mutex while one waits */
	CHECK_OK(rts_mutex_unlock(&other));
	wake_all_by(&p, false, 1);
	h_join(p.q[0].thread, 5000);
	CHECK_OK(rts_cond_destroy(&p.c));
	CHECK_ERR(EPERM, rts_cond_wait(&p.c, &p.m));
}

static const struct h_case cases[] = {
	H_CASE(test_broadcast_fifo_order, 20000),
	H_CASE(test_signal_fifo_order, 20000),
	H_CASE(test_requeue_global_order, 20000),
	H_CASE(test_signal_moves_head_only, 20000),
	H_CASE(test_dequeue_middle_timeout, 20000),
	H_CASE(test_dequeue_middle_cancel, 20000),
	H_CASE(test_dequeue_middle_exit, 20000),
	H_CASE(test_errors, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
