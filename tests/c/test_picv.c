/* SPDX-License-Identifier: MIT */
/*
 * PI on condition variables (rts_cond_helper_add/del, seed 004): a waiter
 * lends its priority to the condvar's helper, transitively, and the loan ends
 * when it is woken; observed in /proc (field 18: prio = -1 - rtprio under
 * SCHED_FIFO). Every real-time thread runs on one CPU, the other stays free;
 * every wait is bounded by the harness.
 */
#include "picv_fixture.h"

/* A LOW helper of a condvar, and a HIGH waiter running `wait` on it, lending to the helper. */
struct loan {
	struct condition c;
	struct actor helper, waiter;
	pthread_t helper_thread, waiter_thread;
};

/* helper_signals: at step 1 the helper makes the condition true itself. */
static void loan_start(struct loan *l, bool helper_signals, void *(*wait)(struct actor *))
{
	h_require_rt(&rt_cpu, &free_cpu);
	condition_init(&l->c);
	start(&l->helper, helper_work, helper_signals ? &l->c : NULL, LOW, &l->helper_thread);
	CHECK_OK(rts_cond_helper_add(&l->c.cond, atomic_load(&l->helper.tid)));
	expect_prio(&l->helper, LOW);
	start(&l->waiter, wait, &l->c, HIGH, &l->waiter_thread);
	expect_prio(&l->helper, HIGH); /* the waiter's loan */
}

/* The waiter's wait returns `expected`, and its loan is withdrawn. */
static void loan_end(struct loan *l, int expected)
{
	WAIT_FOR(atomic_load(&l->waiter.done), 2000);
	CHECK_EQ(atomic_load(&l->waiter.result), expected);
	expect_prio(&l->helper, LOW);
	atomic_store(&l->helper.step, 2);
	h_join(l->helper_thread, 2000);
	h_join(l->waiter_thread, 2000);
}

static void test_waiter_lends_to_helper_until_the_helper_signals(void)
{
	static struct loan l;
	loan_start(&l, true, waiter_work);
	atomic_store(&l.helper.step, 1); /* the helper signals: FUTEX_UNLOCK_PI on the token */
	loan_end(&l, 0);
	CHECK_OK(rts_cond_destroy(&l.c.cond));
}

/*
 * The helper signals with the waiter's mutex held and unlocks it only at
 * step 2: the token is handed over at that unlock (like requeue-PI), so
 * until then the waiter has not returned and still lends to the helper.
 */
static void *helper_signals_then_holds_mutex(struct actor *a)
{
	struct condition *c = a->context;
	wait_step(a, 1);
	CHECK_OK(rts_mutex_lock(&c->mutex));
	c->ready = 1;
	CHECK_OK(rts_cond_signal(&c->cond));
	atomic_store(&a->result, 0); /* signalled, mutex held */
	wait_step(a, 2);
	CHECK_OK(rts_mutex_unlock(&c->mutex));
	wait_step(a, 3);
	atomic_store(&a->done, 1);
	return NULL;
}

static void check_hand_over_at_unlock(void *(*wait)(struct actor *))
{
	static struct loan l;
	h_require_rt(&rt_cpu, &free_cpu);
	condition_init(&l.c);
	start(&l.helper, helper_signals_then_holds_mutex, &l.c, LOW, &l.helper_thread);
	CHECK_OK(rts_cond_helper_add(&l.c.cond, atomic_load(&l.helper.tid)));
	start(&l.waiter, wait, &l.c, HIGH, &l.waiter_thread);
	expect_prio(&l.helper, HIGH);
	atomic_store(&l.helper.step, 1);
	WAIT_FOR(atomic_load(&l.helper.result) == 0, 2000);
	h_sleep_ms(150); /* past a timed waiter's 100 ms deadline */
	CHECK_EQ(prio_of(&l.helper), h_fifo_prio_field(HIGH)); /* still lent to */
	CHECK(!atomic_load(&l.waiter.done));
	atomic_store(&l.helper.step, 2); /* the unlock hands the token over */
	WAIT_FOR(atomic_load(&l.waiter.done), 2000);
	CHECK_EQ(atomic_load(&l.waiter.result), 0); /* signalled: no ETIMEDOUT */
	expect_prio(&l.helper, LOW);
	atomic_store(&l.helper.step, 3);
	h_join(l.helper_thread, 2000);
	h_join(l.waiter_thread, 2000);
	CHECK_OK(rts_cond_destroy(&l.c.cond));
}

