/* SPDX-License-Identifier: MIT */
/*
 * The original priority ceiling protocol (RTS_PROTO_PCP), on one CPU:
 *  - a thread whose priority is not above the system ceiling blocks although
 *    the lock it asks for is free, and the ceiling's holder runs at the
 *    blocked thread's priority meanwhile (/proc), base priority unchanged;
 *  - a thread above the system ceiling takes a free lock at once;
 *  - two threads nesting two locks in opposite orders never deadlock, over
 *    many releases that really interleave (the low one holds A when the high
 *    one wants B then A: with plain mutexes that is the textbook deadlock);
 *  - a job is blocked by at most one lower-priority critical section
 *    (the event log of a three-thread scenario where PIP would give two).
 * Real-time threads share one CPU; the controller reads /proc from the other.
 */
#include "ceiling_helpers.h"

#define LOW 10
#define MID 20
#define HIGH 30

enum { RES_A = 1, RES_B = 2 };

/* ---- blocking on the ceiling, inheritance ------------------------------- */

struct two_locks {
	rts_mutex_t a, b;
	struct ev_log log;
	pid_t l_tid, h_tid;
	int l_locked, l_go, l_done, h_done, exit_now;
	int l_ret, h_ret;
};

static int lock_logged(struct ev_log *log, char who, rts_mutex_t *m, int res)
{
	ev(log, who, EV_REQUEST, res);
	int ret = rts_mutex_lock(m);
	if (ret == 0)
		ev(log, who, EV_ACQUIRED, res);
	return ret;
}

static int unlock_logged(struct ev_log *log, char who, rts_mutex_t *m, int res)
{
	ev(log, who, EV_RELEASING, res);
	return rts_mutex_unlock(m);
}

