/* SPDX-License-Identifier: MIT */
/*
 * Misuse of rts_mutex and rts_cond returns the exact error number
 * (STYLE 14): EINVAL, EDEADLK, EPERM, EBUSY, ETIMEDOUT.
 */
#include "rts_helpers.h"

static const int protos[] = { RTS_PROTO_NONE, RTS_PROTO_PIP };

static void test_mutexattr_einval(void)
{
	rts_mutexattr_t a;
	CHECK_OK(rts_mutexattr_init(&a));
	CHECK_ERR(EINVAL, rts_mutexattr_setprotocol(&a, 99));
	CHECK_ERR(EINVAL, rts_mutexattr_setprotocol(&a, -1));
	CHECK_ERR(EINVAL, rts_mutexattr_setpshared(&a, 5));
	CHECK_ERR(EINVAL, rts_mutexattr_setrobust(&a, 7));
	/* The failed calls changed nothing. */
	int v = -1;
	CHECK_OK(rts_mutexattr_getprotocol(&a, &v));
	CHECK_EQ(v, RTS_PROTO_NONE);
	CHECK_OK(rts_mutexattr_getpshared(&a, &v));
	CHECK_EQ(v, RTS_PROCESS_PRIVATE);
	CHECK_OK(rts_mutexattr_getrobust(&a, &v));
	CHECK_EQ(v, RTS_MUTEX_STALLED);
	/* Valid values round-trip. */
	CHECK_OK(rts_mutexattr_setprotocol(&a, RTS_PROTO_PIP));
	CHECK_OK(rts_mutexattr_getprotocol(&a, &v));
	CHECK_EQ(v, RTS_PROTO_PIP);
	CHECK_ERR(EINVAL, rts_mutexattr_getprotocol(&a, NULL));
	CHECK_OK(rts_mutexattr_destroy(&a));

	/* An attribute never initialised (all zero, or garbage) is refused. */
	rts_mutex_t m;
	rts_mutexattr_t zero;
	memset(&zero, 0, sizeof(zero));
	CHECK_ERR(EINVAL, rts_mutex_init(&m, &zero));
	CHECK_ERR(EINVAL, rts_mutexattr_setprotocol(&zero, RTS_PROTO_PIP));
	CHECK_ERR(EINVAL, rts_mutexattr_getprotocol(&zero, &v));
	rts_mutexattr_t garbage;
	memset(&garbage, 0xff, sizeof(garbage));
	CHECK_ERR(EINVAL, rts_mutex_init(&m, &garbage));
	/* ... and so is a destroyed one. */
	CHECK_OK(rts_mutexattr_init(&a));
	CHECK_OK(rts_mutexattr_destroy(&a));
	CHECK_ERR(EINVAL, rts_mutex_init(&m, &a));
	CHECK_ERR(EINVAL, rts_mutexattr_destroy(&a));
	CHECK_ERR(EINVAL, rts_mutex_init(NULL, NULL));
	CHECK_OK(rts_mutex_init(&m, NULL));
}

static void test_relock_edeadlk(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		mutex_init_proto(&m, protos[i]);
		CHECK_OK(rts_mutex_lock(&m));
		CHECK_ERR(EDEADLK, rts_mutex_lock(&m));
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 10);
		CHECK_ERR(EDEADLK, rts_mutex_timedlock(&m, &dl));
		/* Still owned exactly once. */
		CHECK_EQ(mutex_owner(&m), h_gettid());
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_EQ(mutex_owner(&m), 0);
		CHECK_OK(rts_mutex_destroy(&m));
	}
	/* Static initialisers are error-checking too. */
	rts_mutex_t s1 = RTS_MUTEX_INITIALIZER, s2 = RTS_MUTEX_PIP_INITIALIZER;
	CHECK_OK(rts_mutex_lock(&s1));
	CHECK_ERR(EDEADLK, rts_mutex_lock(&s1));
	CHECK_OK(rts_mutex_lock(&s2));
	CHECK_ERR(EDEADLK, rts_mutex_lock(&s2));
	CHECK_OK(rts_mutex_unlock(&s2));
	CHECK_OK(rts_mutex_unlock(&s1));
}

