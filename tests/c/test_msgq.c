/* SPDX-License-Identifier: MIT */
/*
 * The bounded priority message queue (rtsched/msgq.h, seed 004 Fig. 5):
 * priority order (FIFO among equals), blocking when full and when empty,
 * declared producers / consumers running at the priority of the threads that
 * wait for them (PI-CV; /proc field 18) and not without PI-CV, no boost left
 * behind, and a stress table with counts conserved. Real-time threads share
 * one CPU; the test itself runs on the other. No absolute times.
 */
#include <rtsched/msgq.h>

#include "harness.h"

#define LOW 10
#define HIGH 50

static int rt_cpu, free_cpu;

/* Peek at the queue's state under its lock (the fields are written under it). */
static unsigned waiting(rts_msgq_t *q)
{
	CHECK_OK(rts_mutex_lock(&q->lock));
	unsigned n = q->waiting;
	CHECK_OK(rts_mutex_unlock(&q->lock));
	return n;
}

struct msg {
	uint32_t producer;
	uint32_t n;
};

static void queue_init(rts_msgq_t *q, unsigned capacity, int picv)
{
	rts_msgq_attr_t a;
	CHECK_OK(rts_msgq_attr_init(&a));
	CHECK_OK(rts_msgq_attr_setcapacity(&a, capacity));
	CHECK_OK(rts_msgq_attr_setmsgsize(&a, sizeof(struct msg)));
	CHECK_OK(rts_msgq_attr_setpicv(&a, picv));
	CHECK_OK(rts_msgq_init(q, &a));
	CHECK_OK(rts_msgq_attr_destroy(&a));
}

static void test_attr_and_misuse(void)
{
	rts_msgq_attr_t a;
	unsigned cap;
	size_t size;
	int picv;
	CHECK_ERR(EINVAL, rts_msgq_attr_init(NULL));
	CHECK_OK(rts_msgq_attr_init(&a));
	CHECK_OK(rts_msgq_attr_getcapacity(&a, &cap));
	CHECK_EQ(cap, RTS_MSGQ_CAPACITY_DEFAULT);
	CHECK_OK(rts_msgq_attr_getmsgsize(&a, &size));
	CHECK_EQ(size, RTS_MSGQ_MSG_SIZE_DEFAULT);
	CHECK_OK(rts_msgq_attr_getpicv(&a, &picv));
	CHECK_EQ(picv, 1);
	CHECK_ERR(EINVAL, rts_msgq_attr_setcapacity(&a, 0));
	CHECK_ERR(EINVAL, rts_msgq_attr_setcapacity(&a, RTS_MSGQ_CAPACITY_MAX + 1));
	CHECK_ERR(EINVAL, rts_msgq_attr_setmsgsize(&a, 0));
	CHECK_ERR(EINVAL, rts_msgq_attr_setmsgsize(&a, RTS_MSGQ_MSG_SIZE_MAX + 1));
	CHECK_ERR(EINVAL, rts_msgq_attr_setpicv(&a, -1));
	CHECK_OK(rts_msgq_attr_destroy(&a));
	CHECK_ERR(EINVAL, rts_msgq_attr_setcapacity(&a, 4)); /* destroyed */

	rts_msgq_t q;
	memset(&q, 0, sizeof(q));
	uint64_t word = 0;
	CHECK_ERR(EINVAL, rts_msgq_send(&q, &word, 0)); /* never initialised */
	CHECK_ERR(EINVAL, rts_msgq_init(&q, &a));
	CHECK_OK(rts_msgq_init(&q, NULL));
	CHECK_ERR(EINVAL, rts_msgq_send(&q, NULL, 0));
	CHECK_ERR(EINVAL, rts_msgq_receive(&q, NULL, NULL));
	CHECK_ERR(EINVAL, rts_msgq_add_producer(&q, -1));
	CHECK_ERR(ENOENT, rts_msgq_del_consumer(&q, 0));
	CHECK_OK(rts_msgq_add_producer(&q, 0));
	CHECK_ERR(EEXIST, rts_msgq_add_producer(&q, 0));
	CHECK_OK(rts_msgq_del_producer(&q, 0));
	CHECK_ERR(EINVAL, rts_msgq_add_producer(NULL, 0));
	CHECK_OK(rts_msgq_destroy(&q));
	CHECK_ERR(EINVAL, rts_msgq_destroy(&q));

	/* PI-CV off: declarations are accepted and do nothing. */
	queue_init(&q, 2, 0);
	CHECK_OK(rts_msgq_add_producer(&q, 0));
	CHECK_OK(rts_msgq_add_producer(&q, 0));
	CHECK_OK(rts_msgq_del_consumer(&q, 0));
	CHECK_OK(rts_msgq_destroy(&q));
}