/* L: A, then (when told) B nested inside A: it holds the ceiling, so B is its. */
static void *low_a_then_b(void *arg)
{
	struct two_locks *s = arg;
	H_STORE(&s->l_tid, h_gettid());
	int ret = lock_logged(&s->log, 'L', &s->a, RES_A);
	H_STORE(&s->l_locked, 1);
	if (ret == 0) {
		sleep_until(&s->l_go);
		ret = lock_logged(&s->log, 'L', &s->b, RES_B);
		if (ret == 0)
			ret = unlock_logged(&s->log, 'L', &s->b, RES_B);
		int r2 = unlock_logged(&s->log, 'L', &s->a, RES_A);
		if (ret == 0)
			ret = r2;
	}
	H_STORE(&s->l_ret, ret);
	H_STORE(&s->l_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

/* H: B, then A nested inside B (the opposite order). */
static void *high_b_then_a(void *arg)
{
	struct two_locks *s = arg;
	H_STORE(&s->h_tid, h_gettid());
	int ret = lock_logged(&s->log, 'H', &s->b, RES_B);
	if (ret == 0) {
		ret = lock_logged(&s->log, 'H', &s->a, RES_A);
		if (ret == 0)
			ret = unlock_logged(&s->log, 'H', &s->a, RES_A);
		int r2 = unlock_logged(&s->log, 'H', &s->b, RES_B);
		if (ret == 0)
			ret = r2;
	}
	H_STORE(&s->h_ret, ret);
	H_STORE(&s->h_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void test_pcp_blocks_on_ceiling_and_holder_inherits(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct two_locks *s = calloc(1, sizeof(*s));
	CHECK(s);
	ceil_mutex_init(&s->a, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&s->b, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);

	pthread_t low, high;
	h_thread_start(&low, low_a_then_b, s, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&s->l_locked), 2000);
	CHECK_OK(H_LOAD(&s->l_ret));
	pid_t ltid = H_LOAD(&s->l_tid);
	CHECK_AT_BASE(ltid, LOW); /* no priority change on the uncontended path */

	h_thread_start(&high, high_b_then_a, s, HIGH, rt_cpu);
	WAIT_FOR(ev_find(&s->log, 'H', EV_REQUEST, RES_B) >= 0 &&
			 h_thread_state(H_LOAD(&s->h_tid)) == 'S',
		 2000);
	/* B is free, yet H (level 30, not above the ceiling 30 that L holds) waits,
	 * and L runs at H's priority for as long as it does. */
	WAIT_FOR(effective_fifo_prio(ltid) == HIGH, 2000);
	for (int i = 0; i < 20; i++) {
		CHECK_EQ(mutex_owner(&s->b), 0);
		CHECK(ev_find(&s->log, 'H', EV_ACQUIRED, RES_B) < 0);
		CHECK_EQ(effective_fifo_prio(ltid), HIGH);
		h_sleep_ms(1);
	}
	CHECK_EQ(base_fifo_prio(ltid), LOW);

	H_STORE(&s->l_go, 1);
	WAIT_FOR(H_LOAD(&s->l_done) && H_LOAD(&s->h_done), 5000);
	CHECK_OK(H_LOAD(&s->l_ret));
	CHECK_OK(H_LOAD(&s->h_ret));
	/* L took B inside A (it held the ceiling), then let go of A; only then H. */
	CHECK_EV_BEFORE(&s->log, 'L', EV_ACQUIRED, RES_B, 'H', EV_ACQUIRED, RES_B);
	CHECK_EV_BEFORE(&s->log, 'L', EV_RELEASING, RES_A, 'H', EV_ACQUIRED, RES_B);
	CHECK_AT_BASE(ltid, LOW);
	CHECK_AT_BASE(H_LOAD(&s->h_tid), HIGH);
	H_STORE(&s->exit_now, 1);
	h_join(low, 2000);
	h_join(high, 2000);
	free(s);
}

/* ---- above the ceiling ---------------------------------------------------- */

struct above {
	rts_mutex_t a, b;
	pid_t l_tid;
	int l_locked, l_go, l_done, exit_now;
	int l_ret, h_ret, h_done, l_held_when_h_locked;
};

static void *low_holds_a(void *arg)
{
	struct above *s = arg;
	H_STORE(&s->l_tid, h_gettid());
	int ret = rts_mutex_lock(&s->a);
	H_STORE(&s->l_locked, 1);
	if (ret == 0) {
		sleep_until(&s->l_go);
		ret = rts_mutex_unlock(&s->a);
	}
	H_STORE(&s->l_ret, ret);
	H_STORE(&s->l_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void *high_takes_b(void *arg)
{
	struct above *s = arg;
	int ret = rts_mutex_lock(&s->b);
	if (ret == 0) {
		H_STORE(&s->l_held_when_h_locked, !H_LOAD(&s->l_done));
		ret = rts_mutex_unlock(&s->b);
	}
	H_STORE(&s->h_ret, ret);
	H_STORE(&s->h_done, 1);
	return NULL;
}

static void test_pcp_above_ceiling_takes_free_lock(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct above *s = calloc(1, sizeof(*s));
	CHECK(s);
	/* A is used by L and MID-level threads only: ceiling MID, below H. */
	ceil_mutex_init(&s->a, RTS_PROTO_PCP, MID, rt_cpu, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&s->b, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	pthread_t low, high;
	h_thread_start(&low, low_holds_a, s, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&s->l_locked), 2000);
	CHECK_OK(H_LOAD(&s->l_ret));
	h_thread_start(&high, high_takes_b, s, HIGH, rt_cpu);
	WAIT_FOR(H_LOAD(&s->h_done), 2000);
	CHECK_OK(H_LOAD(&s->h_ret));
	CHECK(H_LOAD(&s->l_held_when_h_locked));
	CHECK_AT_BASE(H_LOAD(&s->l_tid), LOW); /* nobody blocked: nobody boosted */
	H_STORE(&s->l_go, 1);
	WAIT_FOR(H_LOAD(&s->l_done), 2000);
	CHECK_OK(H_LOAD(&s->l_ret));
	H_STORE(&s->exit_now, 1);
	h_join(low, 2000);
	h_join(high, 2000);
	free(s);
}

/* ---- opposite nesting orders, many times ---------------------------------- */

#define NESTING_ROUNDS 300

struct nesting {
	rts_mutex_t a, b;
	pid_t l_tid, h_tid;
	int stop, exit_now;
	int inside_a, inside_b; /* plain: guarded by a and b */
	long l_rounds, h_rounds, interleaved;
	int l_ret, h_ret, l_done, h_done;
};

static int enter_checked(rts_mutex_t *m, int *inside)
{
	int ret = rts_mutex_lock(m);
	if (ret)
		return ret;
	if (*inside)
		FAIL("two threads inside the same critical section");
	*inside = 1;
	return 0;
}

static int leave_checked(rts_mutex_t *m, int *inside)
{
	*inside = 0;
	return rts_mutex_unlock(m);
}

/* L: A then B, back to back, keeping the CPU (it holds A most of the time). */
static void *nesting_low(void *arg)
{
	struct nesting *s = arg;
	H_STORE(&s->l_tid, h_gettid());
	int ret = 0;
	while (ret == 0 && !H_LOAD(&s->stop)) {
		ret = enter_checked(&s->a, &s->inside_a);
		if (ret)
			break;
		burn_loops(20000);
		ret = enter_checked(&s->b, &s->inside_b);
		if (ret == 0) {
			burn_loops(2000);
			ret = leave_checked(&s->b, &s->inside_b);
		}
		int r2 = leave_checked(&s->a, &s->inside_a);
		if (ret == 0)
			ret = r2;
		s->l_rounds++;
		burn_loops(500);
	}
	H_STORE(&s->l_ret, ret);
	H_STORE(&s->l_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

/* H: released every ~0.2 ms (a sleep), takes B then A. */
static void *nesting_high(void *arg)
{
	struct nesting *s = arg;
	H_STORE(&s->h_tid, h_gettid());
	int ret = 0;
	pid_t ltid = H_LOAD(&s->l_tid);
	for (int i = 0; i < NESTING_ROUNDS && ret == 0; i++) {
		h_sleep_us(200);
		/* L was preempted inside A (and not in B): the deadlock pattern. */
		if (mutex_owner(&s->a) == ltid && mutex_owner(&s->b) == 0)
			s->interleaved++;
		ret = enter_checked(&s->b, &s->inside_b);
		if (ret)
			break;
		ret = enter_checked(&s->a, &s->inside_a);
		if (ret == 0) {
			burn_loops(500);
			ret = leave_checked(&s->a, &s->inside_a);
		}
		int r2 = leave_checked(&s->b, &s->inside_b);
		if (ret == 0)
			ret = r2;
		s->h_rounds++;
	}
	H_STORE(&s->h_ret, ret);
	H_STORE(&s->h_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void test_pcp_opposite_nesting_never_deadlocks(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct nesting *s = calloc(1, sizeof(*s));
	CHECK(s);
	ceil_mutex_init(&s->a, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&s->b, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	pthread_t low, high;
	h_thread_start(&low, nesting_low, s, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&s->l_tid) != 0, 2000);
	h_thread_start(&high, nesting_high, s, HIGH, rt_cpu);
	/* A deadlock shows here: H never finishes its rounds. */
	WAIT_FOR(H_LOAD(&s->h_done), 20000);
	H_STORE(&s->stop, 1);
	WAIT_FOR(H_LOAD(&s->l_done), 5000);
	CHECK_OK(H_LOAD(&s->h_ret));
	CHECK_OK(H_LOAD(&s->l_ret));
	H_LOG("H rounds %ld, L rounds %ld, H released while L held A only: %ld", s->h_rounds,
	      s->l_rounds, s->interleaved);
	CHECK_EQ(s->h_rounds, NESTING_ROUNDS);
	CHECK_GT(s->l_rounds, 0);
	/* The scenario really interleaved (L holds A about 90% of its time). */
	CHECK_GE(s->interleaved, NESTING_ROUNDS / 10);
	CHECK_AT_BASE(H_LOAD(&s->l_tid), LOW);
	CHECK_AT_BASE(H_LOAD(&s->h_tid), HIGH);
	H_STORE(&s->exit_now, 1);
	h_join(low, 2000);
	h_join(high, 2000);
	free(s);
}

/* ---- blocked by at most one lower critical section ------------------------ */

/*
 * L uses R1, M uses R2, H uses both (ceilings HIGH). L enters R1; M is
 * released and asks for the free R2; then H is released and asks for R2,
 * then R1. Under PCP, M may not enter R2 (its priority is not above the
 * ceiling L holds), so H waits for L's critical section only. Under plain
 * inheritance M would enter R2 and H would wait for both.
 */
struct one_cs {
	rts_mutex_t r1, r2;
	struct ev_log log;
	pid_t l_tid, m_tid, h_tid;
	int go, exit_now;
	int l_ret, m_ret, h_ret, l_done, m_done, h_done;
};

static void *one_cs_low(void *arg)
{
	struct one_cs *s = arg;
	H_STORE(&s->l_tid, h_gettid());
	int ret = lock_logged(&s->log, 'L', &s->r1, RES_A);
	if (ret == 0) {
		sleep_until(&s->go);
		ret = unlock_logged(&s->log, 'L', &s->r1, RES_A);
	}
	H_STORE(&s->l_ret, ret);
	H_STORE(&s->l_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void *one_cs_mid(void *arg)
{
	struct one_cs *s = arg;
	H_STORE(&s->m_tid, h_gettid());
	int ret = lock_logged(&s->log, 'M', &s->r2, RES_B);
	if (ret == 0) {
		sleep_until(&s->go);
		ret = unlock_logged(&s->log, 'M', &s->r2, RES_B);
	}
	H_STORE(&s->m_ret, ret);
	H_STORE(&s->m_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void *one_cs_high(void *arg)
{
	struct one_cs *s = arg;
	H_STORE(&s->h_tid, h_gettid());
	int ret = lock_logged(&s->log, 'H', &s->r2, RES_B);
	if (ret == 0) {
		ret = lock_logged(&s->log, 'H', &s->r1, RES_A);
		if (ret == 0)
			ret = unlock_logged(&s->log, 'H', &s->r1, RES_A);
		int r2 = unlock_logged(&s->log, 'H', &s->r2, RES_B);
		if (ret == 0)
			ret = r2;
	}
	ev(&s->log, 'H', EV_JOB_END, 0);
	H_STORE(&s->h_ret, ret);
	H_STORE(&s->h_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

/* Lower critical sections (L or M) in progress at some point in [from, to). */
static int lower_cs_overlapping(const struct ev_log *log, int from, int to)
{
	int count = 0;
	const char who[] = { 'L', 'M' };
	for (int w = 0; w < 2; w++)
		for (int res = RES_A; res <= RES_B; res++) {
			int in = ev_find(log, who[w], EV_ACQUIRED, res);
			if (in < 0 || in >= to)
				continue;
			int out = ev_find(log, who[w], EV_RELEASING, res);
			if (out < 0 || out > from)
				count++;
		}
	return count;
}

static void test_pcp_blocked_by_at_most_one_lower_cs(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct one_cs *s = calloc(1, sizeof(*s));
	CHECK(s);
	ceil_mutex_init(&s->r1, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&s->r2, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	pthread_t low, mid, high;
	h_thread_start(&low, one_cs_low, s, LOW, rt_cpu);
	WAIT_FOR(ev_find(&s->log, 'L', EV_ACQUIRED, RES_A) >= 0, 2000);
	h_thread_start(&mid, one_cs_mid, s, MID, rt_cpu);
	/* M either entered R2 (a broken protocol) or sleeps: either way it is M's move done. */
	WAIT_FOR(ev_find(&s->log, 'M', EV_ACQUIRED, RES_B) >= 0 ||
			 (ev_find(&s->log, 'M', EV_REQUEST, RES_B) >= 0 &&
			  h_thread_state(H_LOAD(&s->m_tid)) == 'S'),
		 2000);
	h_thread_start(&high, one_cs_high, s, HIGH, rt_cpu);
	WAIT_FOR(ev_find(&s->log, 'H', EV_REQUEST, RES_B) >= 0 &&
			 h_thread_state(H_LOAD(&s->h_tid)) == 'S',
		 2000);
	H_STORE(&s->go, 1);
	WAIT_FOR(H_LOAD(&s->l_done) && H_LOAD(&s->m_done) && H_LOAD(&s->h_done), 5000);
	CHECK_OK(H_LOAD(&s->l_ret));
	CHECK_OK(H_LOAD(&s->m_ret));
	CHECK_OK(H_LOAD(&s->h_ret));

	int h_request = ev_find(&s->log, 'H', EV_REQUEST, RES_B);
	int h_has_all = ev_find(&s->log, 'H', EV_ACQUIRED, RES_A);
	CHECK(h_request >= 0 && h_has_all > h_request);
	int blocking = lower_cs_overlapping(&s->log, h_request, h_has_all);
	if (blocking != 1) {
		ev_dump(&s->log);
		FAIL("H was blocked by %d lower critical sections (PCP: exactly L's one)", blocking);
	}
	/* M, released before H, entered R2 only after H was done. */
	CHECK_EV_BEFORE(&s->log, 'H', EV_JOB_END, 0, 'M', EV_ACQUIRED, RES_B);
	CHECK_AT_BASE(H_LOAD(&s->l_tid), LOW);
	CHECK_AT_BASE(H_LOAD(&s->m_tid), MID);
	CHECK_AT_BASE(H_LOAD(&s->h_tid), HIGH);
	H_STORE(&s->exit_now, 1);
	h_join(low, 2000);
	h_join(mid, 2000);
	h_join(high, 2000);
	free(s);
}

static const struct h_case cases[] = {
	H_CASE(test_pcp_blocks_on_ceiling_and_holder_inherits, 15000),
	H_CASE(test_pcp_above_ceiling_takes_free_lock, 10000),
	H_CASE(test_pcp_opposite_nesting_never_deadlocks, 40000),
	H_CASE(test_pcp_blocked_by_at_most_one_lower_cs, 15000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
