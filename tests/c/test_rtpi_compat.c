/* SPDX-License-Identifier: MIT */
/*
 * A program written exactly as for librtpi 1.0: only <rtpi.h> and the pi_*
 * API (no rts_* call), built with the compat include directory and linked
 * with the rtpi library. It checks what a librtpi user relies on:
 * static initialisers, alloc/free, signal/broadcast/timedwait with the mutex
 * argument, EINVAL for unknown flags, and a process-shared pair that works
 * in a forked child mapping it at a different address. Then issue 11 part 5:
 * librtpi's EDEADLOCK for the owner's trylock and NULL deadline, and the
 * deliberate differences listed in rtpi.h (destroy EBUSY, pshared mismatch
 * EINVAL), and concurrent first use of librtpi's initialiser images.
 */
#include <rtpi.h>

#include <sys/mman.h>

#include "harness.h"
#include "rtpi_rts.h" /* white box: the adopted flags after concurrent first use */

static DEFINE_PI_MUTEX(static_mutex, 0);
static DEFINE_PI_COND(static_cond, 0);

struct queue {
	pi_mutex_t lock;
	pi_cond_t ready;
	int items;
	int consumed;
	int arrived;
};

static struct queue q = {
	.lock = PI_MUTEX_INIT(0),
	.ready = PI_COND_INIT(0),
};

static void test_static_initialisers(void)
{
	CHECK_OK(pi_mutex_lock(&static_mutex));
	CHECK_ERR(EDEADLOCK, pi_mutex_trylock(&static_mutex)); /* librtpi: the owner's trylock */
	CHECK_OK(pi_mutex_unlock(&static_mutex));
	CHECK_OK(pi_mutex_trylock(&static_mutex));
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_nsec += 10 * 1000 * 1000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	CHECK_ERR(ETIMEDOUT, pi_cond_timedwait(&static_cond, &static_mutex, &dl));
	CHECK_OK(pi_mutex_unlock(&static_mutex));
	CHECK_OK(pi_cond_destroy(&static_cond));
	CHECK_OK(pi_mutex_destroy(&static_mutex));
}

static void test_unknown_flags_einval(void)
{
	pi_mutex_t *m = pi_mutex_alloc();
	pi_cond_t *c = pi_cond_alloc();
	CHECK(m != NULL && c != NULL);
	CHECK_ERR(EINVAL, pi_mutex_init(m, 0x100));
	CHECK_ERR(EINVAL, pi_mutex_init(m, RTPI_MUTEX_PSHARED | 0x2));
	CHECK_ERR(EINVAL, pi_cond_init(c, 0x4));
	CHECK_ERR(EINVAL, pi_cond_init(c, RTPI_COND_PSHARED | 0x80000000u));
	CHECK_OK(pi_mutex_init(m, 0));
	CHECK_OK(pi_mutex_init(m, RTPI_MUTEX_PSHARED));
	CHECK_OK(pi_cond_init(c, 0));
	CHECK_OK(pi_cond_init(c, RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME));
	CHECK_OK(pi_cond_destroy(c));
	CHECK_OK(pi_mutex_destroy(m));
	pi_cond_free(c);
	pi_mutex_free(m);
}

static void *consumer(void *arg)
{
	(void)arg;
	pi_mutex_lock(&q.lock);
	__atomic_add_fetch(&q.arrived, 1, __ATOMIC_RELEASE);
	while (q.items == 0)
		pi_cond_wait(&q.ready, &q.lock);
	q.items--;
	__atomic_add_fetch(&q.consumed, 1, __ATOMIC_RELEASE);
	pi_mutex_unlock(&q.lock);
	return NULL;
}