static void test_helper_holding_the_mutex_hands_over_at_its_unlock(void)
{
	check_hand_over_at_unlock(waiter_work);
}

static void test_timed_waiter_signalled_before_its_deadline_is_not_timed_out(void)
{
	check_hand_over_at_unlock(timed_waiter_work);
}

static void test_a_signal_from_a_non_helper_also_ends_the_loan(void)
{
	static struct loan l;
	loan_start(&l, false, waiter_work);
	make_ready(&l.c, false); /* the main thread signals: the wake signal path */
	loan_end(&l, 0);
}

static void test_timeout_ends_the_loan(void)
{
	static struct loan l;
	loan_start(&l, false, timed_waiter_work);
	loan_end(&l, ETIMEDOUT);
}

static void test_loans_combine_by_maximum(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	struct actor helper = { 0 }, mid = { 0 }, high = { 0 };
	pthread_t th, tm, thigh;
	start(&helper, helper_work, NULL, LOW, &th);
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&helper.tid)));
	start(&mid, waiter_work, &c, MID, &tm);
	expect_prio(&helper, MID);
	start(&high, timed_waiter_work, &c, HIGH, &thigh);
	expect_prio(&helper, HIGH);
	/* The high waiter times out: its loan ends, the other one's stays. */
	WAIT_FOR(atomic_load(&high.done), 2000);
	CHECK_EQ(atomic_load(&high.result), ETIMEDOUT);
	expect_prio(&helper, MID);
	CHECK_EQ(atomic_load(&mid.done), 0);
	make_ready(&c, true);
	WAIT_FOR(atomic_load(&mid.done) && atomic_load(&high.done), 2000);
	expect_prio(&helper, LOW);
	atomic_store(&helper.step, 2);
	h_join(th, 2000);
	h_join(tm, 2000);
	h_join(thigh, 2000);
}

/* The helper blocks on a PIP mutex that `owner` holds: the owner inherits the waiter's priority. */
struct chain {
	struct condition first;  /* the waiter waits here, lending to the helper */
	struct condition second; /* the helper waits here (CV to CV), or */
	rts_mutex_t held;        /* locks this (CV to mutex) */
};

static void *owner_work(struct actor *a)
{
	struct chain *chain = a->context;
	CHECK_OK(rts_mutex_lock(&chain->held));
	atomic_store(&a->step, 1);
	WAIT_FOR(atomic_load(&a->step) >= 2, 5000);
	CHECK_OK(rts_mutex_unlock(&chain->held));
	atomic_store(&a->done, 1);
	wait_step(a, 3);
	return NULL;
}

static void *helper_locking_work(struct actor *a)
{
	struct chain *chain = a->context;
	wait_step(a, 1);
	CHECK_OK(rts_mutex_lock(&chain->held));
	CHECK_OK(rts_mutex_unlock(&chain->held));
	make_ready(&chain->first, false);
	atomic_store(&a->done, 1);
	wait_step(a, 2);
	return NULL;
}

static void test_transitive_through_a_pi_mutex(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct chain chain;
	condition_init(&chain.first);
	rts_mutexattr_t attr;
	CHECK_OK(rts_mutexattr_init(&attr));
	CHECK_OK(rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP));
	CHECK_OK(rts_mutex_init(&chain.held, &attr));
	struct actor owner = { 0 }, helper = { 0 }, waiter = { 0 };
	pthread_t to, th, tw;
	start(&owner, owner_work, &chain, LOW, &to);
	wait_step(&owner, 1);
	start(&helper, helper_locking_work, &chain, LOW + 1, &th);
	atomic_store(&helper.step, 1); /* blocks on `held` */
	expect_prio(&owner, LOW + 1);
	CHECK_OK(rts_cond_helper_add(&chain.first.cond, atomic_load(&helper.tid)));
	start(&waiter, waiter_work, &chain.first, HIGH, &tw);
	expect_prio(&helper, HIGH);
	expect_prio(&owner, HIGH); /* CV -> mutex */
	atomic_store(&owner.step, 2);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), 0);
	WAIT_FOR(atomic_load(&helper.done), 2000);
	EXPECT_AT_BASE(&owner, &helper); /* no leaked boost */
	atomic_store(&owner.step, 3);
	atomic_store(&helper.step, 2);
	h_join(to, 2000);
	h_join(th, 2000);
	h_join(tw, 2000);
}

