/* SPDX-License-Identifier: MIT */
/*
 * PI-CV with several helpers (the donation graph): a waiter lends its
 * priority to every helper of lower priority, transitively, the loans
 * combine by maximum and end on signal, broadcast and timeout, and every
 * thread is back at its base priority at the end of each case (no leaked
 * boost). Priorities are observed in /proc; real-time threads share one CPU.
 */
#include "picv_fixture.h"

#define LINGER 9 /* the step at which lingering waiters end */

/* A condition with n helpers idling at LOW, LOW+1, ... (helper i signals at step 1 if it is `signaller`). */
struct group {
	struct condition c;
	struct actor helpers[4];
	pthread_t threads[4];
	int n;
};

static void group_start(struct group *g, int n, int signaller)
{
	h_require_rt(&rt_cpu, &free_cpu);
	condition_init(&g->c);
	g->n = n;
	for (int i = 0; i < n; i++) {
		start(&g->helpers[i], helper_work, i == signaller ? &g->c : NULL, LOW + i,
		      &g->threads[i]);
		CHECK_OK(rts_cond_helper_add(&g->c.cond, atomic_load(&g->helpers[i].tid)));
	}
}

static void group_expect_all(struct group *g, int rtprio)
{
	for (int i = 0; i < g->n; i++)
		expect_prio(&g->helpers[i], rtprio);
}

static void group_expect_base(struct group *g)
{
	for (int i = 0; i < g->n; i++)
		EXPECT_AT_BASE(&g->helpers[i]);
}

static void group_end(struct group *g)
{
	group_expect_base(g);
	for (int i = 0; i < g->n; i++) {
		atomic_store(&g->helpers[i].step, 2);
		h_join(g->threads[i], 2000);
	}
}

/* Idles until step 2; at step 1 it waits on its context's condition instead, if it has one. */
static void *idle_work(struct actor *a)
{
	wait_step(a, 1);
	if (a->context)
		return waiter_work(a);
	wait_step(a, 2);
	return NULL;
}

/* Who ends the wait: the anchor (FUTEX_UNLOCK_PI), another helper, or a thread that is no helper. */
enum signaller { BY_ANCHOR = 0, BY_LAST_HELPER = 1, BY_OUTSIDER = 2 };

static void run_every_helper_is_raised_until_the_signal(int n_helpers, enum signaller who)
{
	static struct group g;
	int signaller = who == BY_ANCHOR ? 0 : who == BY_LAST_HELPER ? n_helpers - 1 : -1;
	group_start(&g, n_helpers, signaller);
	struct actor waiter = { .exit_step = LINGER };
	pthread_t tw;
	start(&waiter, waiter_work, &g.c, HIGH, &tw);
	group_expect_all(&g, HIGH);
	if (who == BY_OUTSIDER)
		make_ready(&g.c, false);
	else
		atomic_store(&g.helpers[signaller].step, 1);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), 0);
	EXPECT_AT_BASE(&waiter);
	group_end(&g);
	atomic_store(&waiter.step, LINGER);
	h_join(tw, 2000);
}

static void test_two_helpers_raised_until_the_anchor_signals(void)
{
	run_every_helper_is_raised_until_the_signal(2, BY_ANCHOR);
}

static void test_two_helpers_raised_until_the_other_helper_signals(void)
{
	run_every_helper_is_raised_until_the_signal(2, BY_LAST_HELPER);
}

static void test_three_helpers_raised_until_an_outsider_signals(void)
{
	run_every_helper_is_raised_until_the_signal(3, BY_OUTSIDER);
}

static void test_three_helpers_raised_until_the_last_helper_signals(void)
{
	run_every_helper_is_raised_until_the_signal(3, BY_LAST_HELPER);
}

static void test_broadcast_withdraws_every_loan(void)
{
	static struct group g;
	group_start(&g, 3, -1);
	struct actor mid = { .exit_step = LINGER }, high = { .exit_step = LINGER };
	pthread_t tm, th;
	start(&mid, waiter_work, &g.c, MID, &tm);
	group_expect_all(&g, MID);
	start(&high, waiter_work, &g.c, HIGH, &th);
	group_expect_all(&g, HIGH);
	make_ready(&g.c, true);
	WAIT_FOR(atomic_load(&mid.done) && atomic_load(&high.done), 2000);
	CHECK_EQ(atomic_load(&mid.result), 0);
	CHECK_EQ(atomic_load(&high.result), 0);
	EXPECT_AT_BASE(&mid, &high);
	group_end(&g);
	atomic_store(&mid.step, LINGER);
	atomic_store(&high.step, LINGER);
	h_join(tm, 2000);
	h_join(th, 2000);
}