static void test_unlock_eperm(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		mutex_init_proto(&m, protos[i]);
		/* Unlocked: nobody may unlock it. */
		CHECK_ERR(EPERM, rts_mutex_unlock(&m));
		CHECK_ERR(EPERM, unlock_elsewhere(&m));
		/* Locked by this thread: another thread may not unlock it. */
		CHECK_OK(rts_mutex_lock(&m));
		CHECK_ERR(EPERM, unlock_elsewhere(&m));
		CHECK_EQ(mutex_owner(&m), h_gettid());
		CHECK_ERR(EBUSY, trylock_elsewhere(&m));
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_ERR(EPERM, rts_mutex_unlock(&m));
		/* Locked by another thread: this one may not unlock it. */
		struct holder h;
		holder_start(&h, &m);
		CHECK_ERR(EPERM, rts_mutex_unlock(&m));
		CHECK_EQ(mutex_owner(&m), h.tid);
		holder_release(&h);
		CHECK_OK(rts_mutex_destroy(&m));
	}
}

static void test_trylock_destroy_ebusy(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		mutex_init_proto(&m, protos[i]);
		CHECK_OK(rts_mutex_trylock(&m));
		CHECK_ERR(EBUSY, rts_mutex_trylock(&m)); /* by self */
		CHECK_ERR(EBUSY, trylock_elsewhere(&m));
		CHECK_ERR(EBUSY, rts_mutex_destroy(&m));
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_OK(rts_mutex_destroy(&m));

		mutex_init_proto(&m, protos[i]);
		struct holder h;
		holder_start(&h, &m);
		CHECK_ERR(EBUSY, rts_mutex_trylock(&m)); /* by another thread */
		CHECK_ERR(EBUSY, rts_mutex_destroy(&m));
		holder_release(&h);
		CHECK_OK(rts_mutex_trylock(&m));
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_OK(rts_mutex_destroy(&m));
	}
}

static void test_timedlock_errors(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		mutex_init_proto(&m, protos[i]);
		/* Free: the timespec is not looked at, even a malformed one. */
		struct timespec bad = { .tv_sec = 0, .tv_nsec = 1000000000 };
		CHECK_OK(rts_mutex_timedlock(&m, &bad));
		CHECK_OK(rts_mutex_unlock(&m));
		CHECK_ERR(EINVAL, rts_mutex_timedlock(&m, NULL));

		struct holder h;
		holder_start(&h, &m);
		/* A deadline in the past. */
		struct timespec past = h_deadline_ms(CLOCK_MONOTONIC, -100);
		CHECK_ERR(ETIMEDOUT, rts_mutex_timedlock(&m, &past));
		struct timespec epoch = { 0, 0 };
		CHECK_ERR(ETIMEDOUT, rts_mutex_timedlock(&m, &epoch));
		/* A deadline in the near future: returns after it, not before. */
		struct timespec soon = h_deadline_ms(CLOCK_MONOTONIC, 30);
		CHECK_ERR(ETIMEDOUT, rts_mutex_timedlock(&m, &soon));
		CHECK_GE(clock_ns(CLOCK_MONOTONIC), timespec_ns(&soon));
		/* Malformed deadlines when the call would block. */
		CHECK_ERR(EINVAL, rts_mutex_timedlock(&m, &bad));
		struct timespec negative = { .tv_sec = clock_ns(CLOCK_MONOTONIC) / 1000000000 + 1,
					     .tv_nsec = -1 };
		CHECK_ERR(EINVAL, rts_mutex_timedlock(&m, &negative));
		/* None of that disturbed the owner. */
		CHECK_EQ(mutex_owner(&m), h.tid);
		holder_release(&h);
		struct timespec later = h_deadline_ms(CLOCK_MONOTONIC, 1000);
		CHECK_OK(rts_mutex_timedlock(&m, &later));
		CHECK_OK(rts_mutex_unlock(&m));
	}
}

static void test_consistent_einval(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		mutex_init_proto(&m, protos[i]);
		CHECK_ERR(EINVAL, rts_mutex_consistent(&m)); /* not robust, unlocked */
		CHECK_OK(rts_mutex_lock(&m));
		CHECK_ERR(EINVAL, rts_mutex_consistent(&m)); /* not robust, owned */
		CHECK_OK(rts_mutex_unlock(&m));

		rts_mutex_t r;
		mutex_init_with(&r, protos[i], RTS_PROCESS_PRIVATE, RTS_MUTEX_ROBUST);
		CHECK_ERR(EINVAL, rts_mutex_consistent(&r)); /* robust, consistent, unlocked */
		CHECK_OK(rts_mutex_lock(&r));
		CHECK_ERR(EINVAL, rts_mutex_consistent(&r)); /* robust, consistent, owned */
		CHECK_OK(rts_mutex_unlock(&r));
		CHECK_OK(rts_mutex_lock(&r)); /* and still usable */
		CHECK_OK(rts_mutex_unlock(&r));
	}
}

