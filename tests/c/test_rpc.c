/* SPDX-License-Identifier: MIT */
/*
 * The RPC server object (rtsched/rpc.h): requests served in client-priority
 * order, replies to the right client, the server running at its waiting
 * client's priority (PI-CV: /proc field 18) so that a medium-priority annoyer
 * cannot preempt it (and does without PI-CV), shutdown with waiting clients,
 * and no boost left behind. Real-time threads share one CPU; the test itself
 * runs on the other one. No absolute times are asserted.
 */
#include <rtsched/rpc.h>

#include "harness.h"

#define LOW 10
#define MID 30
#define HIGH 50
#define MAX_SERVED 16

static int rt_cpu, free_cpu;
static atomic_int event_seq; /* orders events across threads */

static int next_event(void)
{
	return atomic_fetch_add(&event_seq, 1) + 1;
}

/* ---- a server thread -------------------------------------------------------- */

struct server {
	rts_rpc_server_t rpc;
	atomic_int tid;
	atomic_int bind_ret;
	atomic_int go;        /* the server receives only once the test allows it */
	atomic_int served;
	atomic_int serving;   /* set once a request is received, before the work */
	atomic_int exit_ret;  /* what ended the loop (-1: still running) */
	atomic_int done_event; /* event number when the last request's work ended */
	int burn_ms;          /* CPU work per request */
	bool hold;            /* before each reply, sleep until `release` */
	atomic_int release;
	bool exit_after_bind; /* a server thread that exits without serving */
	int client_prio[MAX_SERVED];
	intptr_t arg[MAX_SERVED];
	int own_prio_in_service[MAX_SERVED]; /* its /proc prio while serving */
};

static void *server_main(void *p)
{
	struct server *s = p;
	atomic_store(&s->bind_ret, rts_rpc_server_bind(&s->rpc));
	atomic_store(&s->tid, (int)h_gettid());
	if (s->exit_after_bind)
		return NULL;
	while (!atomic_load(&s->go))
		h_sleep_us(200);
	for (;;) {
		rts_rpc_request_t *req;
		int ret = rts_rpc_receive(&s->rpc, &req);
		if (ret) {
			atomic_store(&s->exit_ret, ret);
			return NULL;
		}
		int n = atomic_load(&s->served);
		if (n < MAX_SERVED) {
			s->client_prio[n] = req->client_priority;
			s->arg[n] = (intptr_t)req->arg;
			s->own_prio_in_service[n] = h_thread_prio(h_gettid());
		}
		atomic_store(&s->serving, 1);
		if (s->burn_ms)
			h_burn_cpu_ms(s->burn_ms, 20 * s->burn_ms);
		while (s->hold && !atomic_load(&s->release))
			h_sleep_us(200);
		atomic_store(&s->done_event, next_event());
		atomic_store(&s->served, n + 1);
		CHECK_OK(rts_rpc_reply(&s->rpc, req, (void *)((intptr_t)req->arg * 10 + 1)));
	}
}

static void server_init(struct server *s, int picv, unsigned capacity)
{
	memset(s, 0, sizeof(*s));
	atomic_store(&s->exit_ret, -1);
	rts_rpc_attr_t attr;
	CHECK_OK(rts_rpc_attr_init(&attr));
	CHECK_OK(rts_rpc_attr_setpicv(&attr, picv));
	CHECK_OK(rts_rpc_attr_setcapacity(&attr, capacity));
	CHECK_OK(rts_rpc_server_init(&s->rpc, &attr));
	CHECK_OK(rts_rpc_attr_destroy(&attr));
}

static void server_start(struct server *s, pthread_t *t, int prio)
{
	h_thread_start(t, server_main, s, prio, rt_cpu);
	WAIT_FOR(atomic_load(&s->tid) != 0, 2000);
	CHECK_OK(atomic_load(&s->bind_ret));
}