static void *helper_waiting_work(struct actor *a)
{
	struct chain *chain = a->context;
	struct actor self = { 0 };
	self.context = &chain->second;
	waiter_work(&self); /* waits on the second condvar, lending to its helper */
	atomic_store(&a->result, atomic_load(&self.result));
	make_ready(&chain->first, false);
	atomic_store(&a->done, 1);
	wait_step(a, 2);
	return NULL;
}

static void test_transitive_through_another_picv(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct chain chain;
	condition_init(&chain.first);
	condition_init(&chain.second);
	struct actor last = { 0 }, middle = { 0 }, waiter = { 0 };
	pthread_t tl, tm, tw;
	start(&last, helper_work, &chain.second, LOW, &tl);
	CHECK_OK(rts_cond_helper_add(&chain.second.cond, atomic_load(&last.tid)));
	start(&middle, helper_waiting_work, &chain, LOW + 1, &tm);
	expect_prio(&last, LOW + 1);
	CHECK_OK(rts_cond_helper_add(&chain.first.cond, atomic_load(&middle.tid)));
	start(&waiter, waiter_work, &chain.first, HIGH, &tw);
	expect_prio(&middle, HIGH);
	expect_prio(&last, HIGH); /* CV -> CV: a pipeline of three stages */
	atomic_store(&last.step, 1);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), 0);
	WAIT_FOR(atomic_load(&middle.done), 2000);
	EXPECT_AT_BASE(&last, &middle); /* no leaked boost */
	atomic_store(&last.step, 2);
	atomic_store(&middle.step, 2);
	h_join(tl, 2000);
	h_join(tm, 2000);
	h_join(tw, 2000);
}

static void test_helper_added_and_removed_while_a_waiter_waits(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	struct actor helper = { 0 }, waiter = { 0 };
	pthread_t th, tw;
	start(&helper, helper_work, NULL, LOW, &th);
	make_picv(&c);
	start(&waiter, waiter_work, &c, HIGH, &tw);
	WAIT_FOR(h_thread_state(atomic_load(&waiter.tid)) == 'S', 2000);
	h_sleep_ms(20);
	CHECK_EQ(prio_of(&helper), h_fifo_prio_field(LOW));
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&helper.tid)));
	expect_prio(&helper, HIGH);
	CHECK_OK(rts_cond_helper_del(&c.cond, atomic_load(&helper.tid)));
	expect_prio(&helper, LOW);
	CHECK_EQ(atomic_load(&waiter.done), 0); /* still waiting */
	make_ready(&c, false);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), 0);
	atomic_store(&helper.step, 2);
	h_join(th, 2000);
	h_join(tw, 2000);
}

static void test_helper_exit_wakes_its_waiter_with_esrch(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	struct actor helper = { 0 }, waiter = { 0 };
	pthread_t th, tw;
	start(&helper, exiting_helper_work, NULL, LOW, &th);
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&helper.tid)));
	start(&waiter, waiter_work, &c, HIGH, &tw);
	expect_prio(&helper, HIGH);
	atomic_store(&helper.step, 1);
	h_join(th, 2000);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), ESRCH); /* and it holds the mutex: waiter_work unlocked it */
	CHECK_ERR(ENOENT, rts_cond_helper_del(&c.cond, atomic_load(&helper.tid)));
	h_join(tw, 2000);
}

/* A waits on CV1 lending to B; B waits on CV2 lending to A. */
static void test_donation_cycle_is_reported(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c1, c2;
	condition_init(&c1);
	condition_init(&c2);
	make_picv(&c1);
	make_picv(&c2);
	struct actor a = { 0 }, b = { 0 };
	pthread_t ta, tb;
	start(&a, waiter_work, &c1, MID, &ta);
	WAIT_FOR(h_thread_state(atomic_load(&a.tid)) == 'S', 2000);
	start(&b, waiter_work, &c2, MID, &tb);
	WAIT_FOR(h_thread_state(atomic_load(&b.tid)) == 'S', 2000);
	CHECK_OK(rts_cond_helper_add(&c2.cond, atomic_load(&a.tid)));
	/* B now lends to A; A lending to B would close the cycle. */
	CHECK_OK(rts_cond_helper_add(&c1.cond, atomic_load(&b.tid)));
	WAIT_FOR(atomic_load(&a.done), 2000);
	CHECK_EQ(atomic_load(&a.result), EDEADLK);
	/* A's thread then ends, and B, which lends to it, learns that its helper exited. */
	WAIT_FOR(atomic_load(&b.done), 2000);
	CHECK_EQ(atomic_load(&b.result), ESRCH);
	h_join(ta, 2000);
	h_join(tb, 2000);
}

