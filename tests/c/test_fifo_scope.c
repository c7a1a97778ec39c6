/* SPDX-License-Identifier: MIT */
/*
 * FIFO mutexes across processes (seed 000, requirements 4, 5, 8, 9):
 *  - a shared FIFO mutex (lock domain) gives mutual exclusion between processes;
 *  - robustness: a child process writing garbage into a shared mutex's words
 *    (random, out of range, another object's record, a wild owner) never
 *    crashes or hangs the parent, whose calls return only documented values
 *    (the errors are checked one by one first), and the domain's other
 *    mutexes and their waiters are unharmed;
 *  - partitioning: two processes hammering private FIFO mutexes take no
 *    internal lock of each other's scope nor of a shared domain (the test
 *    hook rts_fifo_scope_lock_count counts queue-lock acquisitions per scope).
 */
#include <sys/mman.h>

#include "fifo_fixture.h"

struct shared {
	rts_mutex_t m;
	rts_mutex_t bystander;
	long counter;
	int phase;
	int stop;
	int writes; /* by the scribbling child */
	uint64_t counts[2][4];
};

static struct shared *shared_map(void)
{
	struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0);
	CHECK(s != MAP_FAILED);
	memset(s, 0, sizeof(*s));
	return s;
}

static rts_lockdomain_t *domain_open(char *name, size_t len)
{
	snprintf(name, len, "fifo-test-%d", (int)getpid());
	rts_lockdomain_t *d = NULL;
	CHECK_OK(rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0, &d));
	queuer_domain = d; /* the queuers of these tests lock its mutexes */
	return d;
}

static void shared_fifo_init(rts_mutex_t *m, rts_lockdomain_t *d)
{
	rts_mutexattr_t a;
	CHECK_OK(rts_mutexattr_init(&a));
	CHECK_OK(rts_mutexattr_setprotocol(&a, RTS_PROTO_FIFO));
	CHECK_OK(rts_mutexattr_setpshared(&a, RTS_PROCESS_SHARED));
	CHECK_OK(rts_mutexattr_setdomain(&a, d));
	CHECK_OK(rts_mutex_init(m, &a));
}

static void wait_child(pid_t pid)
{
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status 0x%x", status);
}

/* ---- mutual exclusion between processes ------------------------------------- */

#define XPROC_ITERS 20000

static void hammer_shared(struct shared *s)
{
	for (int i = 0; i < XPROC_ITERS; i++) {
		CHECK_OK(rts_mutex_lock(&s->m));
		long v = s->counter;
		if (i % 64 == 0)
			sched_yield();
		s->counter = v + 1;
		CHECK_OK(rts_mutex_unlock(&s->m));
	}
}

static void test_shared_mutual_exclusion(void)
{
	char name[64];
	rts_lockdomain_t *d = domain_open(name, sizeof(name));
	struct shared *s = shared_map();
	shared_fifo_init(&s->m, d);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		hammer_shared(s);
		_exit(0);
	}
	hammer_shared(s);
	wait_child(pid);
	CHECK_EQ(s->counter, 2L * XPROC_ITERS);
	CHECK_OK(rts_lockdomain_unlink(name));
}

/* A domain cannot be closed while a thread waits on one of its FIFO mutexes. */
static void test_domain_close_busy_while_waiting(void)
{
	char name[64];
	rts_lockdomain_t *d = domain_open(name, sizeof(name));
	struct shared *s = shared_map();
	shared_fifo_init(&s->m, d);
	struct fifo_log log = { 0 };
	struct queuer q;
	CHECK_OK(rts_mutex_lock(&s->m));
	queuer_start(&q, 0, QUEUE_LOCK, &s->m, NULL, &log);
	CHECK_ERR(EBUSY, rts_lockdomain_close(d));
	CHECK_OK(rts_mutex_unlock(&s->m));
	h_join(q.thread, 5000);
	check_order(&log, (const int[]){ 0 }, 1);
	CHECK_OK(rts_lockdomain_close(d));
	CHECK_OK(rts_lockdomain_unlink(name));
}

/* ---- robustness ------------------------------------------------------------ */

static const int allowed[] = { 0, EBUSY, ETIMEDOUT, EINVAL, EPERM, EDEADLK, ENOTRECOVERABLE, EAGAIN };

static bool is_allowed(int ret)
{
	for (size_t i = 0; i < H_NCASES(allowed); i++)
		if (ret == allowed[i])
			return true;
	return false;
}