/* Shut down, join, destroy; the server thread ended with ESHUTDOWN. */
static void server_stop(struct server *s, pthread_t t)
{
	CHECK_OK(rts_rpc_server_shutdown(&s->rpc));
	atomic_store(&s->go, 1);
	h_join(t, 5000);
	CHECK_ERR(ESHUTDOWN, atomic_load(&s->exit_ret));
	CHECK_OK(rts_rpc_server_destroy(&s->rpc));
}

/* Peek at the server's state under its lock (the fields are written under it). */
static unsigned pending(struct server *s)
{
	CHECK_OK(rts_mutex_lock(&s->rpc.lock));
	unsigned n = s->rpc.capacity - s->rpc.n_free;
	CHECK_OK(rts_mutex_unlock(&s->rpc.lock));
	return n;
}

static unsigned in_calls(struct server *s)
{
	CHECK_OK(rts_mutex_lock(&s->rpc.lock));
	unsigned n = s->rpc.in_calls;
	CHECK_OK(rts_mutex_unlock(&s->rpc.lock));
	return n;
}

/* ---- client threads ------------------------------------------------------- */

struct client {
	rts_rpc_server_t *rpc;
	intptr_t arg;
	atomic_int tid;
	atomic_int ret; /* -1 until the call returns */
	intptr_t result;
	atomic_int prio_after; /* its /proc prio after the call */
};

static void *client_main(void *p)
{
	struct client *c = p;
	atomic_store(&c->tid, (int)h_gettid());
	void *result = NULL;
	int ret = rts_rpc_call(c->rpc, (void *)c->arg, &result);
	c->result = (intptr_t)result;
	atomic_store(&c->prio_after, h_thread_prio(h_gettid()));
	atomic_store(&c->ret, ret);
	return NULL;
}

static void client_start(struct client *c, pthread_t *t, rts_rpc_server_t *rpc, intptr_t arg,
			 int prio)
{
	memset(c, 0, sizeof(*c));
	c->rpc = rpc;
	c->arg = arg;
	atomic_store(&c->ret, -1);
	h_thread_start(t, client_main, c, prio, rt_cpu);
}

/* ---- cases ------------------------------------------------------------------ */

static void test_attr_and_misuse(void)
{
	rts_rpc_attr_t attr;
	unsigned cap;
	int picv;
	CHECK_ERR(EINVAL, rts_rpc_attr_init(NULL));
	CHECK_OK(rts_rpc_attr_init(&attr));
	CHECK_OK(rts_rpc_attr_getcapacity(&attr, &cap));
	CHECK_EQ(cap, RTS_RPC_CAPACITY_DEFAULT);
	CHECK_OK(rts_rpc_attr_getpicv(&attr, &picv));
	CHECK_EQ(picv, 1);
	CHECK_ERR(EINVAL, rts_rpc_attr_setcapacity(&attr, 0));
	CHECK_ERR(EINVAL, rts_rpc_attr_setcapacity(&attr, RTS_RPC_CAPACITY_MAX + 1));
	CHECK_ERR(EINVAL, rts_rpc_attr_setpicv(&attr, 2));
	CHECK_OK(rts_rpc_attr_destroy(&attr));
	CHECK_ERR(EINVAL, rts_rpc_attr_setpicv(&attr, 0)); /* destroyed */

	rts_rpc_server_t s;
	memset(&s, 0, sizeof(s));
	CHECK_ERR(EINVAL, rts_rpc_call(&s, NULL, NULL)); /* never initialised */
	CHECK_ERR(EINVAL, rts_rpc_server_init(&s, &attr));
	CHECK_OK(rts_rpc_server_init(&s, NULL));
	rts_rpc_request_t *req;
	CHECK_ERR(EPERM, rts_rpc_receive(&s, &req)); /* nobody bound */
	rts_rpc_request_t foreign;
	CHECK_ERR(EINVAL, rts_rpc_reply(&s, &foreign, NULL));
	CHECK_ERR(EPERM, rts_rpc_reply(&s, &s.slots[0], NULL)); /* nobody bound */
	CHECK_OK(rts_rpc_server_bind(&s));
	CHECK_ERR(EINVAL, rts_rpc_reply(&s, &s.slots[0], NULL)); /* not being served */
	CHECK_ERR(EDEADLK, rts_rpc_call(&s, NULL, NULL));      /* the server calls itself */
	CHECK_OK(rts_rpc_server_shutdown(&s));
	CHECK_OK(rts_rpc_server_shutdown(&s));
	CHECK_ERR(ESHUTDOWN, rts_rpc_receive(&s, &req));
	CHECK_ERR(ESHUTDOWN, rts_rpc_call(&s, NULL, NULL));
	CHECK_ERR(ESHUTDOWN, rts_rpc_server_bind(&s));
	CHECK_OK(rts_rpc_server_destroy(&s));
	CHECK_ERR(EINVAL, rts_rpc_server_destroy(&s));
}