/* Higher priority first, arrival order among equals; timed calls give up when full / empty. */
static void test_priority_order(void)
{
	rts_msgq_t q;
	queue_init(&q, 6, 1);
	static const unsigned prios[] = { 1, 5, 3, 5, 0, 3 };
	for (uint32_t i = 0; i < 6; i++)
		CHECK_OK(rts_msgq_send(&q, &(struct msg){ .n = i }, prios[i]));
	struct timespec past = h_deadline_ms(CLOCK_MONOTONIC, -1);
	struct msg m;
	unsigned prio;
	CHECK_ERR(ETIMEDOUT, rts_msgq_timedsend(&q, &m, 9, &past));
	static const uint32_t want_n[] = { 1, 3, 2, 5, 0, 4 };
	for (int i = 0; i < 6; i++) {
		CHECK_OK(rts_msgq_receive(&q, &m, &prio));
		CHECK_EQ(m.n, want_n[i]);
		CHECK_EQ(prio, prios[want_n[i]]);
	}
	CHECK_ERR(ETIMEDOUT, rts_msgq_timedreceive(&q, &m, &prio, &past));
	/* The heap refills and drains in order again (slots were recycled). */
	for (uint32_t i = 0; i < 40; i++) {
		CHECK_OK(rts_msgq_send(&q, &(struct msg){ .n = i }, i % 3));
		if (i % 2)
			CHECK_OK(rts_msgq_receive(&q, &m, NULL));
		if (q.count == q.capacity) {
			unsigned last = 99;
			while (q.count) {
				CHECK_OK(rts_msgq_receive(&q, &m, &prio));
				CHECK_LE(prio, last);
				last = prio;
			}
		}
	}
	CHECK_OK(rts_msgq_destroy(&q));
}

/* A thread that makes one send or receive and reports what it got. */
struct one_call {
	rts_msgq_t *q;
	bool send;
	unsigned prio;
	struct msg m;
	bool declare;   /* declare itself producer (send) / consumer (receive) first */
	atomic_int tid;
	atomic_int declared;
	atomic_int ret; /* -1 until the call returns */
	atomic_int prio_after;
};

static void *one_call_main(void *p)
{
	struct one_call *c = p;
	atomic_store(&c->tid, (int)h_gettid());
	int ret;
	if (c->declare) {
		CHECK_OK(c->send ? rts_msgq_add_producer(c->q, 0) : rts_msgq_add_consumer(c->q, 0));
		atomic_store(&c->declared, 1);
	}
	if (c->send)
		ret = rts_msgq_send(c->q, &c->m, c->prio);
	else
		ret = rts_msgq_receive(c->q, &c->m, &c->prio);
	atomic_store(&c->prio_after, h_thread_prio(h_gettid()));
	atomic_store(&c->ret, ret);
	return NULL;
}

static void one_call_start(struct one_call *c, pthread_t *t, rts_msgq_t *q, bool send, int prio,
			   int cpu)
{
	c->q = q;
	c->send = send;
	atomic_store(&c->ret, -1);
	h_thread_start(t, one_call_main, c, prio, cpu);
	WAIT_FOR(atomic_load(&c->tid) != 0, 2000);
}

