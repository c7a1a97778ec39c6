/* SPDX-License-Identifier: MIT */
/*
 * What the trace records for the ceiling protocols (<rtsched/trace.h>): the
 * library writes RTS_EV_LOCK_BLOCKED (cause, thread waited for), RTS_EV_BOOST
 * and RTS_EV_UNBOOST on the calling thread's stream; the test threads record
 * their own lock requests, acquisitions and releases beside them.
 *  - PCP, three threads on one CPU: the high job is blocked by at most one
 *    lower critical section, read from the trace alone; its blocking and the
 *    middle one's are "ceiling" blocks on the low holder.
 *  - SRP: a job start held back is a "gate" block on the holder.
 *  - MPCP, FMLP+: the holder's boost and unboost with the documented keys,
 *    a waiter's "owner" block.
 *  - IPCP eager: boost to the ceiling at lock, unboost at unlock.
 */
#include "ceiling_helpers.h"
#include "trace_reader.h"

#define LOW 10
#define MID 20
#define HIGH 30

enum { RES_1 = 1, RES_2 = 2 };

static int lock_traced(rts_mutex_t *m, int res)
{
	rts_trace_emit(RTS_EV_LOCK_REQUEST, 1, (uint32_t)res, 0);
	int ret = rts_mutex_lock(m);
	if (ret == 0)
		rts_trace_emit(RTS_EV_LOCK_ACQUIRE, 1, (uint32_t)res, 0);
	return ret;
}

static int unlock_traced(rts_mutex_t *m, int res)
{
	rts_trace_emit(RTS_EV_LOCK_RELEASE, 1, (uint32_t)res, 0);
	return rts_mutex_unlock(m);
}

/* ---- PCP: at most one lower critical section ------------------------------ */

struct pcp_run {
	rts_mutex_t r1, r2;
	struct rts_trace_stream *stream[3];
	pid_t tid[3];
	int requested[3], acquired[3], done[3], ret[3];
	int go;
};

struct pcp_thread {
	struct pcp_run *r;
	int who; /* 0 L (R1), 1 M (R2), 2 H (R2 then R1) */
};

static void *pcp_main(void *arg)
{
	struct pcp_thread *t = arg;
	struct pcp_run *r = t->r;
	H_STORE(&r->tid[t->who], h_gettid());
	rts_trace_stream_bind(r->stream[t->who]);
	rts_mutex_t *first = t->who == 0 ? &r->r1 : &r->r2;
	int first_res = t->who == 0 ? RES_1 : RES_2;
	H_STORE(&r->requested[t->who], 1);
	int ret = lock_traced(first, first_res);
	H_STORE(&r->acquired[t->who], 1);
	if (ret == 0 && t->who == 2) {
		ret = lock_traced(&r->r1, RES_1);
		if (ret == 0)
			ret = unlock_traced(&r->r1, RES_1);
	} else if (ret == 0) {
		sleep_until(&r->go);
	}
	if (ret == 0)
		ret = unlock_traced(first, first_res);
	rts_trace_stream_bind(NULL);
	H_STORE(&r->ret[t->who], ret);
	H_STORE(&r->done[t->who], 1);
	return NULL;
}

static void check_blocks(const struct tr_trace *tr, pid_t tid, uint32_t cause, pid_t holder)
{
	size_t n = 0;
	for (size_t i = 0; i < tr->n; i++) {
		const struct tr_event *e = &tr->ev[i];
		if (e->tid != tid || e->rec.type != RTS_EV_LOCK_BLOCKED)
			continue;
		n++;
		if (e->rec.arg0 != cause || e->rec.arg1 != holder) {
			tr_dump(tr);
			FAIL("thread %d: LOCK_BLOCKED cause %u on %lld, expected cause %u on %d",
			     (int)tid, e->rec.arg0, (long long)e->rec.arg1, cause, (int)holder);
		}
	}
	if (n == 0) {
		tr_dump(tr);
		FAIL("thread %d: no LOCK_BLOCKED recorded", (int)tid);
	}
}