static int bind_elsewhere(void *rpc)
{
	return rts_rpc_server_bind(rpc);
}

static int receive_elsewhere(void *rpc)
{
	rts_rpc_request_t *req;
	return rts_rpc_receive(rpc, &req);
}

struct in_thread {
	int (*fn)(void *);
	void *arg;
	int ret;
};

static void *in_thread_main(void *p)
{
	struct in_thread *t = p;
	t->ret = t->fn(t->arg);
	return NULL;
}

static int run_in_thread(int (*fn)(void *), void *arg)
{
	struct in_thread t = { fn, arg, -1 };
	pthread_t th;
	h_thread_start(&th, in_thread_main, &t, 0, -1);
	h_join(th, 5000);
	return t.ret;
}

static void test_one_server_thread(void)
{
	rts_rpc_server_t s;
	CHECK_OK(rts_rpc_server_init(&s, NULL));
	CHECK_OK(rts_rpc_server_bind(&s));
	CHECK_ERR(EBUSY, run_in_thread(bind_elsewhere, &s));
	CHECK_ERR(EBUSY, rts_rpc_server_bind(&s));
	CHECK_ERR(EPERM, run_in_thread(receive_elsewhere, &s));
	CHECK_OK(rts_rpc_server_shutdown(&s));
	CHECK_OK(rts_rpc_server_destroy(&s));
}

