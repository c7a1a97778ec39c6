/* SPDX-License-Identifier: MIT */
/*
 * Robust rts mutexes (NONE and PIP):
 *  - a thread that exits holding one: the next locker (lock, trylock or
 *    timedlock) gets EOWNERDEAD and owns it;
 *  - unlocked without rts_mutex_consistent it is ENOTRECOVERABLE for
 *    everybody, a waiter already blocked included;
 *  - made consistent, it works as before;
 *  - across processes: a child that dies (exit or SIGKILL) holding a pshared
 *    robust mutex in a MAP_SHARED mapping gives the parent EOWNERDEAD, also
 *    while the parent is blocked on it;
 *  - rts mutexes share glibc's robust list: a thread exiting with robust
 *    glibc and rts mutexes held has all of them recovered, and interleaved
 *    lock/unlock of both kinds leaves the list intact.
 */
#include <sys/mman.h>

#include "rts_helpers.h"

static const int protos[] = { RTS_PROTO_NONE, RTS_PROTO_PIP };

static void robust_init(rts_mutex_t *m, int proto, int pshared)
{
	mutex_init_with(m, proto, pshared, RTS_MUTEX_ROBUST);
}

static void *lock_and_exit(void *m)
{
	return (void *)(intptr_t)rts_mutex_lock(m);
}

/* A thread locks m and exits without unlocking it. */
static void die_holding(rts_mutex_t *m)
{
	pthread_t t;
	h_thread_start(&t, lock_and_exit, m, 0, -1);
	void *ret;
	CHECK_OK(pthread_join(t, &ret));
	CHECK_OK((int)(intptr_t)ret);
}

enum how { BY_LOCK, BY_TRYLOCK, BY_TIMEDLOCK };

static int acquire(rts_mutex_t *m, enum how how)
{
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 2000);
	switch (how) {
	case BY_TRYLOCK:
		return rts_mutex_trylock(m);
	case BY_TIMEDLOCK:
		return rts_mutex_timedlock(m, &dl);
	default:
		return rts_mutex_lock(m);
	}
}

static void test_owner_died_then_consistent(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++)
		for (int how = BY_LOCK; how <= BY_TIMEDLOCK; how++) {
			rts_mutex_t m;
			robust_init(&m, protos[i], RTS_PROCESS_PRIVATE);
			die_holding(&m);
			CHECK_ERR(EOWNERDEAD, acquire(&m, how));
			/* The caller owns it. */
			CHECK_EQ(mutex_owner(&m), h_gettid());
			CHECK_ERR(EBUSY, trylock_elsewhere(&m));
			CHECK_ERR(EDEADLK, rts_mutex_lock(&m));
			CHECK_OK(rts_mutex_consistent(&m));
			CHECK_ERR(EINVAL, rts_mutex_consistent(&m)); /* already consistent */
			CHECK_OK(rts_mutex_unlock(&m));
			/* Usable again, by everybody. */
			CHECK_OK(rts_mutex_lock(&m));
			CHECK_OK(rts_mutex_unlock(&m));
			CHECK_OK(lock_unlock_elsewhere(&m));
			/* And recovers again from a second death. */
			die_holding(&m);
			CHECK_ERR(EOWNERDEAD, acquire(&m, how));
			CHECK_OK(rts_mutex_consistent(&m));
			CHECK_OK(rts_mutex_unlock(&m));
			CHECK_OK(rts_mutex_destroy(&m));
		}
}

static int do_consistent(void *m)
{
	return rts_mutex_consistent(m);
}

static void test_owner_died_not_recoverable(void)
{
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		robust_init(&m, protos[i], RTS_PROCESS_PRIVATE);
		die_holding(&m);
		CHECK_ERR(EOWNERDEAD, rts_mutex_lock(&m));
		CHECK_ERR(EINVAL, run_in_thread(do_consistent, &m)); /* not the owner */
		CHECK_OK(rts_mutex_unlock(&m)); /* without rts_mutex_consistent */
		CHECK_ERR(ENOTRECOVERABLE, rts_mutex_lock(&m));
		CHECK_ERR(ENOTRECOVERABLE, rts_mutex_trylock(&m));
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 100);
		CHECK_ERR(ENOTRECOVERABLE, rts_mutex_timedlock(&m, &dl));
		CHECK_ERR(ENOTRECOVERABLE, lock_unlock_elsewhere(&m));
		CHECK_ERR(ENOTRECOVERABLE, trylock_elsewhere(&m));
		CHECK_EQ(mutex_owner(&m), 0);
	}
}