static void test_trace_pcp_blocked_by_one_lower_cs(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct pcp_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	ceil_mutex_init(&r->r1, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&r->r2, RTS_PROTO_PCP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	struct tr_session s;
	tr_open(&s, "pcp");
	static const char *const names[] = { "L", "M", "H" };
	for (int i = 0; i < 3; i++)
		r->stream[i] = tr_stream(&s, names[i]);
	CHECK_OK(rts_trace_start(s.trace, 0, 0));

	static const int prio[] = { LOW, MID, HIGH };
	pthread_t th[3];
	struct pcp_thread args[3];
	for (int i = 0; i < 3; i++) {
		args[i] = (struct pcp_thread){ r, i };
		h_thread_start(&th[i], pcp_main, &args[i], prio[i], rt_cpu);
		/* L holds R1; then M, then H, have asked and wait (or, broken, hold). */
		if (i == 0)
			WAIT_FOR(H_LOAD(&r->acquired[0]), 2000);
		else
			WAIT_FOR(H_LOAD(&r->acquired[i]) ||
					 (H_LOAD(&r->requested[i]) &&
					  h_thread_state(H_LOAD(&r->tid[i])) == 'S'),
				 2000);
	}
	H_STORE(&r->go, 1);
	for (int i = 0; i < 3; i++) {
		h_join(th[i], 5000);
		CHECK_OK(r->ret[i]);
	}
	struct tr_trace tr;
	tr_close_and_read(&s, &tr);

	pid_t l = r->tid[0], m = r->tid[1], h = r->tid[2];
	/* H and M asked for the free R2 and waited on L's ceiling. */
	check_blocks(&tr, h, RTS_BLOCK_CEILING, l);
	check_blocks(&tr, m, RTS_BLOCK_CEILING, l);
	CHECK_EQ(tr_count(&tr, l, RTS_EV_LOCK_BLOCKED), 0);
	/* Lower critical sections in progress while H waited for its locks. */
	ssize_t h_req = tr_find(&tr, 0, h, RTS_EV_LOCK_REQUEST, RES_2);
	ssize_t h_all = tr_find(&tr, 0, h, RTS_EV_LOCK_ACQUIRE, RES_1);
	CHECK(h_req >= 0 && h_all > h_req);
	int blocking = 0;
	const pid_t lower[] = { l, m };
	for (int w = 0; w < 2; w++)
		for (long res = RES_1; res <= RES_2; res++) {
			ssize_t in = tr_find(&tr, 0, lower[w], RTS_EV_LOCK_ACQUIRE, res);
			if (in < 0 || in > h_all)
				continue;
			ssize_t out = tr_find(&tr, (size_t)in, lower[w], RTS_EV_LOCK_RELEASE, res);
			if (out < 0 || out > h_req)
				blocking++;
		}
	if (blocking != 1) {
		tr_dump(&tr);
		FAIL("H was blocked by %d lower critical sections (PCP: exactly one)", blocking);
	}
	free(tr.ev);
	free(r);
}

/* ---- SRP: the gate ---------------------------------------------------------- */

struct gate_run {
	rts_mutex_t s;
	struct rts_trace_stream *stream[2];
	pid_t tid[2];
	int locked, go, job_at_gate, ret[2];
};

static void *gate_low(void *arg)
{
	struct gate_run *r = arg;
	H_STORE(&r->tid[0], h_gettid());
	rts_trace_stream_bind(r->stream[0]);
	int ret = lock_traced(&r->s, RES_1);
	H_STORE(&r->locked, 1);
	if (ret == 0) {
		sleep_until(&r->go);
		ret = unlock_traced(&r->s, RES_1);
	}
	rts_trace_stream_bind(NULL);
	H_STORE(&r->ret[0], ret);
	return NULL;
}

static void *gate_job(void *arg)
{
	struct gate_run *r = arg;
	H_STORE(&r->tid[1], h_gettid());
	rts_trace_stream_bind(r->stream[1]);
	H_STORE(&r->job_at_gate, 1);
	int ret = rts_lock_gate();
	rts_trace_emit(RTS_EV_START, 1, 0, 0);
	rts_trace_stream_bind(NULL);
	H_STORE(&r->ret[1], ret);
	return NULL;
}

static void test_trace_srp_gate_block(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct gate_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	ceil_mutex_init(&r->s, RTS_PROTO_SRP, MID, rt_cpu, RTS_CEILING_DEFERRED);
	struct tr_session s;
	tr_open(&s, "srp");
	r->stream[0] = tr_stream(&s, "L");
	r->stream[1] = tr_stream(&s, "J");
	CHECK_OK(rts_trace_start(s.trace, 0, 0));
	pthread_t low, job;
	h_thread_start(&low, gate_low, r, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&r->locked), 2000);
	h_thread_start(&job, gate_job, r, MID, rt_cpu);
	WAIT_FOR(H_LOAD(&r->job_at_gate) && effective_fifo_prio(H_LOAD(&r->tid[0])) == MID, 2000);
	H_STORE(&r->go, 1);
	h_join(low, 5000);
	h_join(job, 5000);
	CHECK_OK(r->ret[0]);
	CHECK_OK(r->ret[1]);
	struct tr_trace tr;
	tr_close_and_read(&s, &tr);
	check_blocks(&tr, r->tid[1], RTS_BLOCK_GATE, r->tid[0]);
	ssize_t rel = tr_find(&tr, 0, r->tid[0], RTS_EV_LOCK_RELEASE, RES_1);
	ssize_t start = tr_find(&tr, 0, r->tid[1], RTS_EV_START, -1);
	CHECK(rel >= 0 && start > rel);
	free(tr.ev);
	free(r);
}