static struct timespec monotonic_in_ms(int ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_nsec += (long)ms * 1000000L;
	t.tv_sec += t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

static int receive_until_elsewhere(void *rpc)
{
	rts_rpc_request_t *req;
	struct timespec deadline = monotonic_in_ms(1);
	return rts_rpc_receive_until(rpc, &req, &deadline);
}

/*
 * rts_rpc_receive_until: ETIMEDOUT with nothing queued (a deadline already
 * past, then one 20 ms ahead), the queued request once there is one, EINVAL
 * for a missing or malformed deadline, EPERM off the bound thread, and
 * ESHUTDOWN after a shutdown.
 */
static void test_receive_until(void)
{
	struct server s;
	server_init(&s, 1, 2);
	CHECK_OK(rts_rpc_server_bind(&s.rpc));
	rts_rpc_request_t *req = NULL;
	struct timespec past = monotonic_in_ms(0);
	CHECK_ERR(ETIMEDOUT, rts_rpc_receive_until(&s.rpc, &req, &past));
	struct timespec soon = monotonic_in_ms(20);
	CHECK_ERR(ETIMEDOUT, rts_rpc_receive_until(&s.rpc, &req, &soon));
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	CHECK(now.tv_sec > soon.tv_sec || (now.tv_sec == soon.tv_sec && now.tv_nsec >= soon.tv_nsec));
	CHECK_ERR(EINVAL, rts_rpc_receive_until(&s.rpc, &req, NULL));
	struct timespec bad = { .tv_sec = soon.tv_sec, .tv_nsec = 1000000000L };
	CHECK_ERR(EINVAL, rts_rpc_receive_until(&s.rpc, &req, &bad));
	bad.tv_nsec = -1;
	CHECK_ERR(EINVAL, rts_rpc_receive_until(&s.rpc, &req, &bad));
	CHECK_ERR(EPERM, run_in_thread(receive_until_elsewhere, &s.rpc));

	struct client c;
	pthread_t ct;
	memset(&c, 0, sizeof(c));
	c.rpc = &s.rpc;
	c.arg = 7;
	atomic_store(&c.ret, -1);
	h_thread_start(&ct, client_main, &c, 0, -1);
	struct timespec later = monotonic_in_ms(5000);
	CHECK_OK(rts_rpc_receive_until(&s.rpc, &req, &later));
	CHECK_EQ((intptr_t)req->arg, 7);
	CHECK_OK(rts_rpc_reply(&s.rpc, req, (void *)(intptr_t)71));
	h_join(ct, 5000);
	CHECK_OK(atomic_load(&c.ret));
	CHECK_EQ(c.result, 71);

	CHECK_OK(rts_rpc_server_shutdown(&s.rpc));
	CHECK_ERR(ESHUTDOWN, rts_rpc_receive_until(&s.rpc, &req, &later));
	CHECK_OK(rts_rpc_server_destroy(&s.rpc));
}

/*
 * Clients of priorities LOW, MID, HIGH, MID queue up (one at a time, so the
 * arrival order is known) while the server is held back; then it serves
 * HIGH, MID (first), MID (second), LOW, and each client gets its own reply.
 */
static void test_priority_order(int picv)
{
	h_require_rt(&rt_cpu, &free_cpu);
	struct server s;
	server_init(&s, picv, 8);
	pthread_t st;
	server_start(&s, &st, LOW);

	static const int prios[] = { LOW, MID, HIGH, MID };
	struct client c[4];
	pthread_t ct[4];
	for (int i = 0; i < 4; i++) {
		client_start(&c[i], &ct[i], &s.rpc, 100 + i, prios[i]);
		WAIT_FOR(pending(&s) == (unsigned)i + 1, 2000);
	}
	atomic_store(&s.go, 1);
	for (int i = 0; i < 4; i++)
		h_join(ct[i], 5000);
	CHECK_EQ(atomic_load(&s.served), 4);
	static const int want_prio[] = { HIGH, MID, MID, LOW };
	static const intptr_t want_arg[] = { 102, 101, 103, 100 };
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(s.client_prio[i], want_prio[i]);
		CHECK_EQ(s.arg[i], want_arg[i]);
	}
	for (int i = 0; i < 4; i++) {
		CHECK_OK(atomic_load(&c[i].ret));
		CHECK_EQ(c[i].result, c[i].arg * 10 + 1); /* its own reply */
		CHECK_EQ(atomic_load(&c[i].prio_after), h_fifo_prio_field(prios[i]));
	}
	CHECK_EQ(h_thread_prio(atomic_load(&s.tid)), h_fifo_prio_field(LOW)); /* no leaked boost */
	server_stop(&s, st);
}

/*
 * A HIGH client calls a LOW server: with PI-CV the server serves at HIGH (and
 * is boosted already while the request waits in the queue); without, at LOW.
 * Afterwards it is back at LOW.
 */
static void test_server_runs_at_client_priority(int picv)
{
	h_require_rt(&rt_cpu, &free_cpu);
	struct server s;
	server_init(&s, picv, 4);
	pthread_t st;
	server_start(&s, &st, LOW);
	struct client c;
	pthread_t ct;
	client_start(&c, &ct, &s.rpc, 7, HIGH);
	int want = h_fifo_prio_field(picv ? HIGH : LOW);
	/* Queued is not yet waiting: the loan starts when the client sleeps. */
	WAIT_FOR(pending(&s) == 1 && atomic_load(&c.tid) != 0 &&
		 h_thread_state(atomic_load(&c.tid)) == 'S', 2000);
	if (picv)
		WAIT_FOR(h_thread_prio(atomic_load(&s.tid)) == want, 2000);
	else
		CHECK_EQ(h_thread_prio(atomic_load(&s.tid)), want);
	atomic_store(&s.go, 1);
	h_join(ct, 5000);
	CHECK_OK(atomic_load(&c.ret));
	CHECK_EQ(c.result, 71);
	CHECK_EQ(s.own_prio_in_service[0], want);
	WAIT_FOR(h_thread_prio(atomic_load(&s.tid)) == h_fifo_prio_field(LOW), 2000);
	server_stop(&s, st);
}

