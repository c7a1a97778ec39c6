/* SPDX-License-Identifier: MIT */
/*
 * FMLP+ (RTS_PROTO_FMLP), a global lock on partitioned scheduling:
 *  - waiters are served in the order they asked (FIFO), whatever their
 *    priorities;
 *  - a holder is boosted: a local job of higher base priority released
 *    meanwhile does not run its body (deferred and eager);
 *  - boosted holders on one CPU run in the order of their requests: a
 *    low-priority thread that asked first finishes its critical section
 *    before a higher one that asked later and got its lock meanwhile starts
 *    its own.
 */
#include "gate_scenario.h"
#include "waiter_order.h"

#define BLOCKER 5
#define LOW 10
#define MID 20
#define HIGH_LOCAL 30
#define EAGER_CEILING 40

static const struct gate_params gate_table[] = {
	/* name, proto, variant, ceiling, holder prio/level, job prio/level, uses, gated */
	{ "fmlp_local_higher_job_waits", RTS_PROTO_FMLP, RTS_CEILING_DEFERRED, 0, LOW, 0, HIGH_LOCAL,
	  0, false, true },
	{ "fmlp_eager_local_higher_job_waits", RTS_PROTO_FMLP, RTS_CEILING_EAGER, EAGER_CEILING, LOW,
	  0, HIGH_LOCAL, 0, false, true },
};

static void test_fmlp_gate(int i)
{
	gate_scenario(&gate_table[i]);
}

static void test_fmlp_waiters_in_fifo_order(void)
{
	static const int prio[] = { 15, 25, 20, 12 };
	static const int order[] = { 0, 1, 2, 3 };
	waiter_order_scenario(RTS_PROTO_FMLP, 0, LOW, prio, 4, order);
}

/* ---- boosted holders in order of request time ----------------------------- */

/*
 * On the real-time CPU: A (prio LOW) asks for F1, then B (prio MID) asks for
 * F2; both locks are held by one blocker on the other CPU (one thread: a
 * second holder there would itself wait behind the first one's boost), so
 * both wait. F1 is handed to A, which enters its critical section and keeps
 * the CPU; then F2 is handed to B, whose base priority is above A's. B asked
 * later: it must not enter its critical section before A has left A's.
 */
struct request_order {
	rts_mutex_t f1, f2;
	struct ev_log log;
	pid_t a_tid, b_tid;
	int blocker_holds, release_f1, release_f2, blocker_ret, blocker_done;
	int a_go, exit_now;
	int a_ret, b_ret, a_done, b_done;
};

enum { RES_F1 = 1, RES_F2 = 2 };

static void *blocker_main(void *arg)
{
	struct request_order *s = arg;
	int ret = rts_mutex_lock(&s->f1);
	if (ret == 0) {
		ret = rts_mutex_lock(&s->f2);
		if (ret)
			rts_mutex_unlock(&s->f1);
	}
	H_STORE(&s->blocker_ret, ret);
	H_STORE(&s->blocker_holds, 1);
	if (ret == 0) {
		sleep_until(&s->release_f1);
		ret = rts_mutex_unlock(&s->f1);
		sleep_until(&s->release_f2);
		int r2 = rts_mutex_unlock(&s->f2);
		H_STORE(&s->blocker_ret, ret ? ret : r2);
	}
	H_STORE(&s->blocker_done, 1);
	return NULL;
}