/* The child's garbage: S, Q and the ids of s->m (never its flags: they pick the protocol). */
static void scribble(struct shared *s, unsigned seed, uint32_t other_record)
{
	uint32_t *w = (uint32_t *)&s->m;
	for (unsigned i = 0; !H_LOAD(&s->stop); i++) {
		unsigned r = rand_r(&seed);
		switch (r % 6) {
		case 0: H_STORE(&w[0], (uint32_t)rand_r(&seed)); break;           /* wild S */
		case 1: H_STORE(&w[2], (uint32_t)rand_r(&seed)); break;           /* wild Q */
		case 2: H_STORE(&w[2], other_record); break;                      /* another object's record */
		case 3: H_STORE(&w[2], 1 + (uint32_t)rand_r(&seed) % 1300); break; /* in or just out of range */
		case 4: H_STORE(&w[3 + r % 2], (uint32_t)rand_r(&seed)); break;   /* wild domain / object id */
		default: H_STORE(&w[0], 0); H_STORE(&w[2], 0); break;             /* "free" */
		}
		if (i % 16 == 0) {
			H_INC(&s->writes);
			sched_yield();
		}
	}
}

struct victim {
	struct shared *s;
	int bad_ret;
	int errors;
};

static void *victim_main(void *arg)
{
	struct victim *v = arg;
	/* while the child scribbles: at least 3000 calls and 20000 of its bursts */
	for (int i = 0; i < 3000 || H_LOAD(&v->s->writes) < 20000; i++) {
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 1);
		int ret = i % 3 ? rts_mutex_timedlock(&v->s->m, &dl) : rts_mutex_trylock(&v->s->m);
		if (!is_allowed(ret))
			v->bad_ret = ret;
		if (ret == 0) {
			ret = rts_mutex_unlock(&v->s->m);
			if (!is_allowed(ret))
				v->bad_ret = ret;
		}
		if (ret != 0)
			v->errors++;
	}
	return NULL;
}

static void test_garbage_from_child(void)
{
	char name[64];
	rts_lockdomain_t *d = domain_open(name, sizeof(name));
	struct shared *s = shared_map();
	shared_fifo_init(&s->m, d);
	shared_fifo_init(&s->bystander, d);

	/* A bystander mutex with a waiter queued: its record is what the child points Q at. */
	struct fifo_log log = { 0 };
	struct queuer bystander_waiter;
	CHECK_OK(rts_mutex_lock(&s->bystander));
	queuer_start(&bystander_waiter, 7, QUEUE_LOCK, &s->bystander, NULL, &log);
	uint32_t other_record = H_LOAD(&s->bystander.s.reserved0[0]);
	CHECK_NE(other_record, 0u);

	/* A deterministic case first: Q names the bystander's waiter, WAITERS set: the unlock refuses. */
	CHECK_OK(rts_mutex_lock(&s->m));
	H_STORE(&s->m.s.reserved0[0], other_record);
	H_STORE(&s->m.s.word, (uint32_t)h_gettid() | 0x80000000u);
	CHECK_ERR(EINVAL, rts_mutex_unlock(&s->m));
	/* A wild owner: busy, a timed lock times out, the unlock is refused. */
	shared_fifo_init(&s->m, d);
	H_STORE(&s->m.s.word, 0x3fffff00u);
	CHECK_ERR(EBUSY, rts_mutex_trylock(&s->m));
	struct timespec soon = h_deadline_ms(CLOCK_MONOTONIC, 10);
	CHECK_ERR(ETIMEDOUT, rts_mutex_timedlock(&s->m, &soon));
	CHECK_ERR(EPERM, rts_mutex_unlock(&s->m));
	/* Q out of range behind it: the lock refuses to queue. */
	H_STORE(&s->m.s.reserved0[0], 5000u);
	H_STORE(&s->m.s.word, 0x3fffff00u | 0x80000000u);
	soon = h_deadline_ms(CLOCK_MONOTONIC, 10);
	CHECK_ERR(EINVAL, rts_mutex_timedlock(&s->m, &soon));
	shared_fifo_init(&s->m, d);

	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		scribble(s, 12345, other_record);
		_exit(0);
	}
	WAIT_FOR(H_LOAD(&s->writes) > 0, 5000);
	struct victim v[2] = { { .s = s }, { .s = s } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		h_thread_start(&t[i], victim_main, &v[i], 0, -1);
	for (int i = 0; i < 2; i++)
		h_join(t[i], 60000);
	H_STORE(&s->stop, 1);
	wait_child(pid);
	for (int i = 0; i < 2; i++)
		CHECK_MSG(v[i].bad_ret == 0, "unexpected return %s", h_errname(v[i].bad_ret));
	H_LOG("victims' errors: %d, %d", v[0].errors, v[1].errors);
	/* The bystander and its waiter are unharmed; the domain still works in FIFO order. */
	CHECK_EQ(log.n, 0);
	CHECK_OK(rts_mutex_unlock(&s->bystander));
	h_join(bystander_waiter.thread, 5000);
	check_order(&log, (const int[]){ 7 }, 1);
	shared_fifo_init(&s->m, d);
	struct queuer q[3];
	CHECK_OK(rts_mutex_lock(&s->m));
	for (int i = 0; i < 3; i++)
		queuer_start(&q[i], i, QUEUE_LOCK, &s->m, NULL, &log);
	CHECK_OK(rts_mutex_unlock(&s->m));
	for (int i = 0; i < 3; i++)
		h_join(q[i].thread, 5000);
	check_order(&log, (const int[]){ 7, 0, 1, 2 }, 4);
	CHECK_OK(rts_lockdomain_unlink(name));
}