/* A MID thread that marks when it first runs, burns some CPU, and marks its end. */
struct annoyer {
	atomic_int start_event;
	atomic_int end_event;
};

static void *annoyer_main(void *p)
{
	struct annoyer *a = p;
	atomic_store(&a->start_event, next_event());
	h_burn_cpu_ms(20, 400);
	atomic_store(&a->end_event, next_event());
	return NULL;
}

/*
 * Seed 004 Fig. 6 with an RPC: a HIGH client waits for a LOW server that is
 * working on its request when a MID annoyer becomes ready on the same CPU.
 * With PI-CV the server (at HIGH) finishes first; without, the annoyer
 * preempts it and runs before the server's work ends.
 */
static void test_annoyer_cannot_preempt_server(int picv)
{
	h_require_rt(&rt_cpu, &free_cpu);
	struct server s;
	server_init(&s, picv, 4);
	s.burn_ms = 40;
	pthread_t st;
	server_start(&s, &st, LOW);
	struct client c;
	pthread_t ct;
	client_start(&c, &ct, &s.rpc, 3, HIGH);
	WAIT_FOR(pending(&s) == 1, 2000);
	atomic_store(&s.go, 1);
	WAIT_FOR(atomic_load(&s.serving), 2000);

	struct annoyer a = { 0 };
	pthread_t at;
	h_thread_start(&at, annoyer_main, &a, MID, rt_cpu);
	h_join(ct, 5000);
	h_join(at, 5000);
	CHECK_OK(atomic_load(&c.ret));
	int server_done = atomic_load(&s.done_event);
	int annoyer_start = atomic_load(&a.start_event);
	H_LOG("server done at event %d, annoyer started at event %d", server_done, annoyer_start);
	if (picv)
		CHECK_LT(server_done, annoyer_start);
	else
		CHECK_LT(annoyer_start, server_done);
	CHECK_EQ(h_thread_prio(atomic_load(&s.tid)), h_fifo_prio_field(LOW));
	server_stop(&s, st);
}

/*
 * Capacity 1: a LOW request is queued, then a HIGH client waits for the one
 * slot. It lends to the server too (PI-CV), and both calls complete.
 */
static void test_full_queue_lends_too(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	struct server s;
	server_init(&s, 1, 1);
	pthread_t st;
	server_start(&s, &st, LOW);
	struct client c[2];
	pthread_t ct[2];
	client_start(&c[0], &ct[0], &s.rpc, 1, LOW);
	WAIT_FOR(pending(&s) == 1, 2000);
	client_start(&c[1], &ct[1], &s.rpc, 2, HIGH);
	WAIT_FOR(in_calls(&s) == 2, 2000);
	WAIT_FOR(h_thread_prio(atomic_load(&s.tid)) == h_fifo_prio_field(HIGH), 2000);
	atomic_store(&s.go, 1);
	h_join(ct[0], 5000);
	h_join(ct[1], 5000);
	CHECK_OK(atomic_load(&c[0].ret));
	CHECK_OK(atomic_load(&c[1].ret));
	CHECK_EQ(c[0].result, 11);
	CHECK_EQ(c[1].result, 21);
	CHECK_EQ(atomic_load(&s.served), 2);
	WAIT_FOR(h_thread_prio(atomic_load(&s.tid)) == h_fifo_prio_field(LOW), 2000);
	server_stop(&s, st);
}

/*
 * Shutdown while two clients wait in the queue and one request is being
 * served: the queued ones get ESHUTDOWN, the one in service its reply, the
 * server's receive ESHUTDOWN; nobody keeps a boost.
 */