/* Two waiters blocked when the owner dies: one gets EOWNERDEAD, gives up, the other ENOTRECOVERABLE. */
struct blocked {
	rts_mutex_t m;
	pid_t tids[2];
	int rets[2];
	int owner_release;
	int owner_locked;
};

struct blocked_arg {
	struct blocked *b;
	int i;
};

static void *blocked_waiter(void *p)
{
	struct blocked_arg *a = p;
	H_STORE(&a->b->tids[a->i], h_gettid());
	int ret = rts_mutex_lock(&a->b->m);
	if (ret == EOWNERDEAD) {
		h_sleep_ms(10); /* the other one stays blocked meanwhile */
		if (rts_mutex_unlock(&a->b->m) != 0) /* give up without making it consistent */
			ret = -1;
	} else if (ret == 0) {
		rts_mutex_unlock(&a->b->m);
	}
	H_STORE(&a->b->rets[a->i], ret);
	return NULL;
}

static void *owner_dies_when_told(void *p)
{
	struct blocked *b = p;
	int ret = rts_mutex_lock(&b->m);
	H_STORE(&b->owner_locked, ret == 0 ? 1 : -1);
	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + 10LL * 1000000000;
	while (!H_LOAD(&b->owner_release) && clock_ns(CLOCK_MONOTONIC) < give_up)
		h_sleep_us(500);
	return NULL; /* exits holding b->m */
}

static void blocked_waiter_sees_not_recoverable(int proto)
{
	{
		struct blocked *b = calloc(1, sizeof(*b));
		CHECK(b != NULL);
		robust_init(&b->m, proto, RTS_PROCESS_PRIVATE);
		pthread_t owner, w[2];
		struct blocked_arg args[2] = { { b, 0 }, { b, 1 } };
		h_thread_start(&owner, owner_dies_when_told, b, 0, -1);
		WAIT_FOR(H_LOAD(&b->owner_locked) != 0, 2000);
		CHECK_EQ(H_LOAD(&b->owner_locked), 1);
		for (int k = 0; k < 2; k++) {
			h_thread_start(&w[k], blocked_waiter, &args[k], 0, -1);
			WAIT_FOR(H_LOAD(&b->tids[k]) != 0 && h_thread_state(H_LOAD(&b->tids[k])) == 'S',
				 2000);
		}
		H_STORE(&b->owner_release, 1);
		h_join(owner, 2000);
		h_join(w[0], 3000);
		h_join(w[1], 3000);
		int r0 = b->rets[0], r1 = b->rets[1];
		CHECK_MSG((r0 == EOWNERDEAD && r1 == ENOTRECOVERABLE) ||
				  (r1 == EOWNERDEAD && r0 == ENOTRECOVERABLE),
			  "%s: blocked waiters got %s and %s, expected EOWNERDEAD and ENOTRECOVERABLE",
			  proto_name(proto), h_errname(r0), h_errname(r1));
		CHECK_ERR(ENOTRECOVERABLE, rts_mutex_lock(&b->m));
		free(b);
	}
}

/*
 * A NONE robust mutex: the kernel wakes a waiter of a dead owner's word with a
 * process-shared FUTEX_WAKE, so waiters must not sleep with FUTEX_PRIVATE_FLAG
 * (regression: the waiters hung).
 */
static void test_blocked_waiter_sees_not_recoverable_none(void)
{
	blocked_waiter_sees_not_recoverable(RTS_PROTO_NONE);
}

static void test_blocked_waiter_sees_not_recoverable_pip(void)
{
	blocked_waiter_sees_not_recoverable(RTS_PROTO_PIP);
}