static void test_signal_and_broadcast(void)
{
	enum { N = 4 };
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		CHECK_OK(pthread_create(&t[i], NULL, consumer, NULL));
	WAIT_FOR(__atomic_load_n(&q.arrived, __ATOMIC_ACQUIRE) == N, 3000);
	/* One item, one signal: one consumer. */
	CHECK_OK(pi_mutex_lock(&q.lock));
	q.items = 1;
	CHECK_OK(pi_cond_signal(&q.ready, &q.lock));
	CHECK_OK(pi_mutex_unlock(&q.lock));
	WAIT_FOR(__atomic_load_n(&q.consumed, __ATOMIC_ACQUIRE) == 1, 2000);
	/* The rest, one broadcast. */
	CHECK_OK(pi_mutex_lock(&q.lock));
	q.items = N - 1;
	CHECK_OK(pi_cond_broadcast(&q.ready, &q.lock));
	CHECK_OK(pi_mutex_unlock(&q.lock));
	for (int i = 0; i < N; i++)
		h_join(t[i], 3000);
	CHECK_EQ(q.consumed, N);
	CHECK_EQ(q.items, 0);
}

static void test_alloc_timedwait(void)
{
	pi_mutex_t *m = pi_mutex_alloc();
	pi_cond_t *c = pi_cond_alloc();
	CHECK(m != NULL && c != NULL);
	CHECK_EQ((uintptr_t)m % 64, 0);
	CHECK_OK(pi_mutex_init(m, 0));
	CHECK_OK(pi_cond_init(c, 0));
	CHECK_OK(pi_mutex_lock(m));
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 30);
	CHECK_ERR(ETIMEDOUT, pi_cond_timedwait(c, m, &dl));
	CHECK_GE(clock_ns(CLOCK_MONOTONIC), timespec_ns(&dl));
	/* The mutex is held again after the timeout. */
	CHECK_ERR(EDEADLOCK, pi_mutex_trylock(m));
	CHECK_OK(pi_mutex_unlock(m));
	CHECK_OK(pi_cond_destroy(c));
	CHECK_OK(pi_mutex_destroy(m));

	/* RTPI_COND_CLOCK_REALTIME: deadlines on CLOCK_REALTIME. */
	CHECK_OK(pi_cond_init(c, RTPI_COND_CLOCK_REALTIME));
	CHECK_OK(pi_mutex_init(m, 0));
	CHECK_OK(pi_mutex_lock(m));
	dl = h_deadline_ms(CLOCK_REALTIME, 30);
	CHECK_ERR(ETIMEDOUT, pi_cond_timedwait(c, m, &dl));
	CHECK_GE(clock_ns(CLOCK_REALTIME), timespec_ns(&dl));
	CHECK_OK(pi_mutex_unlock(m));
	pi_cond_free(c);
	pi_mutex_free(m);
}

/* Process-shared: ping-pong with a child that maps the same object at another address. */
struct pingpong {
	pi_mutex_t lock;
	pi_cond_t cond;
	int turn; /* 0: parent, 1: child */
	int rounds_done;
};

#define ROUNDS 200

static int play(struct pingpong *p, int me)
{
	for (int r = 0; r < ROUNDS; r++) {
		int ret = pi_mutex_lock(&p->lock);
		if (ret)
			return ret;
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 5000);
		while (p->turn != me && ret == 0)
			ret = pi_cond_timedwait(&p->cond, &p->lock, &dl);
		if (ret) {
			pi_mutex_unlock(&p->lock);
			return ret;
		}
		p->turn = !me;
		p->rounds_done++;
		ret = pi_cond_signal(&p->cond, &p->lock);
		pi_mutex_unlock(&p->lock);
		if (ret)
			return ret;
	}
	return 0;
}

static void test_pshared_other_address(void)
{
	int fd = memfd_create("rtpi-compat", MFD_CLOEXEC);
	CHECK_SYS(fd);
	CHECK_SYS(ftruncate(fd, 4096));
	struct pingpong *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	struct pingpong init = {
		.lock = PI_MUTEX_INIT(RTPI_MUTEX_PSHARED),
		.cond = PI_COND_INIT(RTPI_COND_PSHARED),
	};
	*p = init;
	pid_t pid = fork();
	CHECK_SYS(pid);
	if (pid == 0) {
		/* Map it again elsewhere, drop the inherited mapping, play through the new one. */
		struct pingpong *mine = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mine == MAP_FAILED)
			_exit(2);
		mine = mmap((char *)mine + 4096, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			    fd, 0);
		if (mine == MAP_FAILED || mine == p)
			_exit(3);
		munmap(p, 4096);
		_exit(play(mine, 1) ? 4 : 0);
	}
	CHECK_OK(play(p, 0));
	int status;
	CHECK_SYS(waitpid(pid, &status, 0));
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status 0x%x)",
		  status);
	CHECK_EQ(p->rounds_done, 2 * ROUNDS);
	munmap(p, 4096);
	close(fd);
}