static void test_shutdown_with_waiting_clients(int picv)
{
	h_require_rt(&rt_cpu, &free_cpu);
	struct server s;
	server_init(&s, picv, 4);
	s.hold = true;
	pthread_t st;
	server_start(&s, &st, LOW);
	struct client c[3];
	pthread_t ct[3];
	client_start(&c[0], &ct[0], &s.rpc, 1, HIGH);
	WAIT_FOR(pending(&s) == 1, 2000);
	atomic_store(&s.go, 1);
	WAIT_FOR(atomic_load(&s.serving), 2000);
	client_start(&c[1], &ct[1], &s.rpc, 2, MID);
	client_start(&c[2], &ct[2], &s.rpc, 3, LOW);
	WAIT_FOR(pending(&s) == 3, 2000);
	CHECK_OK(rts_rpc_server_shutdown(&s.rpc));
	atomic_store(&s.release, 1);
	for (int i = 0; i < 3; i++)
		h_join(ct[i], 5000);
	h_join(st, 5000);
	CHECK_OK(atomic_load(&c[0].ret));
	CHECK_EQ(c[0].result, 11);
	CHECK_ERR(ESHUTDOWN, atomic_load(&c[1].ret));
	CHECK_ERR(ESHUTDOWN, atomic_load(&c[2].ret));
	CHECK_ERR(ESHUTDOWN, atomic_load(&s.exit_ret));
	CHECK_EQ(atomic_load(&s.served), 1);
	CHECK_EQ(atomic_load(&c[1].prio_after), h_fifo_prio_field(MID));
	CHECK_EQ(atomic_load(&c[2].prio_after), h_fifo_prio_field(LOW));
	CHECK_EQ(pending(&s), 0);
	CHECK_OK(rts_rpc_server_destroy(&s.rpc));
}

/* A server thread that exits after binding: a call lending to it gets ESRCH, and so does the next. */
static void test_server_thread_exit(void)
{
	struct server s;
	server_init(&s, 1, 2);
	s.exit_after_bind = true;
	pthread_t st;
	h_thread_start(&st, server_main, &s, 0, -1);
	h_join(st, 5000);
	CHECK_OK(atomic_load(&s.bind_ret));
	CHECK_ERR(ESRCH, rts_rpc_call(&s.rpc, NULL, NULL));
	CHECK_ERR(ESRCH, rts_rpc_call(&s.rpc, NULL, NULL));
	CHECK_EQ(pending(&s), 0);
	CHECK_OK(rts_rpc_server_destroy(&s.rpc));
}

static void test_priority_order_picv(void) { test_priority_order(1); }
static void test_priority_order_plain(void) { test_priority_order(0); }
static void test_boost_picv(void) { test_server_runs_at_client_priority(1); }
static void test_no_boost_plain(void) { test_server_runs_at_client_priority(0); }
static void test_annoyer_picv(void) { test_annoyer_cannot_preempt_server(1); }
static void test_annoyer_plain(void) { test_annoyer_cannot_preempt_server(0); }
static void test_shutdown_picv(void) { test_shutdown_with_waiting_clients(1); }
static void test_shutdown_plain(void) { test_shutdown_with_waiting_clients(0); }

static const struct h_case cases[] = {
	H_CASE(test_attr_and_misuse, 5000),
	H_CASE(test_one_server_thread, 5000),
	H_CASE(test_receive_until, 10000),
	H_CASE(test_priority_order_picv, 10000),
	H_CASE(test_priority_order_plain, 10000),
	H_CASE(test_boost_picv, 10000),
	H_CASE(test_no_boost_plain, 10000),
	H_CASE(test_annoyer_picv, 10000),
	H_CASE(test_annoyer_plain, 10000),
	H_CASE(test_full_queue_lends_too, 10000),
	H_CASE(test_shutdown_picv, 10000),
	H_CASE(test_shutdown_plain, 10000),
	H_CASE(test_server_thread_exit, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
