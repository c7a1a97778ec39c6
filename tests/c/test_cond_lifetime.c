/* SPDX-License-Identifier: MIT */
/*
 * A condition variable may be destroyed, and its memory freed or reused, as
 * soon as no thread is blocked on it (POSIX pthread_cond_destroy,
 * RATIONALE), even right after a wake and while the woken waiters have not
 * yet returned; each case with a NONE and a PIP mutex:
 *  - destroy right after broadcast / signal, under the mutex, returns 0,
 *    and no woken waiter writes to the poisoned memory afterwards (under
 *    ASan a freed condvar shows any read too);
 *  - destroy returns EBUSY while a waiter is blocked and not woken;
 *  - destroy + memset + init in place, round after round, with waiters in
 *    wait and in timedwait, woken by broadcast or by one signal each
 *    (glibc's tst-cond20 / tst-cond21 pattern).
 * Each again on a PI-CV (the main thread declared a helper, so the waiters
 * lend it their priority and the main thread's wakes hand over tokens).
 */
#include "rts_helpers.h"

#define NWAITERS 4
#define POISON 0x5a

struct pair {
	rts_mutex_t m;
	rts_cond_t *c; /* its own heap block: ASan sees any use after free */
	int returned;
	int errors;
	pid_t tids[NWAITERS];
	int started;
};

static void *wait_once(void *arg)
{
	struct pair *p = arg;
	if (rts_mutex_lock(&p->m)) {
		H_INC(&p->errors);
		return NULL;
	}
	int idx = p->started++;
	H_STORE(&p->tids[idx], h_gettid());
	struct timespec far = h_deadline_ms(CLOCK_MONOTONIC, 60000);
	int ret = (idx & 1) ? rts_cond_timedwait(p->c, &p->m, &far) : rts_cond_wait(p->c, &p->m);
	if (ret)
		p->errors++;
	p->returned++;
	rts_mutex_unlock(&p->m);
	return NULL;
}

static bool all_asleep(struct pair *p, int n)
{
	for (int i = 0; i < n; i++) {
		pid_t tid = H_LOAD(&p->tids[i]);
		if (tid == 0 || h_thread_state(tid) != 'S')
			return false;
	}
	return true;
}

/* Case arguments: the mutex protocol, with WITH_HELPER for a PI-CV. */
#define WITH_HELPER 0x100

static void cond_init_case(rts_cond_t *c, int arg)
{
	CHECK_OK(rts_cond_init(c, NULL));
	if (arg & WITH_HELPER)
		CHECK_OK(rts_cond_helper_add(c, h_gettid()));
}

static struct pair *pair_new(int arg)
{
	struct pair *p = calloc(1, sizeof(*p));
	CHECK(p != NULL);
	mutex_init_proto(&p->m, arg & ~WITH_HELPER);
	p->c = aligned_alloc(64, sizeof(rts_cond_t));
	CHECK(p->c != NULL);
	cond_init_case(p->c, arg);
	return p;
}

static void start_waiters(struct pair *p, pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		h_thread_start(&t[i], wait_once, p, 0, -1);
	WAIT_FOR(all_asleep(p, n), 3000);
}

static bool poisoned(const void *mem, size_t len)
{
	const unsigned char *b = mem;
	for (size_t i = 0; i < len; i++)
		if (b[i] != POISON)
			return false;
	return true;
}

/* Broadcast, destroy and poison under the mutex; the woken waiters must not write. */
static void destroy_after_broadcast(int arg)
{
	struct pair *p = pair_new(arg);
	pthread_t t[NWAITERS];
	start_waiters(p, t, NWAITERS);
	CHECK_OK(rts_mutex_lock(&p->m));
	CHECK_OK(rts_cond_broadcast(p->c));
	CHECK_OK(rts_cond_destroy(p->c));
	memset(p->c, POISON, sizeof(*p->c));
	CHECK_OK(rts_mutex_unlock(&p->m));
	for (int i = 0; i < NWAITERS; i++)
		h_join(t[i], 5000);
	CHECK_EQ(p->returned, NWAITERS);
	CHECK_EQ(p->errors, 0);
	CHECK_MSG(poisoned(p->c, sizeof(*p->c)), "a woken waiter wrote to the destroyed condvar");
	free(p->c);
	free(p);
}

/* Signal one of two, destroy is EBUSY (one still blocked); signal the other, destroy, free. */
static void destroy_after_signal(int arg)
{
	struct pair *p = pair_new(arg);
	pthread_t t[2];
	start_waiters(p, t, 2);
	CHECK_OK(rts_mutex_lock(&p->m));
	CHECK_OK(rts_cond_signal(p->c));
	CHECK_ERR(EBUSY, rts_cond_destroy(p->c)); /* the other one is still blocked */
	CHECK_OK(rts_cond_signal(p->c));
	CHECK_OK(rts_cond_destroy(p->c));
	free(p->c); /* any later touch is a use after free */
	CHECK_OK(rts_mutex_unlock(&p->m));
	h_join(t[0], 5000);
	h_join(t[1], 5000);
	CHECK_EQ(p->returned, 2);
	CHECK_EQ(p->errors, 0);
	free(p);
}