/* A receive on an empty queue and a send on a full one sleep until the other side acts. */
static void test_blocks_when_empty_and_full(void)
{
	rts_msgq_t q;
	queue_init(&q, 1, 1);
	struct one_call rx = { 0 };
	pthread_t rt;
	one_call_start(&rx, &rt, &q, false, 0, -1);
	WAIT_FOR(waiting(&q) == 1 && h_thread_state(atomic_load(&rx.tid)) == 'S', 2000);
	CHECK_EQ(atomic_load(&rx.ret), -1);
	CHECK_OK(rts_msgq_send(&q, &(struct msg){ .n = 41 }, 2));
	h_join(rt, 5000);
	CHECK_OK(atomic_load(&rx.ret));
	CHECK_EQ(rx.m.n, 41);
	CHECK_EQ(rx.prio, 2);

	CHECK_OK(rts_msgq_send(&q, &(struct msg){ .n = 1 }, 0));
	struct one_call tx = { .m = { .n = 42 }, .prio = 7 };
	pthread_t tt;
	one_call_start(&tx, &tt, &q, true, 0, -1);
	WAIT_FOR(waiting(&q) == 1 && h_thread_state(atomic_load(&tx.tid)) == 'S', 2000);
	CHECK_EQ(atomic_load(&tx.ret), -1);
	CHECK_ERR(EBUSY, rts_msgq_destroy(&q));
	struct msg m;
	CHECK_OK(rts_msgq_receive(&q, &m, NULL));
	CHECK_EQ(m.n, 1);
	h_join(tt, 5000);
	CHECK_OK(atomic_load(&tx.ret));
	unsigned prio;
	CHECK_OK(rts_msgq_receive(&q, &m, &prio));
	CHECK_EQ(m.n, 42);
	CHECK_EQ(prio, 7);
	CHECK_OK(rts_msgq_destroy(&q));
}

/* A declared LOW thread that sleeps until told to make its one call. */
struct helper_thread {
	rts_msgq_t *q;
	bool producer;
	atomic_int tid;
	atomic_int go;
	atomic_int ret;
};

static void *helper_main(void *p)
{
	struct helper_thread *h = p;
	CHECK_OK(h->producer ? rts_msgq_add_producer(h->q, 0) : rts_msgq_add_consumer(h->q, 0));
	atomic_store(&h->tid, (int)h_gettid());
	while (!atomic_load(&h->go))
		h_sleep_us(200);
	struct msg m = { .n = 7 };
	int ret = h->producer ? rts_msgq_send(h->q, &m, 1) : rts_msgq_receive(h->q, &m, NULL);
	CHECK_OK(h->producer ? rts_msgq_del_producer(h->q, 0) : rts_msgq_del_consumer(h->q, 0));
	atomic_store(&h->ret, ret);
	return NULL;
}

/*
 * A HIGH consumer waits on an empty queue (or a HIGH producer on a full one):
 * the declared LOW producer (consumer) runs at HIGH until it acts, then falls
 * back to LOW. Without PI-CV it stays at LOW.
 */