/* ---- issue 11 part 5: librtpi 1.0's answers, and the deliberate differences ---- */

static DEFINE_PI_MUTEX(p5_mutex, 0);
static DEFINE_PI_COND(p5_cond, 0);

static void *trylock_elsewhere(void *arg)
{
	return (void *)(intptr_t)pi_mutex_trylock(arg);
}

/* librtpi: the owner's trylock (and lock) is EDEADLOCK; another thread's is EBUSY. */
static void test_owner_trylock_edeadlock(void)
{
	CHECK_OK(pi_mutex_lock(&p5_mutex));
	CHECK_ERR(EDEADLOCK, pi_mutex_trylock(&p5_mutex));
	CHECK_ERR(EDEADLOCK, pi_mutex_lock(&p5_mutex));
	pthread_t t;
	void *ret;
	CHECK_OK(pthread_create(&t, NULL, trylock_elsewhere, &p5_mutex));
	CHECK_OK(pthread_join(t, &ret));
	CHECK_ERR(EBUSY, (int)(intptr_t)ret);
	CHECK_OK(pi_mutex_unlock(&p5_mutex));
	CHECK_ERR(EPERM, pi_mutex_unlock(&p5_mutex));
}

static struct {
	int ready, arrived, ret;
	pid_t tid;
} nd = { .ret = -1 };

static void *wait_no_deadline(void *arg)
{
	(void)arg;
	int ret = pi_mutex_lock(&p5_mutex);
	H_STORE(&nd.tid, h_gettid());
	H_STORE(&nd.arrived, 1);
	while (ret == 0 && !nd.ready)
		ret = pi_cond_timedwait(&p5_cond, &p5_mutex, NULL);
	if (ret == 0)
		ret = pi_mutex_unlock(&p5_mutex);
	H_STORE(&nd.ret, ret);
	return NULL;
}

/* librtpi: pi_cond_timedwait(c, m, NULL) waits without a deadline (it was EINVAL). */
static void test_timedwait_null_deadline_waits(void)
{
	pthread_t t;
	CHECK_OK(pthread_create(&t, NULL, wait_no_deadline, NULL));
	WAIT_FOR(H_LOAD(&nd.arrived), 3000);
	/* Asleep on the condvar, mutex released: we can take it. */
	WAIT_FOR(h_thread_state(nd.tid) == 'S' && pi_mutex_trylock(&p5_mutex) == 0, 3000);
	CHECK_EQ(H_LOAD(&nd.ret), -1);
	nd.ready = 1;
	CHECK_OK(pi_cond_signal(&p5_cond, NULL)); /* the mutex argument is not needed */
	CHECK_OK(pi_mutex_unlock(&p5_mutex));
	h_join(t, 3000);
	CHECK_OK(nd.ret);
}

/* Deliberate difference: destroy refuses a locked mutex and a condvar with waiters (librtpi: 0). */
static void test_destroy_busy(void)
{
	nd.ret = -1;
	CHECK_OK(pi_mutex_lock(&p5_mutex));
	CHECK_ERR(EBUSY, pi_mutex_destroy(&p5_mutex));
	CHECK_OK(pi_mutex_unlock(&p5_mutex));
	pthread_t t;
	CHECK_OK(pthread_create(&t, NULL, wait_no_deadline, NULL));
	WAIT_FOR(H_LOAD(&nd.arrived), 3000);
	WAIT_FOR(h_thread_state(nd.tid) == 'S' && pi_mutex_trylock(&p5_mutex) == 0, 3000);
	CHECK_ERR(EBUSY, pi_cond_destroy(&p5_cond));
	nd.ready = 1;
	CHECK_OK(pi_cond_broadcast(&p5_cond, &p5_mutex));
	CHECK_OK(pi_mutex_unlock(&p5_mutex));
	h_join(t, 3000);
	CHECK_OK(nd.ret);
	CHECK_OK(pi_cond_destroy(&p5_cond));
	CHECK_OK(pi_mutex_destroy(&p5_mutex));
}