/* A waiter that timed out has left: destroy returns 0 at once. */
static int timed_out_wait(void *arg)
{
	struct pair *p = arg;
	int ret = rts_mutex_lock(&p->m);
	if (ret)
		return ret;
	struct timespec soon = h_deadline_ms(CLOCK_MONOTONIC, 5);
	ret = rts_cond_timedwait(p->c, &p->m, &soon);
	rts_mutex_unlock(&p->m);
	return ret;
}

static void destroy_after_timeout(int arg)
{
	struct pair *p = pair_new(arg);
	CHECK_ERR(ETIMEDOUT, run_in_thread(timed_out_wait, p)); /* not the helper: no self-deadlock */
	CHECK_EQ(cond_waiters(p->c), 0);
	CHECK_OK(rts_cond_destroy(p->c));
	free(p->c);
	free(p);
}

/* ---- tst-cond20 / tst-cond21: destroy and re-initialise in place, round after round */

#define ROUND_WAITERS 3

struct rounds {
	rts_mutex_t m;
	rts_cond_t c;      /* destroyed and re-initialised every round */
	rts_cond_t all_in; /* the last waiter in tells the main thread */
	int waiting;
	int stop;
	int errors;
};

static void *round_waiter(void *arg)
{
	struct rounds *r = arg;
	bool timed = h_gettid() & 1;
	rts_mutex_lock(&r->m);
	while (!r->stop) {
		if (++r->waiting == ROUND_WAITERS)
			rts_cond_signal(&r->all_in);
		struct timespec far = h_deadline_ms(CLOCK_MONOTONIC, 60000);
		int ret = timed ? rts_cond_timedwait(&r->c, &r->m, &far) : rts_cond_wait(&r->c, &r->m);
		if (ret)
			r->errors++;
	}
	rts_mutex_unlock(&r->m);
	return NULL;
}

static void reinit_rounds(int arg)
{
	int n_rounds = H_TSAN ? 300 : 2000;
	struct rounds *r = calloc(1, sizeof(*r));
	CHECK(r != NULL);
	mutex_init_proto(&r->m, arg & ~WITH_HELPER);
	cond_init_case(&r->c, arg);
	CHECK_OK(rts_cond_init(&r->all_in, NULL));
	pthread_t t[ROUND_WAITERS];
	for (int i = 0; i < ROUND_WAITERS; i++)
		h_thread_start(&t[i], round_waiter, r, 0, -1);
	for (int round = 0; round < n_rounds; round++) {
		CHECK_OK(rts_mutex_lock(&r->m));
		while (r->waiting != ROUND_WAITERS)
			CHECK_OK(rts_cond_wait(&r->all_in, &r->m));
		r->waiting = 0;
		if (round & 1) {
			CHECK_OK(rts_cond_broadcast(&r->c));
		} else {
			for (int i = 0; i < ROUND_WAITERS; i++)
				CHECK_OK(rts_cond_signal(&r->c));
		}
		int destroyed = rts_cond_destroy(&r->c);
		if (destroyed)
			FAIL("round %d: destroy after %s: %s", round, (round & 1) ? "broadcast" : "signals",
			     h_errname(destroyed));
		memset(&r->c, 0x55, sizeof(r->c));
		cond_init_case(&r->c, arg);
		CHECK_OK(rts_mutex_unlock(&r->m));
	}
	CHECK_OK(rts_mutex_lock(&r->m));
	while (r->waiting != ROUND_WAITERS)
		CHECK_OK(rts_cond_wait(&r->all_in, &r->m));
	r->stop = 1;
	CHECK_OK(rts_cond_broadcast(&r->c));
	CHECK_OK(rts_mutex_unlock(&r->m));
	for (int i = 0; i < ROUND_WAITERS; i++)
		h_join(t[i], 5000);
	CHECK_EQ(r->errors, 0);
	CHECK_OK(rts_cond_destroy(&r->c));
	CHECK_OK(rts_cond_destroy(&r->all_in));
	free(r);
}

#define ALL(fn, timeout_ms)                                                          \
	{ #fn "_none", NULL, timeout_ms, fn, RTS_PROTO_NONE },                       \
	{ #fn "_pip", NULL, timeout_ms, fn, RTS_PROTO_PIP },                         \
	{ #fn "_picv_none", NULL, timeout_ms, fn, RTS_PROTO_NONE | WITH_HELPER },    \
	{ #fn "_picv_pip", NULL, timeout_ms, fn, RTS_PROTO_PIP | WITH_HELPER }

static const struct h_case cases[] = {
	ALL(destroy_after_broadcast, 10000),
	ALL(destroy_after_signal, 10000),
	ALL(destroy_after_timeout, 5000),
	ALL(reinit_rounds, 60000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