static void waiter_boosts_helper(bool consumer_waits, int picv)
{
	h_require_rt(&rt_cpu, &free_cpu);
	rts_msgq_t q;
	queue_init(&q, 1, picv);
	if (!consumer_waits)
		CHECK_OK(rts_msgq_send(&q, &(struct msg){ .n = 1 }, 0)); /* full */
	struct helper_thread h = { .q = &q, .producer = consumer_waits };
	pthread_t ht;
	h_thread_start(&ht, helper_main, &h, LOW, rt_cpu);
	WAIT_FOR(atomic_load(&h.tid) != 0, 2000);
	pid_t helper = atomic_load(&h.tid);
	CHECK_EQ(h_thread_prio(helper), h_fifo_prio_field(LOW));

	struct one_call w = { .m = { .n = 2 } };
	pthread_t wt;
	one_call_start(&w, &wt, &q, !consumer_waits, HIGH, rt_cpu);
	WAIT_FOR(waiting(&q) == 1 && h_thread_state(atomic_load(&w.tid)) == 'S', 2000);
	if (picv)
		WAIT_FOR(h_thread_prio(helper) == h_fifo_prio_field(HIGH), 2000);
	else
		CHECK_EQ(h_thread_prio(helper), h_fifo_prio_field(LOW));
	atomic_store(&h.go, 1);
	h_join(ht, 5000);
	h_join(wt, 5000);
	CHECK_OK(atomic_load(&h.ret));
	CHECK_OK(atomic_load(&w.ret));
	CHECK_EQ(atomic_load(&w.prio_after), h_fifo_prio_field(HIGH));
	CHECK_OK(rts_msgq_destroy(&q));
}

static void test_consumer_boosts_producer(void) { waiter_boosts_helper(true, 1); }
static void test_producer_boosts_consumer(void) { waiter_boosts_helper(false, 1); }
static void test_no_boost_without_picv(void) { waiter_boosts_helper(true, 0); }

/*
 * After the producer withdraws, a waiting consumer lends to nobody: the
 * producer is back at LOW although the consumer still waits.
 */
static void test_withdrawn_producer_loses_boost(void)
{
	h_require_rt(&rt_cpu, &free_cpu);
	rts_msgq_t q;
	queue_init(&q, 1, 1);
	struct helper_thread h = { .q = &q, .producer = true };
	pthread_t ht;
	h_thread_start(&ht, helper_main, &h, LOW, rt_cpu);
	WAIT_FOR(atomic_load(&h.tid) != 0, 2000);
	pid_t producer = atomic_load(&h.tid);
	struct one_call w = { 0 };
	pthread_t wt;
	one_call_start(&w, &wt, &q, false, HIGH, rt_cpu);
	WAIT_FOR(h_thread_prio(producer) == h_fifo_prio_field(HIGH), 2000);
	CHECK_OK(rts_msgq_del_producer(&q, producer));
	WAIT_FOR(h_thread_prio(producer) == h_fifo_prio_field(LOW), 2000);
	CHECK_EQ(atomic_load(&w.ret), -1);
	CHECK_OK(rts_msgq_add_producer(&q, producer)); /* so that its own del succeeds */
	WAIT_FOR(h_thread_prio(producer) == h_fifo_prio_field(HIGH), 2000);
	atomic_store(&h.go, 1);
	h_join(ht, 5000);
	h_join(wt, 5000);
	CHECK_OK(atomic_load(&w.ret));
	CHECK_OK(rts_msgq_destroy(&q));
}

/*
 * Several declared producers (consumers) are all helpers of one condition
 * variable: a HIGH consumer waiting on the empty queue (a HIGH producer on
 * the full one) lends to every one of them; one acts, and all fall back.
 */