/* Deliberate difference: a process-shared condvar with a private mutex (or the reverse) is EINVAL. */
static void test_pshared_mismatch_einval(void)
{
	DEFINE_PI_MUTEX(private_mutex, 0);
	DEFINE_PI_MUTEX(shared_mutex, RTPI_MUTEX_PSHARED);
	DEFINE_PI_COND(private_cond, 0);
	DEFINE_PI_COND(shared_cond, RTPI_COND_PSHARED);
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 1);
	CHECK_OK(pi_mutex_lock(&private_mutex));
	CHECK_ERR(EINVAL, pi_cond_wait(&shared_cond, &private_mutex));
	CHECK_ERR(EINVAL, pi_cond_timedwait(&shared_cond, &private_mutex, &dl));
	CHECK_ERR(EDEADLOCK, pi_mutex_trylock(&private_mutex)); /* still held */
	CHECK_OK(pi_mutex_unlock(&private_mutex));
	CHECK_OK(pi_mutex_lock(&shared_mutex));
	CHECK_ERR(EINVAL, pi_cond_wait(&private_cond, &shared_mutex));
	CHECK_ERR(ETIMEDOUT, pi_cond_timedwait(&shared_cond, &shared_mutex, &dl));
	CHECK_OK(pi_mutex_unlock(&shared_mutex));
}

/*
 * Adoption of librtpi's images (rtpi.h) by threads that all make their first
 * call at once: they agree, and the mutex excludes (under TSan: no race).
 */
static DEFINE_PI_MUTEX(race_mutex, RTPI_MUTEX_PSHARED);
static DEFINE_PI_COND(race_cond, RTPI_COND_PSHARED);
static int race_go, race_count;

static void *first_use(void *arg)
{
	(void)arg;
	while (!H_LOAD(&race_go))
		;
	for (int i = 0; i < 2000; i++) {
		if (pi_mutex_lock(&race_mutex))
			return (void *)1;
		race_count++;
		if (pi_cond_signal(&race_cond, &race_mutex) || pi_mutex_unlock(&race_mutex))
			return (void *)1;
	}
	return NULL;
}

static void test_concurrent_first_use(void)
{
	enum { N = 4 };
	pthread_t t[N];
	for (int i = 0; i < N; i++)
		CHECK_OK(pthread_create(&t[i], NULL, first_use, NULL));
	H_STORE(&race_go, 1);
	for (int i = 0; i < N; i++) {
		void *ret;
		CHECK_OK(pthread_join(t[i], &ret));
		CHECK(ret == NULL);
	}
	CHECK_EQ(race_count, N * 2000);
	CHECK_EQ(race_mutex.s.flags, RTPI_MUTEX_F_RTSCHED | RTS_PROTO_PIP | RTS_MUTEX_F_PSHARED);
	CHECK_EQ(rtpi_rts_cond(&race_cond)->s.flags, RTS_COND_F_PSHARED);
	CHECK_EQ(race_cond.s.flags, RTPI_COND_PSHARED); /* librtpi's image is left as it was */
}

static const struct h_case cases[] = {
	H_CASE(test_static_initialisers, 3000),
	H_CASE(test_unknown_flags_einval, 3000),
	H_CASE(test_signal_and_broadcast, 5000),
	H_CASE(test_alloc_timedwait, 3000),
	H_CASE(test_pshared_other_address, 10000),
	H_CASE(test_owner_trylock_edeadlock, 3000),
	H_CASE(test_timedwait_null_deadline_waits, 5000),
	H_CASE(test_destroy_busy, 5000),
	H_CASE(test_pshared_mismatch_einval, 3000),
	H_CASE(test_concurrent_first_use, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