/* ---- MPCP, FMLP+: boosts ------------------------------------------------------ */

#define GCS_PRIO 25

struct boost_run {
	rts_mutex_t g;
	struct rts_trace_stream *stream[2];
	pid_t tid[2];
	int locked, waiter_asked, go, ret[2];
};

static void *boost_holder(void *arg)
{
	struct boost_run *r = arg;
	H_STORE(&r->tid[0], h_gettid());
	rts_trace_stream_bind(r->stream[0]);
	int ret = lock_traced(&r->g, RES_1);
	H_STORE(&r->locked, 1);
	if (ret == 0) {
		sleep_until(&r->go);
		ret = unlock_traced(&r->g, RES_1);
	}
	rts_trace_stream_bind(NULL);
	H_STORE(&r->ret[0], ret);
	return NULL;
}

static void *boost_waiter(void *arg)
{
	struct boost_run *r = arg;
	H_STORE(&r->tid[1], h_gettid());
	rts_trace_stream_bind(r->stream[1]);
	H_STORE(&r->waiter_asked, 1);
	int ret = lock_traced(&r->g, RES_1);
	if (ret == 0)
		ret = unlock_traced(&r->g, RES_1);
	rts_trace_stream_bind(NULL);
	H_STORE(&r->ret[1], ret);
	return NULL;
}

/* BOOST then UNBOOST of tid, both with key, around its acquisition and release. */
static void check_boost_pair(const struct tr_trace *tr, pid_t tid, bool fmlp)
{
	ssize_t acq = tr_find(tr, 0, tid, RTS_EV_LOCK_ACQUIRE, RES_1);
	ssize_t boost = tr_find(tr, 0, tid, RTS_EV_BOOST, -1);
	ssize_t rel = tr_find(tr, 0, tid, RTS_EV_LOCK_RELEASE, RES_1);
	ssize_t unboost = tr_find(tr, 0, tid, RTS_EV_UNBOOST, -1);
	if (acq < 0 || boost < 0 || rel < 0 || unboost < 0 || boost > acq || unboost < rel) {
		tr_dump(tr);
		FAIL("thread %d: expected BOOST before its acquisition and UNBOOST after its release",
		     (int)tid);
	}
	uint32_t key = tr->ev[boost].rec.arg0;
	if (fmlp)
		CHECK_MSG(key > RTS_LOCK_MAX_LEVEL, "FMLP+ boost key %#x is not above every local level",
			  key);
	else
		CHECK_EQ(key, 0x10000u + GCS_PRIO);
	CHECK_EQ(tr->ev[boost].rec.arg1, tid);
	CHECK_EQ(tr->ev[unboost].rec.arg0, key);
	CHECK_EQ(tr->ev[unboost].rec.arg1, tid);
}