/* The HIGH waiter times out: the loans fall to the MID waiter's, then to none on the signal. */
static void test_loans_combine_by_maximum_and_end_on_timeout(void)
{
	static struct group g;
	group_start(&g, 2, -1);
	struct actor mid = { 0 }, high = { 0 };
	pthread_t tm, th;
	start(&mid, waiter_work, &g.c, MID, &tm);
	group_expect_all(&g, MID);
	start(&high, timed_waiter_work, &g.c, HIGH, &th);
	group_expect_all(&g, HIGH);
	WAIT_FOR(atomic_load(&high.done), 2000);
	CHECK_EQ(atomic_load(&high.result), ETIMEDOUT);
	group_expect_all(&g, MID);
	CHECK_EQ(atomic_load(&mid.done), 0);
	make_ready(&g.c, false);
	WAIT_FOR(atomic_load(&mid.done), 2000);
	CHECK_EQ(atomic_load(&mid.result), 0);
	group_end(&g);
	h_join(tm, 2000);
	h_join(th, 2000);
}

/* A helper above the waiter keeps its own priority; a SCHED_OTHER helper is raised and given back. */
static void test_only_helpers_below_the_waiter_are_raised(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	struct actor above = { 0 }, other = { 0 }, waiter = { 0 };
	pthread_t ta, to, tw;
	start(&above, helper_work, NULL, HIGH + 5, &ta);
	start(&other, helper_work, NULL, 0, &to);
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&above.tid)));
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&other.tid)));
	start(&waiter, waiter_work, &c, HIGH, &tw);
	expect_prio(&other, HIGH); /* SCHED_OTHER raised to SCHED_FIFO */
	CHECK_EQ(prio_of(&above), h_fifo_prio_field(HIGH + 5));
	make_ready(&c, false);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	EXPECT_AT_BASE(&above, &other); /* `other` is SCHED_OTHER again */
	atomic_store(&above.step, 2);
	atomic_store(&other.step, 2);
	h_join(ta, 2000);
	h_join(to, 2000);
	h_join(tw, 2000);
}

/* One helper (token), two (donation), back to one whose anchor changed, then none. */
static void test_helpers_added_and_removed_while_a_waiter_waits(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	struct actor a = { 0 }, b = { 0 }, waiter = { 0 };
	pthread_t ta, tb, tw;
	start(&a, helper_work, NULL, LOW, &ta);
	start(&b, helper_work, NULL, LOW, &tb);
	make_picv(&c);
	start(&waiter, waiter_work, &c, HIGH, &tw);
	WAIT_FOR(h_thread_state(atomic_load(&waiter.tid)) == 'S', 2000);
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&a.tid)));
	expect_prio(&a, HIGH);
	CHECK_EQ(prio_of(&b), h_fifo_prio_field(LOW));
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&b.tid)));
	expect_prio(&b, HIGH);
	expect_prio(&a, HIGH);
	CHECK_OK(rts_cond_helper_del(&c.cond, atomic_load(&a.tid))); /* b becomes the anchor */
	expect_prio(&a, LOW);
	expect_prio(&b, HIGH);
	CHECK_OK(rts_cond_helper_del(&c.cond, atomic_load(&b.tid)));
	expect_prio(&b, LOW);
	CHECK_EQ(atomic_load(&waiter.done), 0); /* still waiting */
	make_ready(&c, false);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), 0);
	EXPECT_AT_BASE(&a, &b);
	atomic_store(&a.step, 2);
	atomic_store(&b.step, 2);
	h_join(ta, 2000);
	h_join(tb, 2000);
	h_join(tw, 2000);
}

/*
 * Helpers A (the anchor), B and C: B exits and the waiter keeps waiting; A
 * exits and the loan moves to C; C exits and the wait returns ESRCH.
 */