/* ---- condition variable -------------------------------------------------- */

static void test_condattr_einval(void)
{
	rts_condattr_t a;
	CHECK_OK(rts_condattr_init(&a));
	CHECK_ERR(EINVAL, rts_condattr_setclock(&a, CLOCK_PROCESS_CPUTIME_ID));
	CHECK_ERR(EINVAL, rts_condattr_setclock(&a, CLOCK_THREAD_CPUTIME_ID));
	CHECK_ERR(EINVAL, rts_condattr_setpshared(&a, 5));
	clockid_t clk = -1;
	CHECK_OK(rts_condattr_getclock(&a, &clk));
	CHECK_EQ(clk, CLOCK_MONOTONIC);
	CHECK_OK(rts_condattr_setclock(&a, CLOCK_REALTIME));
	CHECK_OK(rts_condattr_getclock(&a, &clk));
	CHECK_EQ(clk, CLOCK_REALTIME);
	CHECK_OK(rts_condattr_setclock(&a, CLOCK_MONOTONIC));
	CHECK_OK(rts_condattr_getclock(&a, &clk));
	CHECK_EQ(clk, CLOCK_MONOTONIC);
	CHECK_OK(rts_condattr_destroy(&a));

	rts_cond_t c;
	rts_condattr_t zero;
	memset(&zero, 0, sizeof(zero));
	CHECK_ERR(EINVAL, rts_cond_init(&c, &zero));
	CHECK_ERR(EINVAL, rts_condattr_setclock(&zero, CLOCK_REALTIME));
	CHECK_OK(rts_cond_init(&c, NULL));
	CHECK_OK(rts_cond_destroy(&c));
}

static void test_cond_wait_eperm(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		rts_cond_t c;
		mutex_init_proto(&m, protos[i]);
		CHECK_OK(rts_cond_init(&c, NULL));
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 1000);
		/* Mutex unlocked. */
		CHECK_ERR(EPERM, rts_cond_wait(&c, &m));
		CHECK_ERR(EPERM, rts_cond_timedwait(&c, &m, &dl));
		/* Mutex held by another thread. */
		struct holder h;
		holder_start(&h, &m);
		CHECK_ERR(EPERM, rts_cond_wait(&c, &m));
		CHECK_ERR(EPERM, rts_cond_timedwait(&c, &m, &dl));
		CHECK_EQ(mutex_owner(&m), h.tid);
		CHECK_EQ(cond_waiters(&c), 0);
		holder_release(&h);
		CHECK_OK(rts_cond_destroy(&c));
	}
}

struct waiter {
	rts_cond_t *c;
	rts_mutex_t *m;
	int ret;
	int predicate;
	pid_t tid;
};

static void *wait_for_predicate(void *arg)
{
	struct waiter *w = arg;
	H_STORE(&w->tid, h_gettid());
	int ret = rts_mutex_lock(w->m);
	if (ret) {
		w->ret = ret;
		return NULL;
	}
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 10000);
	while (!w->predicate && ret == 0)
		ret = rts_cond_timedwait(w->c, w->m, &dl);
	w->ret = ret;
	rts_mutex_unlock(w->m);
	return NULL;
}

static void wake_waiter(struct waiter *w, pthread_t t)
{
	CHECK_OK(rts_mutex_lock(w->m));
	w->predicate = 1;
	CHECK_OK(rts_cond_signal(w->c));
	CHECK_OK(rts_mutex_unlock(w->m));
	h_join(t, 5000);
	CHECK_OK(w->ret);
}

static void test_cond_two_mutexes_einval(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m1, m2;
		rts_cond_t c;
		mutex_init_proto(&m1, protos[i]);
		mutex_init_proto(&m2, protos[i]);
		CHECK_OK(rts_cond_init(&c, NULL));
		struct waiter w = { .c = &c, .m = &m1 };
		pthread_t t;
		h_thread_start(&t, wait_for_predicate, &w, 0, -1);
		WAIT_FOR(cond_waiters(&c) == 1 && h_thread_state(H_LOAD(&w.tid)) == 'S', 2000);

		CHECK_OK(rts_mutex_lock(&m2));
		CHECK_ERR(EINVAL, rts_cond_wait(&c, &m2));
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 1000);
		CHECK_ERR(EINVAL, rts_cond_timedwait(&c, &m2, &dl));
		CHECK_EQ(mutex_owner(&m2), h_gettid()); /* still held */
		CHECK_OK(rts_mutex_unlock(&m2));
		CHECK_EQ(cond_waiters(&c), 1);

		wake_waiter(&w, t);
		/* Once nobody waits, the condvar may be used with another mutex. */
		CHECK_OK(rts_mutex_lock(&m2));
		struct timespec soon = h_deadline_ms(CLOCK_MONOTONIC, 5);
		CHECK_ERR(ETIMEDOUT, rts_cond_timedwait(&c, &m2, &soon));
		CHECK_OK(rts_mutex_unlock(&m2));
	}
}

