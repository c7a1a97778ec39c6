/* SPDX-License-Identifier: MIT */
/*
 * rts_cond_wait and rts_cond_timedwait are cancellation points, as
 * pthread_cond_wait is (POSIX; glibc's tst-cond7, tst-cond8, tst-cond22,
 * tst-cond25 patterns, written anew); each case with a NONE and a PIP mutex:
 *  - a waiter cancelled while it sleeps, untimed or with a far deadline,
 *    acts on it promptly (the join does not wait for the deadline), and its
 *    cleanup handler runs owning the mutex, which it unlocks;
 *  - a cancellation requested before the wait is acted on in the wait,
 *    cleanup handler owning the mutex;
 *  - the condvar is left clean: no waiter counted, destroy returns 0;
 *  - a signal that arrives together with a cancellation is not lost: the
 *    cancelled waiter took it and returned from the wait, or the other
 *    waiter gets it (many rounds, process-private and process-shared).
 * The private cases again on a PI-CV (the main thread is the helper the
 * waiters lend to, and it hands a signalled waiter its token when it
 * unlocks the mutex).
 */
#include "rts_helpers.h"

/* Case arguments: the mutex protocol, with WITH_HELPER for a PI-CV. */
#define WITH_HELPER 0x100

static void cond_init_case(rts_cond_t *c, int pshared, int arg)
{
	cond_init_with(c, pshared, CLOCK_MONOTONIC);
	if (arg & WITH_HELPER)
		CHECK_OK(rts_cond_helper_add(c, h_gettid()));
}

struct cancel_pair {
	rts_mutex_t m;
	rts_cond_t c;
	pid_t tid;
	int in_wait;
	int handler_ran;
	pid_t owner_in_handler; /* mutex owner seen by the cleanup handler */
	int self_cancel;
	int timed;
};

static void unlock_in_handler(void *arg)
{
	struct cancel_pair *p = arg;
	p->owner_in_handler = mutex_owner(&p->m);
	H_STORE(&p->handler_ran, 1);
	rts_mutex_unlock(&p->m);
}

static void *cancellable_waiter(void *arg)
{
	struct cancel_pair *p = arg;
	H_STORE(&p->tid, h_gettid());
	rts_mutex_lock(&p->m);
	pthread_cleanup_push(unlock_in_handler, p);
	if (p->self_cancel)
		pthread_cancel(pthread_self()); /* deferred: pending until a cancellation point */
	H_STORE(&p->in_wait, 1);
	for (;;) { /* only a cancellation ends this wait */
		struct timespec far = h_deadline_ms(CLOCK_MONOTONIC, 60000);
		if (p->timed)
			rts_cond_timedwait(&p->c, &p->m, &far);
		else
			rts_cond_wait(&p->c, &p->m);
	}
	pthread_cleanup_pop(1);
	return NULL;
}

static void join_cancelled(pthread_t t, int timeout_ms)
{
	struct timespec dl = h_deadline_ms(CLOCK_REALTIME, (int64_t)timeout_ms * H_SLOW);
	void *result = NULL;
	int ret = pthread_timedjoin_np(t, &result, &dl);
	if (ret)
		FAIL("the cancelled waiter did not end within %d ms: %s", timeout_ms * H_SLOW,
		     h_errname(ret));
	CHECK(result == PTHREAD_CANCELED);
}

static void cancel_in_wait(int arg, bool timed, bool self_cancel)
{
	struct cancel_pair *p = calloc(1, sizeof(*p));
	CHECK(p != NULL);
	mutex_init_proto(&p->m, arg & ~WITH_HELPER);
	cond_init_case(&p->c, RTS_PROCESS_PRIVATE, arg);
	p->timed = timed;
	p->self_cancel = self_cancel;
	pthread_t t;
	h_thread_start(&t, cancellable_waiter, p, 0, -1);
	if (!self_cancel) {
		WAIT_FOR(H_LOAD(&p->in_wait) && h_thread_state(H_LOAD(&p->tid)) == 'S', 3000);
		CHECK_OK(pthread_cancel(t));
	}
	/* Far less than the 60 s deadline: the cancellation is acted on at once. */
	join_cancelled(t, 5000);
	CHECK_EQ(H_LOAD(&p->handler_ran), 1);
	CHECK_EQ(p->owner_in_handler, H_LOAD(&p->tid));
	CHECK_EQ(mutex_owner(&p->m), 0);
	CHECK_EQ(cond_waiters(&p->c), 0);
	CHECK_OK(lock_unlock_elsewhere(&p->m));
	CHECK_OK(rts_cond_destroy(&p->c));
	CHECK_OK(rts_mutex_destroy(&p->m));
	free(p);
}

static void cancel_untimed(int arg)
{
	cancel_in_wait(arg, false, false);
}

static void cancel_timed(int arg)
{
	cancel_in_wait(arg, true, false);
}

static void cancel_pending_before_wait(int arg)
{
	cancel_in_wait(arg, false, true);
}

/* ---- a signal together with a cancellation is not lost ------------------ */