static void test_waiter_gets_esrch_only_when_every_helper_exited(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	condition_init(&c);
	struct actor a = { 0 }, b = { 0 }, cc = { 0 }, waiter = { 0 };
	pthread_t ta, tb, tc, tw;
	start(&a, exiting_helper_work, NULL, LOW, &ta);
	start(&b, exiting_helper_work, NULL, LOW, &tb);
	start(&cc, exiting_helper_work, NULL, LOW, &tc);
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&a.tid)));
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&b.tid)));
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&cc.tid)));
	start(&waiter, waiter_work, &c, HIGH, &tw);
	expect_prio(&a, HIGH);
	expect_prio(&b, HIGH);
	expect_prio(&cc, HIGH);
	atomic_store(&b.step, 1);
	h_join(tb, 2000);
	h_sleep_ms(10);
	CHECK_EQ(atomic_load(&waiter.done), 0);
	atomic_store(&a.step, 1);
	h_join(ta, 2000);
	h_sleep_ms(10);
	CHECK_EQ(atomic_load(&waiter.done), 0);
	expect_prio(&cc, HIGH); /* now the anchor */
	CHECK_ERR(ENOENT, rts_cond_helper_del(&c.cond, atomic_load(&a.tid))); /* dropped */
	CHECK_ERR(ENOENT, rts_cond_helper_del(&c.cond, atomic_load(&b.tid)));
	atomic_store(&cc.step, 1);
	h_join(tc, 2000);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), ESRCH);
	h_join(tw, 2000);
}

/*
 * A deadlock (a knot): B and C wait on c2 whose helper is A; A would wait on
 * c1 whose helpers are B and C. A's wait returns EDEADLK; A's thread then
 * ends, and B and C, whose only helper it was, get ESRCH.
 */
static void test_a_donation_knot_is_reported(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c1, c2;
	condition_init(&c1);
	condition_init(&c2);
	make_picv(&c1);
	struct actor a = { 0 }, b = { 0 }, cc = { 0 };
	pthread_t ta, tb, tc;
	start(&a, idle_work, &c1, LOW, &ta);
	CHECK_OK(rts_cond_helper_add(&c2.cond, atomic_load(&a.tid)));
	start(&b, waiter_work, &c2, MID, &tb);
	start(&cc, waiter_work, &c2, HIGH, &tc);
	expect_prio(&a, HIGH);
	atomic_store(&a.step, 1); /* a waits on c1 */
	CHECK_OK(rts_cond_helper_add(&c1.cond, atomic_load(&b.tid)));
	CHECK_OK(rts_cond_helper_add(&c1.cond, atomic_load(&cc.tid)));
	WAIT_FOR(atomic_load(&a.done), 2000);
	CHECK_EQ(atomic_load(&a.result), EDEADLK);
	h_join(ta, 2000);
	WAIT_FOR(atomic_load(&b.done) && atomic_load(&cc.done), 2000);
	CHECK_EQ(atomic_load(&b.result), ESRCH);
	CHECK_EQ(atomic_load(&cc.result), ESRCH);
	h_join(tb, 2000);
	h_join(tc, 2000);
}

/*
 * A cycle that is no deadlock: A waits on c1 with helpers {X, B}, B waits on
 * c2 with helpers {A, Y}. X and Y run, so both waits go on; the loans
 * combine around the cycle (everyone at B's HIGH) and end with the signals.
 */
static void test_a_cycle_with_a_way_out_is_no_deadlock(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c1, c2;
	condition_init(&c1);
	condition_init(&c2);
	make_picv(&c1);
	make_picv(&c2);
	struct actor a = { .exit_step = LINGER }, b = { 0 }, x = { 0 }, y = { 0 };
	pthread_t ta, tb, tx, ty;
	start(&x, helper_work, NULL, LOW, &tx);
	start(&y, helper_work, NULL, LOW, &ty);
	start(&a, waiter_work, &c1, MID, &ta);
	WAIT_FOR(h_thread_state(atomic_load(&a.tid)) == 'S', 2000);
	start(&b, waiter_work, &c2, HIGH, &tb);
	WAIT_FOR(h_thread_state(atomic_load(&b.tid)) == 'S', 2000);
	CHECK_OK(rts_cond_helper_add(&c2.cond, atomic_load(&a.tid)));
	CHECK_OK(rts_cond_helper_add(&c2.cond, atomic_load(&y.tid)));
	CHECK_OK(rts_cond_helper_add(&c1.cond, atomic_load(&x.tid)));
	CHECK_OK(rts_cond_helper_add(&c1.cond, atomic_load(&b.tid)));
	expect_prio(&a, HIGH);
	expect_prio(&x, HIGH); /* through A */
	expect_prio(&y, HIGH);
	h_sleep_ms(10);
	CHECK_EQ(atomic_load(&a.done) + atomic_load(&b.done), 0);
	make_ready(&c1, false);
	WAIT_FOR(atomic_load(&a.done), 2000);
	CHECK_EQ(atomic_load(&a.result), 0);
	EXPECT_AT_BASE(&x);
	expect_prio(&a, HIGH); /* B still waits, lending to A */
	make_ready(&c2, false);
	WAIT_FOR(atomic_load(&b.done), 2000);
	CHECK_EQ(atomic_load(&b.result), 0);
	EXPECT_AT_BASE(&a, &x, &y);
	atomic_store(&a.step, LINGER);
	atomic_store(&x.step, 2);
	atomic_store(&y.step, 2);
	h_join(ta, 2000);
	h_join(tb, 2000);
	h_join(tx, 2000);
	h_join(ty, 2000);
}