/* ---- across processes ---------------------------------------------------- */

struct shm {
	rts_mutex_t m;
	int child_locked;
};

static struct shm *shm_new(int proto)
{
	struct shm *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(s != MAP_FAILED);
	robust_init(&s->m, proto, RTS_PROCESS_SHARED);
	return s;
}

enum death { EXIT, SIGKILLED, SIGKILLED_WHILE_PARENT_BLOCKS };

struct killer {
	pid_t victim;
	pid_t watch_tid;
};

static void *kill_when_blocked(void *p)
{
	struct killer *k = p;
	int64_t give_up = clock_ns(CLOCK_MONOTONIC) + 5LL * 1000000000;
	while (h_thread_state(k->watch_tid) != 'S' && clock_ns(CLOCK_MONOTONIC) < give_up)
		h_sleep_us(500);
	h_sleep_ms(5);
	kill(k->victim, SIGKILL);
	return NULL;
}

static void process_dies_holding(int proto, enum death death)
{
	struct shm *s = shm_new(proto);
	pid_t pid = fork();
	CHECK_SYS(pid);
	if (pid == 0) {
		int ret = rts_mutex_lock(&s->m);
		H_STORE(&s->child_locked, ret == 0 ? 1 : -1);
		if (death == EXIT)
			_exit(0); /* exits holding it */
		for (;;)
			pause(); /* until SIGKILL */
	}
	WAIT_FOR(H_LOAD(&s->child_locked) != 0, 2000);
	CHECK_EQ(H_LOAD(&s->child_locked), 1);
	if (death != EXIT)
		CHECK_EQ(mutex_owner(&s->m), pid);
	pthread_t killer_thread;
	struct killer k = { pid, h_gettid() };
	if (death == SIGKILLED)
		CHECK_SYS(kill(pid, SIGKILL));
	if (death == SIGKILLED_WHILE_PARENT_BLOCKS)
		h_thread_start(&killer_thread, kill_when_blocked, &k, 0, -1);
	if (death != SIGKILLED_WHILE_PARENT_BLOCKS) {
		int status;
		CHECK_SYS(waitpid(pid, &status, 0));
	}
	CHECK_ERR(EOWNERDEAD, rts_mutex_lock(&s->m));
	if (death == SIGKILLED_WHILE_PARENT_BLOCKS) {
		h_join(killer_thread, 2000);
		int status;
		CHECK_SYS(waitpid(pid, &status, 0));
		CHECK(WIFSIGNALED(status));
	}
	CHECK_EQ(mutex_owner(&s->m), h_gettid());
	CHECK_OK(rts_mutex_consistent(&s->m));
	CHECK_OK(rts_mutex_unlock(&s->m));
	CHECK_OK(rts_mutex_lock(&s->m));
	CHECK_OK(rts_mutex_unlock(&s->m));
	munmap(s, 4096);
}

static void test_process_exit_none(void)
{
	process_dies_holding(RTS_PROTO_NONE, EXIT);
}

static void test_process_exit_pip(void)
{
	process_dies_holding(RTS_PROTO_PIP, EXIT);
}

static void test_process_sigkill_none(void)
{
	process_dies_holding(RTS_PROTO_NONE, SIGKILLED);
}

static void test_process_sigkill_pip(void)
{
	process_dies_holding(RTS_PROTO_PIP, SIGKILLED);
}

static void test_process_sigkill_while_blocked_none(void)
{
	process_dies_holding(RTS_PROTO_NONE, SIGKILLED_WHILE_PARENT_BLOCKS);
}

static void test_process_sigkill_while_blocked_pip(void)
{
	process_dies_holding(RTS_PROTO_PIP, SIGKILLED_WHILE_PARENT_BLOCKS);
}

/* ---- sharing glibc's robust list ------------------------------------------ */

static void glibc_robust_init(pthread_mutex_t *g, bool pi)
{
	pthread_mutexattr_t a;
	CHECK_OK(pthread_mutexattr_init(&a));
	CHECK_OK(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST));
	if (pi)
		CHECK_OK(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT));
	CHECK_OK(pthread_mutex_init(g, &a));
	CHECK_OK(pthread_mutexattr_destroy(&a));
}