/* ---- partitioning --------------------------------------------------------- */

#define HAMMER_THREADS 4
#define HAMMER_ITERS 5000

static void *hammer_main(void *arg)
{
	rts_mutex_t *m = arg;
	for (int i = 0; i < HAMMER_ITERS; i++) {
		rts_mutex_lock(m);
		if (i % 8 == 0)
			sched_yield(); /* contention: the slow paths take queue locks */
		rts_mutex_unlock(m);
	}
	return NULL;
}

static void hammer(rts_mutex_t *m)
{
	pthread_t t[HAMMER_THREADS];
	for (int i = 0; i < HAMMER_THREADS; i++)
		h_thread_start(&t[i], hammer_main, m, 0, -1);
	for (int i = 0; i < HAMMER_THREADS; i++)
		h_join(t[i], 60000);
}

/*
 * Phases: 1 process 0 hammers its private mutex, 2 process 1 does, 3 both
 * hammer the shared one. Each process records its own scope's count and the
 * domain's at the end of each phase (counts[process][phase]).
 */
static void partition_child(struct shared *s, rts_lockdomain_t *d, int me)
{
	rts_mutex_t mine;
	fifo_mutex_init(&mine);
	for (int phase = 1; phase <= 3; phase++) {
		while (H_LOAD(&s->phase) < phase)
			h_sleep_us(200);
		if (phase == 3)
			hammer(&s->m);
		else if (phase == me + 1)
			hammer(&mine);
		s->counts[me][phase] = rts_fifo_scope_lock_count(NULL);
		H_INC(&s->stop); /* done with this phase */
	}
	while (H_LOAD(&s->stop) < 6) /* both done: the domain's count is final */
		h_sleep_us(200);
	s->counts[me][0] = rts_fifo_scope_lock_count(d);
	_exit(0);
}

static void test_private_scopes_share_no_lock(void)
{
	char name[64];
	rts_lockdomain_t *d = domain_open(name, sizeof(name));
	struct shared *s = shared_map();
	shared_fifo_init(&s->m, d);
	pid_t pid[2];
	for (int me = 0; me < 2; me++) {
		pid[me] = fork();
		CHECK(pid[me] >= 0);
		if (pid[me] == 0)
			partition_child(s, d, me);
	}
	for (int phase = 1; phase <= 3; phase++) {
		uint64_t domain_before = rts_fifo_scope_lock_count(d);
		H_STORE(&s->phase, phase);
		WAIT_FOR(H_LOAD(&s->stop) == 2 * phase, 60000);
		if (phase < 3) /* private hammering takes no lock of the shared domain */
			CHECK_EQ(rts_fifo_scope_lock_count(d), domain_before);
	}
	for (int me = 0; me < 2; me++)
		wait_child(pid[me]);
	/* Each process's scope counted its own hammering only. */
	CHECK_GT(s->counts[0][1], 0u);
	CHECK_EQ(s->counts[1][1], 0u);          /* process 0's phase took no lock of process 1 */
	CHECK_GT(s->counts[1][2], 0u);
	CHECK_EQ(s->counts[0][2], s->counts[0][1]); /* and the reverse */
	CHECK_EQ(s->counts[0][3], s->counts[0][2]); /* the shared mutex: the domain's locks */
	CHECK_EQ(s->counts[1][3], s->counts[1][2]);
	CHECK_GT(rts_fifo_scope_lock_count(d), 0u);
	CHECK_EQ(s->counts[0][0], rts_fifo_scope_lock_count(d)); /* one counter, both processes */
	CHECK_OK(rts_lockdomain_unlink(name));
}

static const struct h_case cases[] = {
	H_CASE(test_shared_mutual_exclusion, 60000),
	H_CASE(test_domain_close_busy_while_waiting, 20000),
	H_CASE(test_garbage_from_child, 120000),
	H_CASE(test_private_scopes_share_no_lock, 120000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