/* Seed 004 Fig. 7: a raised helper blocks on a PI mutex; its owner inherits. */
struct cv_and_mutex {
	struct condition c;
	rts_mutex_t held;
};

static void *owner_work(struct actor *a)
{
	struct cv_and_mutex *s = a->context;
	CHECK_OK(rts_mutex_lock(&s->held));
	atomic_store(&a->step, 1);
	wait_step(a, 2);
	CHECK_OK(rts_mutex_unlock(&s->held));
	wait_step(a, 3);
	return NULL;
}

static void *locking_helper_work(struct actor *a)
{
	struct cv_and_mutex *s = a->context;
	wait_step(a, 1);
	CHECK_OK(rts_mutex_lock(&s->held));
	CHECK_OK(rts_mutex_unlock(&s->held));
	make_ready(&s->c, false);
	wait_step(a, 2);
	return NULL;
}

/* blocked_index: 0, the anchor blocks on the mutex (the kernel carries it); 1, the other helper (sched_setattr, then the kernel). */
static void run_cv_to_mutex(int blocked_index)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct cv_and_mutex s;
	condition_init(&s.c);
	rts_mutexattr_t attr;
	CHECK_OK(rts_mutexattr_init(&attr));
	CHECK_OK(rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP));
	CHECK_OK(rts_mutex_init(&s.held, &attr));
	struct actor owner = { 0 }, helpers[2] = { { 0 }, { 0 } }, waiter = { .exit_step = LINGER };
	pthread_t to, th[2], tw;
	start(&owner, owner_work, &s, LOW, &to);
	wait_step(&owner, 1);
	for (int i = 0; i < 2; i++) {
		bool blocks = i == blocked_index;
		start(&helpers[i], blocks ? locking_helper_work : helper_work, blocks ? &s : NULL,
		      LOW + 1, &th[i]);
		CHECK_OK(rts_cond_helper_add(&s.c.cond, atomic_load(&helpers[i].tid)));
	}
	atomic_store(&helpers[blocked_index].step, 1); /* blocks on `held` */
	expect_prio(&owner, LOW + 1);
	start(&waiter, waiter_work, &s.c, HIGH, &tw);
	expect_prio(&helpers[0], HIGH);
	expect_prio(&helpers[1], HIGH);
	expect_prio(&owner, HIGH); /* CV -> mutex */
	atomic_store(&owner.step, 2);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	CHECK_EQ(atomic_load(&waiter.result), 0);
	EXPECT_AT_BASE(&owner, &helpers[0], &helpers[1], &waiter);
	atomic_store(&owner.step, 3);
	for (int i = 0; i < 2; i++)
		atomic_store(&helpers[i].step, 2);
	atomic_store(&waiter.step, LINGER);
	h_join(to, 2000);
	h_join(th[0], 2000);
	h_join(th[1], 2000);
	h_join(tw, 2000);
}

static void test_cv_to_mutex_through_the_anchor(void)
{
	run_cv_to_mutex(0);
}

static void test_cv_to_mutex_through_a_donation(void)
{
	run_cv_to_mutex(1);
}

/*
 * Seed 004 Fig. 4, a pipeline of three stages: the HIGH consumer waits on
 * `first`, whose helpers are the middle stage; one middle thread waits on
 * `second`, whose helpers are the last stage. Each condvar has n_first /
 * n_second helpers (1: the token, 2: donation), and the waiting middle
 * thread is helper `middle_index` of `first`.
 */
struct pipeline {
	struct condition first, second;
};

static void *middle_work(struct actor *a)
{
	struct pipeline *p = a->context;
	struct actor self = { .context = &p->second };
	waiter_work(&self);
	atomic_store(&a->result, atomic_load(&self.result));
	make_ready(&p->first, false);
	atomic_store(&a->done, 1);
	wait_step(a, LINGER);
	return NULL;
}