struct race {
	rts_mutex_t m;
	rts_cond_t c;
	int tokens;   /* signalled work, consumed under m */
	int consumed; /* by either waiter */
	int asleep;   /* waiters between registering and returning */
};

static void unlock_race(void *arg)
{
	struct race *r = arg;
	r->asleep--;
	rts_mutex_unlock(&r->m);
}

/* Wait for a token and consume it. */
static void *token_waiter(void *arg)
{
	struct race *r = arg;
	rts_mutex_lock(&r->m);
	pthread_cleanup_push(unlock_race, r);
	r->asleep++;
	while (!r->tokens)
		rts_cond_wait(&r->c, &r->m);
	r->asleep--;
	r->tokens--;
	r->consumed++;
	pthread_cleanup_pop(0);
	rts_mutex_unlock(&r->m);
	return NULL;
}

static int read_locked(struct race *r, const int *field)
{
	rts_mutex_lock(&r->m);
	int value = *field;
	rts_mutex_unlock(&r->m);
	return value;
}

static int asleep(struct race *r)
{
	return read_locked(r, &r->asleep);
}

static int consumed(struct race *r)
{
	return read_locked(r, &r->consumed);
}

/*
 * Each round: a victim and a survivor wait for one token, in either order
 * in the queue (the first to wait is the first a signal chooses); one token
 * and one signal, and at once the victim is cancelled. Then another token
 * and a broadcast end the round.
 */
static void signal_with_cancel(int pshared, int arg)
{
	int n_rounds = H_TSAN ? 50 : 300;
	struct race *r = calloc(1, sizeof(*r));
	CHECK(r != NULL);
	mutex_init_with(&r->m, arg & ~WITH_HELPER, pshared, RTS_MUTEX_STALLED);
	cond_init_case(&r->c, pshared, arg);
	for (int round = 0; round < n_rounds; round++) {
		pthread_t victim, keeper;
		bool victim_first = !(round & 1);
		h_thread_start(victim_first ? &victim : &keeper, token_waiter, r, 0, -1);
		WAIT_FOR(asleep(r) == 1, 3000);
		h_thread_start(victim_first ? &keeper : &victim, token_waiter, r, 0, -1);
		WAIT_FOR(asleep(r) == 2, 3000);
		if (round & 2)
			h_sleep_us(200); /* both asleep in the kernel, not only queued */
		CHECK_OK(rts_mutex_lock(&r->m));
		r->tokens++;
		CHECK_OK(rts_cond_signal(&r->c));
		CHECK_OK(pthread_cancel(victim));
		CHECK_OK(rts_mutex_unlock(&r->m));
		h_join(victim, 5000);
		/* Whoever the signal chose, the token is taken: by the victim before
		 * it acted on the cancellation, or by the survivor. */
		WAIT_FOR(consumed(r) == 2 * round + 1, 3000);
		CHECK_OK(rts_mutex_lock(&r->m));
		r->tokens++;
		CHECK_OK(rts_cond_broadcast(&r->c));
		CHECK_OK(rts_mutex_unlock(&r->m));
		h_join(keeper, 5000);
		if (consumed(r) == 2 * round + 1) { /* the keeper took the first token: take back the second */
			CHECK_OK(rts_mutex_lock(&r->m));
			r->tokens--;
			r->consumed++;
			CHECK_OK(rts_mutex_unlock(&r->m));
		}
	}
	CHECK_EQ(r->tokens, 0);
	CHECK_EQ(r->asleep, 0);
	CHECK_OK(rts_cond_destroy(&r->c));
	CHECK_OK(rts_mutex_destroy(&r->m));
	free(r);
}

static void signal_with_cancel_private(int arg)
{
	signal_with_cancel(RTS_PROCESS_PRIVATE, arg);
}

static void signal_with_cancel_shared(int arg)
{
	signal_with_cancel(RTS_PROCESS_SHARED, arg);
}

#define BOTH(fn, timeout_ms)                                                    \
	{ #fn "_none", NULL, timeout_ms, fn, RTS_PROTO_NONE },                  \
	{ #fn "_pip", NULL, timeout_ms, fn, RTS_PROTO_PIP }

#define ON_PICV(fn, timeout_ms)                                                       \
	{ #fn "_picv_none", NULL, timeout_ms, fn, RTS_PROTO_NONE | WITH_HELPER },     \
	{ #fn "_picv_pip", NULL, timeout_ms, fn, RTS_PROTO_PIP | WITH_HELPER }

static const struct h_case cases[] = {
	BOTH(cancel_untimed, 10000),
	ON_PICV(cancel_untimed, 10000),
	BOTH(cancel_timed, 10000),
	ON_PICV(cancel_timed, 10000),
	BOTH(cancel_pending_before_wait, 10000),
	ON_PICV(cancel_pending_before_wait, 10000),
	BOTH(signal_with_cancel_private, 60000),
	ON_PICV(signal_with_cancel_private, 60000),
	BOTH(signal_with_cancel_shared, 60000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
