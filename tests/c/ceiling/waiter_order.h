/* SPDX-License-Identifier: MIT */
/*
 * The order in which the waiters of a global lock (MPCP, FMLP+) are served.
 *
 * A holder on the real-time CPU takes G and sleeps holding it. Waiters on the
 * other CPU ask for G one after the other, each only once the previous one
 * sleeps in the kernel (waiters block, they never spin, so real-time waiters
 * there leave that CPU idle). Then the holder lets go, and each waiter logs
 * its turn as it gets G and lets go at once. The log is the service order.
 */
#ifndef RTSCHED_TESTS_WAITER_ORDER_H
#define RTSCHED_TESTS_WAITER_ORDER_H

#include "ceiling_helpers.h"

#define WAITERS_MAX 8

struct waiter_run {
	rts_mutex_t g;
	struct ev_log log;
	int n;
	int prio[WAITERS_MAX];
	pid_t tid[WAITERS_MAX];
	int ret[WAITERS_MAX];
	int done[WAITERS_MAX];
	int exit_now;
};

struct waiter_arg {
	struct waiter_run *r;
	int index;
};

static void *waiter_main(void *p)
{
	struct waiter_arg *a = p;
	struct waiter_run *r = a->r;
	H_STORE(&r->tid[a->index], h_gettid());
	ev(&r->log, (char)('0' + a->index), EV_REQUEST, 0);
	int ret = rts_mutex_lock(&r->g);
	if (ret == 0) {
		ev(&r->log, (char)('0' + a->index), EV_ACQUIRED, 0);
		ret = rts_mutex_unlock(&r->g);
	}
	H_STORE(&r->ret[a->index], ret);
	H_STORE(&r->done[a->index], 1);
	sleep_until(&r->exit_now);
	return NULL;
}

/*
 * Waiters with priorities prio[0..n-1] ask in that order; expect_order lists
 * the indexes in the order they must be served.
 */
static void waiter_order_scenario(int proto, int ceiling, int holder_prio, const int *prio, int n,
				  const int *expect_order)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	CHECK_LE(n, WAITERS_MAX);
	struct waiter_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	r->n = n;
	ceil_mutex_init(&r->g, proto, ceiling, -1, RTS_CEILING_DEFERRED);
	struct holder h;
	holder_start_rt(&h, &r->g, holder_prio, rt_cpu);

	pthread_t t[WAITERS_MAX];
	struct waiter_arg args[WAITERS_MAX];
	for (int i = 0; i < n; i++) {
		args[i] = (struct waiter_arg){ r, i };
		r->prio[i] = prio[i];
		h_thread_start(&t[i], waiter_main, &args[i], prio[i], free_cpu);
		WAIT_FOR(ev_find(&r->log, (char)('0' + i), EV_REQUEST, 0) >= 0 &&
				 h_thread_state(H_LOAD(&r->tid[i])) == 'S',
			 2000);
	}
	CHECK(ev_find(&r->log, '0', EV_ACQUIRED, 0) < 0);
	holder_release(&h);
	for (int i = 0; i < n; i++) {
		WAIT_FOR(H_LOAD(&r->done[i]), 5000);
		CHECK_OK(H_LOAD(&r->ret[i]));
	}
	int served = 0;
	for (unsigned i = 0; i < ev_count(&r->log); i++)
		if (ev_get(&r->log, i).what == EV_ACQUIRED) {
			int who = ev_get(&r->log, i).who - '0';
			if (who != expect_order[served]) {
				ev_dump(&r->log);
				FAIL("%s: turn %d went to waiter %d (prio %d), expected waiter %d "
				     "(prio %d)",
				     ceil_proto_name(proto), served, who, prio[who],
				     expect_order[served], prio[expect_order[served]]);
			}
			served++;
		}
	CHECK_EQ(served, n);
	for (int i = 0; i < n; i++)
		CHECK_AT_BASE(H_LOAD(&r->tid[i]), prio[i]);
	H_STORE(&r->exit_now, 1);
	for (int i = 0; i < n; i++)
		h_join(t[i], 2000);
	CHECK_OK(rts_mutex_destroy(&r->g));
	free(r);
}

#endif