static void run_pipeline(int n_first, int n_second, int middle_index)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct pipeline p;
	condition_init(&p.first);
	condition_init(&p.second);
	struct actor last[2] = { { 0 }, { 0 } }, middle[2] = { { 0 }, { 0 } }, consumer = { 0 };
	pthread_t tl[2], tm[2], tc;
	for (int i = 0; i < n_second; i++) {
		start(&last[i], helper_work, i == 0 ? &p.second : NULL, LOW, &tl[i]);
		CHECK_OK(rts_cond_helper_add(&p.second.cond, atomic_load(&last[i].tid)));
	}
	for (int i = 0; i < n_first; i++) {
		bool waits = i == middle_index;
		start(&middle[i], waits ? middle_work : helper_work, waits ? &p : NULL, LOW + 1, &tm[i]);
		CHECK_OK(rts_cond_helper_add(&p.first.cond, atomic_load(&middle[i].tid)));
	}
	for (int i = 0; i < n_second; i++)
		expect_prio(&last[i], LOW + 1); /* the middle thread's own loan */
	start(&consumer, waiter_work, &p.first, HIGH, &tc);
	for (int i = 0; i < n_first; i++)
		expect_prio(&middle[i], HIGH);
	for (int i = 0; i < n_second; i++)
		expect_prio(&last[i], HIGH); /* CV -> CV */
	atomic_store(&last[0].step, 1); /* the last stage delivers; the middle one passes it on */
	WAIT_FOR(atomic_load(&consumer.done), 2000);
	CHECK_EQ(atomic_load(&consumer.result), 0);
	CHECK_EQ(atomic_load(&middle[middle_index].result), 0);
	for (int i = 0; i < n_second; i++)
		EXPECT_AT_BASE(&last[i]);
	for (int i = 0; i < n_first; i++)
		EXPECT_AT_BASE(&middle[i]);
	for (int i = 0; i < n_second; i++) {
		atomic_store(&last[i].step, 2);
		h_join(tl[i], 2000);
	}
	for (int i = 0; i < n_first; i++) {
		atomic_store(&middle[i].step, LINGER);
		h_join(tm[i], 2000);
	}
	h_join(tc, 2000);
}

static void test_pipeline_donation_then_donation_through_a_donated_helper(void)
{
	run_pipeline(2, 2, 1);
}

static void test_pipeline_donation_then_donation_through_the_anchor(void)
{
	run_pipeline(2, 2, 0);
}

static void test_pipeline_token_then_donation(void)
{
	run_pipeline(1, 2, 0);
}

static void test_pipeline_donation_then_token(void)
{
	run_pipeline(2, 1, 1);
}

/* A raised helper that sets its own priority keeps it when the loan ends. */
static void *self_setting_helper_work(struct actor *a)
{
	wait_step(a, 1);
	struct sched_param sp = { .sched_priority = MID };
	CHECK_OK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp));
	atomic_store(&a->done, 1);
	wait_step(a, 2);
	return NULL;
}

static void test_a_helper_that_sets_its_own_priority_keeps_it(void)
{
	static struct group g;
	group_start(&g, 1, -1);
	struct actor self_setter = { 0 }, waiter = { 0 };
	pthread_t ts, tw;
	start(&self_setter, self_setting_helper_work, NULL, LOW, &ts);
	CHECK_OK(rts_cond_helper_add(&g.c.cond, atomic_load(&self_setter.tid)));
	start(&waiter, waiter_work, &g.c, HIGH, &tw);
	expect_prio(&self_setter, HIGH);
	atomic_store(&self_setter.step, 1);
	WAIT_FOR(atomic_load(&self_setter.done), 2000);
	make_ready(&g.c, false);
	WAIT_FOR(atomic_load(&waiter.done), 2000);
	group_end(&g);
	h_sleep_ms(10);
	CHECK_EQ(prio_of(&self_setter), h_fifo_prio_field(MID)); /* its own choice, not LOW */
	atomic_store(&self_setter.step, 2);
	h_join(ts, 2000);
	h_join(tw, 2000);
}

static int set_deadline_self(void)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime_ns, deadline_ns, period_ns;
	} attr = { sizeof(attr), 6 /* SCHED_DEADLINE */, 0, 0, 0, 1000000, 10000000, 10000000 };
	return syscall(SYS_sched_setattr, 0, &attr, 0) == 0 ? 0 : errno;
}