static void test_trace_global_boosts(int proto)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct boost_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	ceil_mutex_init(&r->g, proto, proto == RTS_PROTO_MPCP ? GCS_PRIO : 0, -1,
			RTS_CEILING_DEFERRED);
	struct tr_session s;
	tr_open(&s, proto == RTS_PROTO_MPCP ? "mpcp" : "fmlp");
	r->stream[0] = tr_stream(&s, "holder");
	r->stream[1] = tr_stream(&s, "waiter");
	CHECK_OK(rts_trace_start(s.trace, 0, 0));
	pthread_t holder, waiter;
	h_thread_start(&holder, boost_holder, r, LOW, rt_cpu);
	WAIT_FOR(H_LOAD(&r->locked), 2000);
	h_thread_start(&waiter, boost_waiter, r, MID, free_cpu);
	WAIT_FOR(H_LOAD(&r->waiter_asked) && h_thread_state(H_LOAD(&r->tid[1])) == 'S', 2000);
	H_STORE(&r->go, 1);
	h_join(holder, 5000);
	h_join(waiter, 5000);
	CHECK_OK(r->ret[0]);
	CHECK_OK(r->ret[1]);
	struct tr_trace tr;
	tr_close_and_read(&s, &tr);
	bool fmlp = proto == RTS_PROTO_FMLP;
	check_boost_pair(&tr, r->tid[0], fmlp);
	check_boost_pair(&tr, r->tid[1], fmlp);
	check_blocks(&tr, r->tid[1], RTS_BLOCK_OWNER, r->tid[0]);
	free(tr.ev);
	free(r);
}

/* ---- IPCP eager ----------------------------------------------------------------- */

static void test_trace_ipcp_eager_boost(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	rts_mutex_t m;
	ceil_mutex_init(&m, RTS_PROTO_IPCP, GCS_PRIO, rt_cpu, RTS_CEILING_EAGER);
	struct tr_session s;
	tr_open(&s, "ipcp-eager");
	struct rts_trace_stream *st = tr_stream(&s, "self");
	CHECK_OK(rts_trace_start(s.trace, 0, 0));
	h_pin_cpu(rt_cpu);
	h_set_fifo(LOW);
	rts_trace_stream_bind(st);
	int ret = lock_traced(&m, RES_1);
	if (ret == 0)
		ret = unlock_traced(&m, RES_1);
	rts_trace_stream_bind(NULL);
	h_set_fifo(0);
	h_pin_cpu(free_cpu);
	CHECK_OK(ret);
	struct tr_trace tr;
	tr_close_and_read(&s, &tr);
	pid_t me = h_gettid();
	ssize_t boost = tr_find(&tr, 0, me, RTS_EV_BOOST, GCS_PRIO);
	ssize_t acq = tr_find(&tr, 0, me, RTS_EV_LOCK_ACQUIRE, RES_1);
	ssize_t rel = tr_find(&tr, 0, me, RTS_EV_LOCK_RELEASE, RES_1);
	ssize_t unboost = tr_find(&tr, 0, me, RTS_EV_UNBOOST, GCS_PRIO);
	if (boost < 0 || acq < boost || rel < acq || unboost < rel) {
		tr_dump(&tr);
		FAIL("expected BOOST(%d) at lock and UNBOOST(%d) at unlock", GCS_PRIO, GCS_PRIO);
	}
	CHECK_EQ(tr.ev[boost].rec.arg1, me);
	free(tr.ev);
}

static const struct h_case cases[] = {
	H_CASE(test_trace_pcp_blocked_by_one_lower_cs, 15000),
	H_CASE(test_trace_srp_gate_block, 15000),
	{ "test_trace_mpcp_boosts", NULL, 15000, test_trace_global_boosts, RTS_PROTO_MPCP },
	{ "test_trace_fmlp_boosts", NULL, 15000, test_trace_global_boosts, RTS_PROTO_FMLP },
	H_CASE(test_trace_ipcp_eager_boost, 15000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