static void waiter_boosts_several(bool consumer_waits)
{
	h_require_rt(&rt_cpu, &free_cpu);
	enum { N = 3 };
	rts_msgq_t q;
	queue_init(&q, 1, 1);
	if (!consumer_waits)
		CHECK_OK(rts_msgq_send(&q, &(struct msg){ .n = 1 }, 0)); /* full */
	struct helper_thread h[N];
	pthread_t ht[N];
	for (int i = 0; i < N; i++) {
		h[i] = (struct helper_thread){ .q = &q, .producer = consumer_waits };
		h_thread_start(&ht[i], helper_main, &h[i], LOW, rt_cpu);
		WAIT_FOR(atomic_load(&h[i].tid) != 0, 2000);
	}
	struct one_call w = { .m = { .n = 2 } };
	pthread_t wt;
	one_call_start(&w, &wt, &q, !consumer_waits, HIGH, rt_cpu);
	for (int i = 0; i < N; i++)
		WAIT_FOR(h_thread_prio(atomic_load(&h[i].tid)) == h_fifo_prio_field(HIGH), 2000);
	atomic_store(&h[0].go, 1);
	h_join(ht[0], 5000);
	h_join(wt, 5000);
	CHECK_OK(atomic_load(&h[0].ret));
	CHECK_OK(atomic_load(&w.ret));
	for (int i = 1; i < N; i++)
		WAIT_FOR(h_thread_prio(atomic_load(&h[i].tid)) == h_fifo_prio_field(LOW), 2000);
	/* The others make their call too; the test keeps the queue full (empty) for the next. */
	for (int i = 1; i < N; i++) {
		if (consumer_waits) {
			struct msg m;
			atomic_store(&h[i].go, 1);
			h_join(ht[i], 5000);
			CHECK_OK(rts_msgq_receive(&q, &m, NULL));
		} else {
			atomic_store(&h[i].go, 1); /* it takes the message that fills the queue */
			h_join(ht[i], 5000);
			CHECK_OK(rts_msgq_send(&q, &(struct msg){ .n = 3 }, 0));
		}
		CHECK_OK(atomic_load(&h[i].ret));
	}
	CHECK_OK(rts_msgq_destroy(&q));
}

static void test_consumer_boosts_every_producer(void) { waiter_boosts_several(true); }
static void test_producer_boosts_every_consumer(void) { waiter_boosts_several(false); }

/* ---- stress ---------------------------------------------------------------- */

struct stress_param {
	int producers, consumers, capacity, per_producer, declare, picv;
};

static const struct stress_param stress_table[] = {
	{ 1, 1, 1, 3000, 1, 1 }, /* the consumer waits before the producer declares (was EBUSY) */
	{ 1, 1, 4, 3000, 1, 0 },
	{ 4, 4, 2, 1500, 0, 1 },  /* undeclared threads on a PI-CV queue */
	{ 6, 3, 8, 1000, 0, 0 },
	{ 3, 6, 3, 1500, 0, 1 },
	{ 4, 4, 2, 1500, 1, 1 },  /* every thread a declared helper: several per condvar */
	{ 6, 3, 3, 1000, 1, 1 },
	{ 2, 6, 1, 2000, 1, 1 },
};

struct stress {
	rts_msgq_t q;
	const struct stress_param *p;
	atomic_uint seen[8][3000];
	atomic_int received;
	atomic_int errors;
	_Atomic(const char *) first_error_op; /* the call that failed first, and how */
	atomic_int first_error;
};

static void note_error(struct stress *s, const char *op, int err)
{
	if (!err)
		return;
	if (atomic_fetch_add(&s->errors, 1) == 0) {
		atomic_store(&s->first_error, err);
		atomic_store(&s->first_error_op, op);
	}
}

struct stress_worker {
	struct stress *s;
	uint32_t id;
};

static void *stress_producer(void *p)
{
	struct stress_worker *w = p;
	struct stress *s = w->s;
	bool declare = s->p->declare;
	if (declare)
		note_error(s, "add_producer", rts_msgq_add_producer(&s->q, 0));
	for (int i = 0; i < s->p->per_producer; i++) {
		struct msg m = { .producer = w->id, .n = (uint32_t)i };
		note_error(s, "send", rts_msgq_send(&s->q, &m, 1 + (unsigned)(i * 7 + w->id) % 5));
	}
	if (declare)
		note_error(s, "del_producer", rts_msgq_del_producer(&s->q, 0));
	return NULL;
}