static atomic_int deadline_refused; /* the error of sched_setattr(SCHED_DEADLINE) */

static void *deadline_waiter_work(void *arg)
{
	cpu_set_t every_cpu; /* a SCHED_DEADLINE thread may not be pinned */
	CPU_ZERO(&every_cpu);
	for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); cpu++)
		CPU_SET((int)cpu, &every_cpu);
	CHECK_OK(sched_setaffinity(0, sizeof(every_cpu), &every_cpu));
	int err = set_deadline_self();
	if (err) {
		atomic_store(&deadline_refused, err);
		return NULL;
	}
	waiter_work(arg);
	return NULL;
}

/* A SCHED_DEADLINE waiter cannot lend its deadline with sched_setattr: ENOTSUP, mutex held. */
static void test_deadline_waiter_with_two_helpers_is_refused(void)
{
	static struct group g;
	group_start(&g, 2, -1);
	struct actor waiter = { 0 };
	atomic_store(&waiter.result, -1);
	waiter.context = &g.c;
	pthread_t tw;
	h_thread_start(&tw, deadline_waiter_work, &waiter, 0, -1);
	h_join(tw, 2000);
	if (atomic_load(&deadline_refused))
		SKIP("SCHED_DEADLINE refused: %s", h_errname(atomic_load(&deadline_refused)));
	CHECK_EQ(atomic_load(&waiter.result), ENOTSUP);
	group_end(&g);
}

static void test_helper_limits_and_errors(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	static struct condition c;
	static struct actor idle[RTS_COND_MAX_HELPERS + 1];
	static pthread_t threads[RTS_COND_MAX_HELPERS + 1];
	condition_init(&c);
	for (int i = 0; i <= RTS_COND_MAX_HELPERS; i++) {
		start(&idle[i], idle_work, NULL, 0, &threads[i]);
		int expected = i < RTS_COND_MAX_HELPERS ? 0 : ENOSPC;
		CHECK_ERR(expected, rts_cond_helper_add(&c.cond, atomic_load(&idle[i].tid)));
	}
	CHECK_ERR(EEXIST, rts_cond_helper_add(&c.cond, atomic_load(&idle[3].tid)));
	CHECK_OK(rts_cond_helper_del(&c.cond, atomic_load(&idle[3].tid)));
	CHECK_ERR(ENOENT, rts_cond_helper_del(&c.cond, atomic_load(&idle[3].tid)));
	CHECK_OK(rts_cond_helper_add(&c.cond, atomic_load(&idle[RTS_COND_MAX_HELPERS].tid)));
	CHECK_OK(rts_cond_destroy(&c.cond));
	for (int i = 0; i <= RTS_COND_MAX_HELPERS; i++) {
		atomic_store(&idle[i].step, 2);
		h_join(threads[i], 2000);
	}
}

static const struct h_case cases[] = {
	H_CASE(test_two_helpers_raised_until_the_anchor_signals, 10000),
	H_CASE(test_two_helpers_raised_until_the_other_helper_signals, 10000),
	H_CASE(test_three_helpers_raised_until_an_outsider_signals, 10000),
	H_CASE(test_three_helpers_raised_until_the_last_helper_signals, 10000),
	H_CASE(test_broadcast_withdraws_every_loan, 10000),
	H_CASE(test_loans_combine_by_maximum_and_end_on_timeout, 10000),
	H_CASE(test_only_helpers_below_the_waiter_are_raised, 10000),
	H_CASE(test_helpers_added_and_removed_while_a_waiter_waits, 10000),
	H_CASE(test_waiter_gets_esrch_only_when_every_helper_exited, 10000),
	H_CASE(test_a_donation_knot_is_reported, 10000),
	H_CASE(test_a_cycle_with_a_way_out_is_no_deadlock, 10000),
	H_CASE(test_cv_to_mutex_through_the_anchor, 10000),
	H_CASE(test_cv_to_mutex_through_a_donation, 10000),
	H_CASE(test_pipeline_donation_then_donation_through_a_donated_helper, 10000),
	H_CASE(test_pipeline_donation_then_donation_through_the_anchor, 10000),
	H_CASE(test_pipeline_token_then_donation, 10000),
	H_CASE(test_pipeline_donation_then_token, 10000),
	H_CASE(test_a_helper_that_sets_its_own_priority_keeps_it, 10000),
	H_CASE(test_deadline_waiter_with_two_helpers_is_refused, 10000),
	H_CASE(test_helper_limits_and_errors, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