static void test_misuse_gets_exact_errors(void)
{
	static struct condition c;
	condition_init(&c);
	pid_t self = h_gettid();
	CHECK_ERR(EINVAL, rts_cond_helper_add(NULL, self));
	CHECK_ERR(EINVAL, rts_cond_helper_add(&c.cond, 0));
	CHECK_ERR(ESRCH, rts_cond_helper_add(&c.cond, 0x3ffffff0));
	CHECK_ERR(ENOENT, rts_cond_helper_del(&c.cond, self));
	CHECK_OK(rts_cond_helper_add(&c.cond, self));
	CHECK_ERR(EEXIST, rts_cond_helper_add(&c.cond, self));
	CHECK_OK(rts_cond_helper_del(&c.cond, self));
	CHECK_ERR(ENOENT, rts_cond_helper_del(&c.cond, self));
	CHECK_OK(rts_cond_destroy(&c.cond));

	rts_condattr_t shared;
	rts_cond_t pshared_cond;
	CHECK_OK(rts_condattr_init(&shared));
	CHECK_OK(rts_condattr_setpshared(&shared, RTS_PROCESS_SHARED));
	CHECK_OK(rts_cond_init(&pshared_cond, &shared));
	CHECK_ERR(ENOTSUP, rts_cond_helper_add(&pshared_cond, self));
}

static void *idle_work(struct actor *a)
{
	wait_step(a, 2);
	return NULL;
}

static void test_plain_waiters_refuse_the_first_helper(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	struct actor one = { 0 }, waiter = { 0 };
	pthread_t t1, tw;
	start(&one, idle_work, NULL, LOW, &t1);
	/* A plain waiter sleeps in the kernel's requeue-PI queue: no PI-CV now. */
	start(&waiter, waiter_work, &c, MID, &tw);
	WAIT_FOR(h_thread_state(atomic_load(&waiter.tid)) == 'S', 2000);
	h_sleep_ms(10);
	CHECK_ERR(EBUSY, rts_cond_helper_add(&c.cond, atomic_load(&one.tid)));
	make_ready(&c, false);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&one.tid)));
	atomic_store(&one.step, 2);
	h_join(t1, 2000);
	h_join(tw, 2000);
}

/* Whether thread tid sleeps in futex(2) (/proc/<tid>/syscall starts with the call's number). */
static bool sleeps_in_futex(pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	long nr = -1;
	int n = fscanf(f, "%ld", &nr);
	fclose(f);
	return n == 1 && nr == SYS_futex;
}

/*
 * Signals wake PI-CV waiters highest priority first, FIFO among equals. The
 * first waiter arrives alone (its priority is read only when the second
 * one must be ordered against it).
 */
static void test_signals_wake_waiters_by_priority_fifo_among_equals(void)
{
	enum { N = 4 };
	static const int prios[N] = { LOW, MID, HIGH, MID };
	static const int expected[N] = { 2, 1, 3, 0 };
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	static struct actor helper, waiters[N];
	pthread_t th, tw[N];
	memset(&helper, 0, sizeof(helper));
	memset(waiters, 0, sizeof(waiters));
	start(&helper, idle_work, NULL, 1, &th);
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&helper.tid)));
	for (int i = 0; i < N; i++) {
		start(&waiters[i], waiter_work, &c, prios[i], &tw[i]);
		WAIT_FOR(sleeps_in_futex(atomic_load(&waiters[i].tid)), 2000);
	}
	expect_prio(&helper, HIGH);
	CHECK_OK(rts_mutex_lock(&c.mutex));
	c.ready = 1;
	CHECK_OK(rts_mutex_unlock(&c.mutex));
	for (int k = 0; k < N; k++) {
		CHECK_OK(rts_mutex_lock(&c.mutex));
		CHECK_OK(rts_cond_signal(&c.cond));
		CHECK_OK(rts_mutex_unlock(&c.mutex));
		WAIT_FOR(atomic_load(&waiters[expected[k]].done), 2000);
		for (int later = k + 1; later < N; later++)
			CHECK_MSG(!atomic_load(&waiters[expected[later]].done),
				  "waiter %d (priority %d) woke before waiter %d", expected[later],
				  prios[expected[later]], expected[k]);
		CHECK_EQ(atomic_load(&waiters[expected[k]].result), 0);
	}
	for (int i = 0; i < N; i++)
		h_join(tw[i], 2000);
	EXPECT_AT_BASE(&helper);
	atomic_store(&helper.step, 2);
	h_join(th, 2000);
	CHECK_OK(rts_cond_destroy(&c.cond));
}