/* Receives until the end marker (priority 0, sent after every real message). */
static void *stress_consumer(void *p)
{
	struct stress_worker *w = p;
	struct stress *s = w->s;
	bool declare = s->p->declare;
	if (declare)
		note_error(s, "add_consumer", rts_msgq_add_consumer(&s->q, 0));
	for (;;) {
		struct msg m;
		unsigned prio;
		int err = rts_msgq_receive(&s->q, &m, &prio);
		if (err) {
			note_error(s, "receive", err);
			break;
		}
		if (prio == 0)
			break;
		atomic_fetch_add(&s->seen[m.producer][m.n], 1);
		atomic_fetch_add(&s->received, 1);
	}
	if (declare)
		note_error(s, "del_consumer", rts_msgq_del_consumer(&s->q, 0));
	return NULL;
}

/* Every message received exactly once, nothing else, no error. */
static void test_stress(int row)
{
	const struct stress_param *p = &stress_table[row];
	struct stress *s = calloc(1, sizeof(*s));
	CHECK(s);
	s->p = p;
	queue_init(&s->q, (unsigned)p->capacity, p->picv);
	pthread_t tp[8], tc[8];
	struct stress_worker wp[8], wc[8];
	for (int i = 0; i < p->consumers; i++) {
		wc[i] = (struct stress_worker){ s, (uint32_t)i };
		h_thread_start(&tc[i], stress_consumer, &wc[i], 0, -1);
	}
	for (int i = 0; i < p->producers; i++) {
		wp[i] = (struct stress_worker){ s, (uint32_t)i };
		h_thread_start(&tp[i], stress_producer, &wp[i], 0, -1);
	}
	for (int i = 0; i < p->producers; i++) {
		int64_t give_up = clock_ns(CLOCK_MONOTONIC) + 30000LL * 1000000 * H_SLOW;
		while (pthread_tryjoin_np(tp[i], NULL) == EBUSY) {
			CHECK_MSG(clock_ns(CLOCK_MONOTONIC) < give_up, "producer %d hangs; %d errors, first: %s %s",
				  i, atomic_load(&s->errors), atomic_load(&s->first_error_op) ?: "-",
				  h_errname(atomic_load(&s->first_error)));
			h_sleep_ms(1);
		}
	}
	for (int i = 0; i < p->consumers; i++)
		CHECK_OK(rts_msgq_send(&s->q, &(struct msg){ 0 }, 0));
	for (int i = 0; i < p->consumers; i++)
		h_join(tc[i], 30000);
	CHECK_MSG(atomic_load(&s->errors) == 0, "%d errors, first: %s %s", atomic_load(&s->errors),
		  atomic_load(&s->first_error_op), h_errname(atomic_load(&s->first_error)));
	CHECK_EQ(atomic_load(&s->received), p->producers * p->per_producer);
	for (int i = 0; i < p->producers; i++)
		for (int n = 0; n < p->per_producer; n++)
			CHECK_MSG(atomic_load(&s->seen[i][n]) == 1, "message %d of producer %d seen %u times",
				  n, i, atomic_load(&s->seen[i][n]));
	CHECK_EQ(s->q.count, 0);
	CHECK_OK(rts_msgq_destroy(&s->q));
	free(s);
}

#define STRESS_CASE(row) { "test_stress_" #row, NULL, 60000, test_stress, row }

static const struct h_case cases[] = {
	H_CASE(test_attr_and_misuse, 5000),
	H_CASE(test_priority_order, 5000),
	H_CASE(test_blocks_when_empty_and_full, 5000),
	H_CASE(test_consumer_boosts_producer, 10000),
	H_CASE(test_producer_boosts_consumer, 10000),
	H_CASE(test_no_boost_without_picv, 10000),
	H_CASE(test_withdrawn_producer_loses_boost, 10000),
	H_CASE(test_consumer_boosts_every_producer, 10000),
	H_CASE(test_producer_boosts_every_consumer, 10000),
	STRESS_CASE(0),
	STRESS_CASE(1),
	STRESS_CASE(2),
	STRESS_CASE(3),
	STRESS_CASE(4),
	STRESS_CASE(5),
	STRESS_CASE(6),
	STRESS_CASE(7),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