/* Recover a glibc robust mutex whose owner died, and check it works again. */
static void glibc_recover(pthread_mutex_t *g)
{
	CHECK_ERR(EOWNERDEAD, pthread_mutex_lock(g));
	CHECK_OK(pthread_mutex_consistent(g));
	CHECK_OK(pthread_mutex_unlock(g));
	CHECK_OK(pthread_mutex_lock(g));
	CHECK_OK(pthread_mutex_unlock(g));
}

static void rts_recover(rts_mutex_t *m)
{
	CHECK_ERR(EOWNERDEAD, rts_mutex_lock(m));
	CHECK_OK(rts_mutex_consistent(m));
	CHECK_OK(rts_mutex_unlock(m));
	CHECK_OK(rts_mutex_lock(m));
	CHECK_OK(rts_mutex_unlock(m));
}

struct mixed {
	pthread_mutex_t g[3];
	rts_mutex_t r[3];
	int scenario;
	int err; /* first failing step + 1000 * error */
};

#define STEP(n, expr)                                  \
	do {                                           \
		int e_ = (expr);                       \
		if (e_ && !x->err) {                   \
			x->err = (n) + 1000 * e_;      \
			return NULL;                   \
		}                                      \
	} while (0)

/*
 * Each scenario ends with the thread exiting while it holds some mutexes;
 * the comment lists the list (newest first) at exit.
 */
static void *mixed_main(void *p)
{
	struct mixed *x = p;
	switch (x->scenario) {
	case 0: /* held together: [r0 g0] */
		STEP(1, pthread_mutex_lock(&x->g[0]));
		STEP(2, rts_mutex_lock(&x->r[0]));
		break;
	case 1: /* the other order: [g0 r0] */
		STEP(1, rts_mutex_lock(&x->r[0]));
		STEP(2, pthread_mutex_lock(&x->g[0]));
		break;
	case 2: /* lock g0, lock r0, unlock g0, unlock r0; then hold both: [r0 g0] */
		STEP(1, pthread_mutex_lock(&x->g[0]));
		STEP(2, rts_mutex_lock(&x->r[0]));
		STEP(3, pthread_mutex_unlock(&x->g[0]));
		STEP(4, rts_mutex_unlock(&x->r[0]));
		STEP(5, pthread_mutex_lock(&x->g[0]));
		STEP(6, rts_mutex_lock(&x->r[0]));
		break;
	case 3: /* lock r0, lock g0, unlock r0, unlock g0; then hold both: [g0 r0] */
		STEP(1, rts_mutex_lock(&x->r[0]));
		STEP(2, pthread_mutex_lock(&x->g[0]));
		STEP(3, rts_mutex_unlock(&x->r[0]));
		STEP(4, pthread_mutex_unlock(&x->g[0]));
		STEP(5, rts_mutex_lock(&x->r[0]));
		STEP(6, pthread_mutex_lock(&x->g[0]));
		break;
	case 4: /* rts unlinks from between two glibc nodes: [g1 r1 g0] -> [r2 g1 g0] */
		STEP(1, pthread_mutex_lock(&x->g[0]));
		STEP(2, rts_mutex_lock(&x->r[1]));
		STEP(3, pthread_mutex_lock(&x->g[1]));
		STEP(4, rts_mutex_unlock(&x->r[1]));
		STEP(5, rts_mutex_lock(&x->r[2]));
		break;
	case 5: /* glibc unlinks from between two rts nodes: [r1 g0 r0] -> [g1 r1 r0] */
		STEP(1, rts_mutex_lock(&x->r[0]));
		STEP(2, pthread_mutex_lock(&x->g[0]));
		STEP(3, rts_mutex_lock(&x->r[1]));
		STEP(4, pthread_mutex_unlock(&x->g[0]));
		STEP(5, pthread_mutex_lock(&x->g[1]));
		break;
	case 6: /* many, released out of order: [r2 g2 r1 g1 r0 g0] -> [r1 g2 g0] */
		STEP(1, pthread_mutex_lock(&x->g[0]));
		STEP(2, rts_mutex_lock(&x->r[0]));
		STEP(3, pthread_mutex_lock(&x->g[1]));
		STEP(4, rts_mutex_lock(&x->r[1]));
		STEP(5, pthread_mutex_lock(&x->g[2]));
		STEP(6, rts_mutex_lock(&x->r[2]));
		STEP(7, rts_mutex_unlock(&x->r[0]));
		STEP(8, pthread_mutex_unlock(&x->g[1]));
		STEP(9, rts_mutex_unlock(&x->r[2]));
		break;
	}
	return NULL;
}