/*
 * Seed 004 Fig. 6 on one CPU: a high-priority consumer waits for a
 * low-priority producer that needs 60 ms of CPU; a medium "annoyer" then
 * burns 300 ms. With PI-CV the producer, lent the consumer's priority,
 * finishes before the annoyer; without it the annoyer runs first.
 */
static atomic_int finish_order;
static atomic_int producer_rank, annoyer_rank;

static void *producer_work(struct actor *a)
{
	wait_step(a, 1);
	h_burn_cpu_ms(60, 5000);
	atomic_store(&producer_rank, atomic_fetch_add(&finish_order, 1) + 1);
	make_ready(a->context, false);
	atomic_store(&a->done, 1);
	wait_step(a, 2);
	return NULL;
}

static void *annoyer_work(struct actor *a)
{
	h_burn_cpu_ms(300, 5000);
	atomic_store(&annoyer_rank, atomic_fetch_add(&finish_order, 1) + 1);
	atomic_store(&a->done, 1);
	return NULL;
}

static void run_producer_consumer(bool picv)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	atomic_store(&finish_order, 0);
	struct actor producer = { 0 }, consumer = { 0 }, annoyer = { 0 };
	pthread_t tp, tc, ta;
	start(&producer, producer_work, &c, LOW, &tp);
	if (picv)
		CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&producer.tid)));
	start(&consumer, waiter_work, &c, HIGH, &tc);
	WAIT_FOR(h_thread_state(atomic_load(&consumer.tid)) == 'S', 2000);
	h_sleep_ms(10);
	atomic_store(&producer.step, 1); /* the producer starts its work ... */
	h_sleep_ms(5);
	start(&annoyer, annoyer_work, NULL, MID, &ta); /* ... and the annoyer arrives */
	WAIT_FOR(atomic_load(&annoyer.done) && atomic_load(&consumer.done), 10000);
	EXPECT_AT_BASE(&producer); /* no leaked boost */
	atomic_store(&producer.step, 2);
	h_join(tp, 2000);
	h_join(tc, 2000);
	h_join(ta, 2000);
	if (picv)
		CHECK_MSG(atomic_load(&producer_rank) < atomic_load(&annoyer_rank),
			  "with PI-CV the annoyer preempted the producer the consumer waited for");
	else
		CHECK_MSG(atomic_load(&producer_rank) > atomic_load(&annoyer_rank),
			  "without PI-CV the producer finished first: the test shows nothing");
	CHECK_EQ(atomic_load(&consumer.result), 0);
}

static void test_picv_keeps_the_annoyer_from_delaying_the_consumer(void)
{
	run_producer_consumer(true);
}

static void test_without_picv_the_annoyer_delays_the_consumer(void)
{
	run_producer_consumer(false);
}

static const struct h_case cases[] = {
	H_CASE(test_waiter_lends_to_helper_until_the_helper_signals, 10000),
	H_CASE(test_helper_holding_the_mutex_hands_over_at_its_unlock, 10000),
	H_CASE(test_timed_waiter_signalled_before_its_deadline_is_not_timed_out, 10000),
	H_CASE(test_a_signal_from_a_non_helper_also_ends_the_loan, 10000),
	H_CASE(test_timeout_ends_the_loan, 10000),
	H_CASE(test_loans_combine_by_maximum, 10000),
	H_CASE(test_transitive_through_a_pi_mutex, 10000),
	H_CASE(test_transitive_through_another_picv, 10000),
	H_CASE(test_helper_added_and_removed_while_a_waiter_waits, 10000),
	H_CASE(test_helper_exit_wakes_its_waiter_with_esrch, 10000),
	H_CASE(test_donation_cycle_is_reported, 10000),
	H_CASE(test_misuse_gets_exact_errors, 5000),
	H_CASE(test_plain_waiters_refuse_the_first_helper, 10000),
	H_CASE(test_signals_wake_waiters_by_priority_fifo_among_equals, 10000),
	H_CASE(test_picv_keeps_the_annoyer_from_delaying_the_consumer, 20000),
	H_CASE(test_without_picv_the_annoyer_delays_the_consumer, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