static void test_cond_pshared_mismatch_einval(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t priv, shared;
		rts_cond_t pc, sc;
		mutex_init_with(&priv, protos[i], RTS_PROCESS_PRIVATE, RTS_MUTEX_STALLED);
		mutex_init_with(&shared, protos[i], RTS_PROCESS_SHARED, RTS_MUTEX_STALLED);
		cond_init_with(&sc, RTS_PROCESS_SHARED, CLOCK_MONOTONIC);
		cond_init_with(&pc, RTS_PROCESS_PRIVATE, CLOCK_MONOTONIC);
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 1000);
		CHECK_OK(rts_mutex_lock(&priv));
		CHECK_ERR(EINVAL, rts_cond_wait(&sc, &priv));
		CHECK_ERR(EINVAL, rts_cond_timedwait(&sc, &priv, &dl));
		CHECK_EQ(mutex_owner(&priv), h_gettid());
		CHECK_OK(rts_mutex_unlock(&priv));
		CHECK_OK(rts_mutex_lock(&shared));
		CHECK_ERR(EINVAL, rts_cond_wait(&pc, &shared));
		CHECK_OK(rts_mutex_unlock(&shared));
	}
}

static void test_cond_destroy_ebusy(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		rts_cond_t c;
		mutex_init_proto(&m, protos[i]);
		CHECK_OK(rts_cond_init(&c, NULL));
		struct waiter w = { .c = &c, .m = &m };
		pthread_t t;
		h_thread_start(&t, wait_for_predicate, &w, 0, -1);
		WAIT_FOR(cond_waiters(&c) == 1 && h_thread_state(H_LOAD(&w.tid)) == 'S', 2000);
		CHECK_ERR(EBUSY, rts_cond_destroy(&c));
		wake_waiter(&w, t);
		CHECK_OK(rts_cond_destroy(&c));
	}
}

static void test_cond_bad_deadline_einval(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		rts_cond_t c;
		mutex_init_proto(&m, protos[i]);
		CHECK_OK(rts_cond_init(&c, NULL));
		CHECK_OK(rts_mutex_lock(&m));
		struct timespec bad = { .tv_sec = 1, .tv_nsec = 1000000000 };
		CHECK_ERR(EINVAL, rts_cond_timedwait(&c, &m, &bad));
		CHECK_ERR(EINVAL, rts_cond_timedwait(&c, &m, NULL));
		CHECK_EQ(mutex_owner(&m), h_gettid());
		CHECK_EQ(cond_waiters(&c), 0);
		CHECK_OK(rts_mutex_unlock(&m));
	}
}

/* A NULL mutex is an error number, never a crash. */
static void test_null_mutex_einval(void)
{
	struct timespec deadline = h_deadline_ms(CLOCK_MONOTONIC, 10);
	CHECK_ERR(EINVAL, rts_mutex_init(NULL, NULL));
	CHECK_ERR(EINVAL, rts_mutex_lock(NULL));
	CHECK_ERR(EINVAL, rts_mutex_trylock(NULL));
	CHECK_ERR(EINVAL, rts_mutex_timedlock(NULL, &deadline));
	CHECK_ERR(EINVAL, rts_mutex_unlock(NULL));
	CHECK_ERR(EINVAL, rts_mutex_consistent(NULL));
	CHECK_ERR(EINVAL, rts_mutex_destroy(NULL));
}

static const struct h_case cases[] = {
	H_CASE(test_null_mutex_einval, 5000),
	H_CASE(test_mutexattr_einval, 5000),
	H_CASE(test_relock_edeadlk, 5000),
	H_CASE(test_unlock_eperm, 5000),
	H_CASE(test_trylock_destroy_ebusy, 5000),
	H_CASE(test_timedlock_errors, 5000),
	H_CASE(test_consistent_einval, 5000),
	H_CASE(test_condattr_einval, 5000),
	H_CASE(test_cond_wait_eperm, 5000),
	H_CASE(test_cond_two_mutexes_einval, 5000),
	H_CASE(test_cond_pshared_mismatch_einval, 5000),
	H_CASE(test_cond_destroy_ebusy, 5000),
	H_CASE(test_cond_bad_deadline_einval, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