/* Which mutexes each scenario leaves held at exit (bit i: g[i], bit 4+i: r[i]). */
static const unsigned held_at_exit[] = {
	0x11, 0x11, 0x11, 0x11, 0x43, 0x32, 0x25,
};

static void mixed_scenarios(int rts_proto, bool glibc_pi)
{
	for (int sc = 0; sc < (int)H_NCASES(held_at_exit); sc++) {
		struct mixed *x = calloc(1, sizeof(*x));
		CHECK(x != NULL);
		for (int i = 0; i < 3; i++) {
			glibc_robust_init(&x->g[i], glibc_pi);
			robust_init(&x->r[i], rts_proto, RTS_PROCESS_PRIVATE);
		}
		x->scenario = sc;
		pthread_t t;
		h_thread_start(&t, mixed_main, x, 0, -1);
		h_join(t, 3000);
		CHECK_MSG(x->err == 0, "scenario %d: step %d failed with %s", sc, x->err % 1000,
			  h_errname(x->err / 1000));
		for (int i = 0; i < 3; i++) {
			if (held_at_exit[sc] & (1u << i)) {
				glibc_recover(&x->g[i]);
			} else {
				CHECK_OK(pthread_mutex_trylock(&x->g[i]));
				CHECK_OK(pthread_mutex_unlock(&x->g[i]));
			}
			if (held_at_exit[sc] & (1u << (4 + i))) {
				rts_recover(&x->r[i]);
			} else {
				CHECK_OK(rts_mutex_trylock(&x->r[i]));
				CHECK_OK(rts_mutex_unlock(&x->r[i]));
			}
		}
		/* This thread's list is intact too: hold one of each and die again. */
		x->scenario = 0;
		h_thread_start(&t, mixed_main, x, 0, -1);
		h_join(t, 3000);
		CHECK_EQ(x->err, 0);
		glibc_recover(&x->g[0]);
		rts_recover(&x->r[0]);
		free(x);
	}
}

static void test_glibc_and_rts_none(void)
{
	mixed_scenarios(RTS_PROTO_NONE, false);
}

static void test_glibc_and_rts_pip(void)
{
	mixed_scenarios(RTS_PROTO_PIP, false);
}

static void test_glibc_pi_and_rts_pip(void)
{
	mixed_scenarios(RTS_PROTO_PIP, true);
}

static void test_glibc_pi_and_rts_none(void)
{
	mixed_scenarios(RTS_PROTO_NONE, true);
}

static const struct h_case cases[] = {
	H_CASE(test_owner_died_then_consistent, 5000),
	H_CASE(test_owner_died_not_recoverable, 5000),
	H_CASE(test_blocked_waiter_sees_not_recoverable_none, 5000),
	H_CASE(test_blocked_waiter_sees_not_recoverable_pip, 5000),
	H_CASE(test_process_exit_none, 5000),
	H_CASE(test_process_exit_pip, 5000),
	H_CASE(test_process_sigkill_none, 5000),
	H_CASE(test_process_sigkill_pip, 5000),
	H_CASE(test_process_sigkill_while_blocked_none, 5000),
	H_CASE(test_process_sigkill_while_blocked_pip, 5000),
	H_CASE(test_glibc_and_rts_none, 5000),
	H_CASE(test_glibc_and_rts_pip, 5000),
	H_CASE(test_glibc_pi_and_rts_pip, 5000),
	H_CASE(test_glibc_pi_and_rts_none, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