static void *request_a(void *arg)
{
	struct request_order *s = arg;
	H_STORE(&s->a_tid, h_gettid());
	ev(&s->log, 'A', EV_REQUEST, RES_F1);
	int ret = rts_mutex_lock(&s->f1);
	if (ret == 0) {
		ev(&s->log, 'A', EV_ACQUIRED, RES_F1);
		spin_until(&s->a_go);
		ev(&s->log, 'A', EV_RELEASING, RES_F1);
		ret = rts_mutex_unlock(&s->f1);
	}
	H_STORE(&s->a_ret, ret);
	H_STORE(&s->a_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void *request_b(void *arg)
{
	struct request_order *s = arg;
	H_STORE(&s->b_tid, h_gettid());
	int ret = rts_lock_gate();
	if (ret == 0) {
		ev(&s->log, 'B', EV_REQUEST, RES_F2);
		ret = rts_mutex_lock(&s->f2);
	}
	if (ret == 0) {
		ev(&s->log, 'B', EV_ACQUIRED, RES_F2);
		ev(&s->log, 'B', EV_RELEASING, RES_F2);
		ret = rts_mutex_unlock(&s->f2);
	}
	H_STORE(&s->b_ret, ret);
	H_STORE(&s->b_done, 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void test_fmlp_boosted_holders_run_in_request_order(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct request_order *s = calloc(1, sizeof(*s));
	CHECK(s);
	ceil_mutex_init(&s->f1, RTS_PROTO_FMLP, 0, -1, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&s->f2, RTS_PROTO_FMLP, 0, -1, RTS_CEILING_DEFERRED);
	pthread_t blocker, a, b;
	h_thread_start(&blocker, blocker_main, s, BLOCKER, free_cpu);
	WAIT_FOR(H_LOAD(&s->blocker_holds), 2000);
	CHECK_OK(H_LOAD(&s->blocker_ret));

	h_thread_start(&a, request_a, s, LOW, rt_cpu);
	WAIT_FOR(ev_find(&s->log, 'A', EV_REQUEST, RES_F1) >= 0 &&
			 h_thread_state(H_LOAD(&s->a_tid)) == 'S',
		 2000);
	h_thread_start(&b, request_b, s, MID, rt_cpu);
	WAIT_FOR(ev_find(&s->log, 'B', EV_REQUEST, RES_F2) >= 0 &&
			 h_thread_state(H_LOAD(&s->b_tid)) == 'S',
		 2000);
	/* A gets F1 first and keeps the CPU inside its critical section. */
	H_STORE(&s->release_f1, 1);
	WAIT_FOR(ev_find(&s->log, 'A', EV_ACQUIRED, RES_F1) >= 0, 2000);
	/* Then B gets F2: a higher base priority, a later request. */
	H_STORE(&s->release_f2, 1);
	WAIT_FOR(H_LOAD(&s->blocker_done), 2000);
	CHECK_OK(H_LOAD(&s->blocker_ret));
	/* Correct: B waits for A, which runs at B's priority meanwhile. Broken:
	 * B enters its critical section now, preempting A. */
	WAIT_FOR(ev_find(&s->log, 'B', EV_ACQUIRED, RES_F2) >= 0 ||
			 effective_fifo_prio(H_LOAD(&s->a_tid)) == MID,
		 2000);
	h_sleep_ms(2);
	H_STORE(&s->a_go, 1);
	WAIT_FOR(H_LOAD(&s->a_done) && H_LOAD(&s->b_done), 5000);
	CHECK_OK(H_LOAD(&s->a_ret));
	CHECK_OK(H_LOAD(&s->b_ret));
	CHECK_EV_BEFORE(&s->log, 'A', EV_RELEASING, RES_F1, 'B', EV_ACQUIRED, RES_F2);
	CHECK_AT_BASE(H_LOAD(&s->a_tid), LOW);
	CHECK_AT_BASE(H_LOAD(&s->b_tid), MID);
	H_STORE(&s->exit_now, 1);
	h_join(blocker, 2000);
	h_join(a, 2000);
	h_join(b, 2000);
	free(s);
}

static const struct h_case cases[] = {
	{ "fmlp_local_higher_job_waits", NULL, 15000, test_fmlp_gate, 0 },
	{ "fmlp_eager_local_higher_job_waits", NULL, 15000, test_fmlp_gate, 1 },
	H_CASE(test_fmlp_waiters_in_fifo_order, 15000),
	H_CASE(test_fmlp_boosted_holders_run_in_request_order, 15000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
