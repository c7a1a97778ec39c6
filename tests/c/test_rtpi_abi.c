/* SPDX-License-Identifier: MIT */
/*
 * A program compiled against librtpi 1.0's header (librtpi10/rtpi.h: its
 * layout, flag values and initialiser images), linked with and run on
 * rtsched's librtpi.so.1, as a prebuilt librtpi program is when the loader
 * finds rtsched's library first (issue 11 part 4). No rtsched header is
 * included here.
 *
 * It checks that librtpi's images mean what they mean in librtpi:
 *  - PI_MUTEX_INIT(0), zero-filled memory and pi_mutex_init: a PI mutex. The
 *    owner's TID is in the futex word, a contender sleeps in the kernel in
 *    FUTEX_LOCK_PI(2) with FUTEX_PRIVATE_FLAG (/proc/<pid>/task/<tid>/syscall),
 *    and, where SCHED_FIFO is allowed, a SCHED_FIFO contender boosts the
 *    SCHED_OTHER owner to its priority (/proc/.../stat);
 *  - PI_MUTEX_INIT(RTPI_MUTEX_PSHARED): the contender of another process
 *    sleeps in FUTEX_LOCK_PI(2) without FUTEX_PRIVATE_FLAG and gets the lock;
 *  - PI_COND_INIT(RTPI_COND_CLOCK_REALTIME) / PI_COND_INIT(0): deadlines on
 *    CLOCK_REALTIME / CLOCK_MONOTONIC; PI_COND_INIT(RTPI_COND_PSHARED) with a
 *    process-shared mutex works between two processes;
 *  - rtsched's <rtpi.h> has the same sizes, alignments and initialiser bytes
 *    (so a program built against it also runs on real librtpi);
 *  - issue 11 part 5 as librtpi 1.0 does it: EDEADLOCK for the owner's
 *    trylock, no deadline for pi_cond_timedwait(c, m, NULL).
 */
#include <rtpi.h> /* librtpi10/rtpi.h: see CMakeLists.txt */

#include <linux/futex.h>
#include <sys/mman.h>

#include "harness.h"
#include "rtpi_abi_images.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif
#define TID_MASK 0x3fffffffu
#define OP_CMD(op) ((op) & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

static DEFINE_PI_MUTEX(static_mutex, 0);
static DEFINE_PI_MUTEX(static_mutex_rt, 0);
static DEFINE_PI_COND(static_cond, 0);
static DEFINE_PI_COND(static_cond_realtime, RTPI_COND_CLOCK_REALTIME);
static const pi_mutex_t pshared_mutex_image = PI_MUTEX_INIT(RTPI_MUTEX_PSHARED);
static const pi_cond_t pshared_cond_image = PI_COND_INIT(RTPI_COND_PSHARED);

static uint32_t futex_word(pi_mutex_t *m)
{
	return __atomic_load_n(&m->v.futex, __ATOMIC_ACQUIRE);
}

/*
 * Whether task tid of process pid sleeps in futex(uaddr, op, ...) with uaddr
 * in [obj, obj + len) (len 0: anywhere), read from
 * /proc/<pid>/task/<tid>/syscall ("nr arg1 arg2 ..." while in a system call).
 */
static bool in_futex_within(pid_t pid, pid_t tid, const void *obj, size_t len, unsigned long *op)
{
	char path[96], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	long nr;
	unsigned long arg1, arg2;
	if (sscanf(buf, "%ld 0x%lx 0x%lx", &nr, &arg1, &arg2) != 3)
		return false;
	uintptr_t lo = (uintptr_t)obj;
	if (nr != SYS_futex || (len && (arg1 < lo || arg1 >= lo + len)))
		return false;
	*op = arg2;
	return true;
}

static void check_pi_lock_op(unsigned long op, bool pshared)
{
	CHECK_MSG(OP_CMD(op) == FUTEX_LOCK_PI || OP_CMD(op) == FUTEX_LOCK_PI2,
		  "the contender sleeps in futex op 0x%lx, not FUTEX_LOCK_PI(2): no PI", op);
	if (pshared)
		CHECK_MSG(!(op & FUTEX_PRIVATE_FLAG),
			  "futex op 0x%lx is private on a process-shared mutex", op);
	else
		CHECK_MSG(op & FUTEX_PRIVATE_FLAG, "futex op 0x%lx is shared on a private mutex", op);
}

/* ---- the initialiser images of the two headers ---------------------------- */

static void test_images_match_rtsched_header(void)
{
	static const pi_mutex_t mutex_images[2] = {
		PI_MUTEX_INIT(0),
		PI_MUTEX_INIT(RTPI_MUTEX_PSHARED),
	};
	static const pi_cond_t cond_images[4] = {
		PI_COND_INIT(0),
		PI_COND_INIT(RTPI_COND_PSHARED),
		PI_COND_INIT(RTPI_COND_CLOCK_REALTIME),
		PI_COND_INIT(RTPI_COND_PSHARED | RTPI_COND_CLOCK_REALTIME),
	};
	struct rtsched_rtpi_images r;
	rtsched_rtpi_images(&r);
	CHECK_EQ(r.mutex_size, sizeof(pi_mutex_t));
	CHECK_EQ(r.mutex_align, _Alignof(pi_mutex_t));
	CHECK_EQ(r.cond_size, sizeof(pi_cond_t));
	CHECK_EQ(r.cond_align, _Alignof(pi_cond_t));
	for (int i = 0; i < 2; i++)
		CHECK_MSG(memcmp(r.mutex[i], &mutex_images[i], sizeof(pi_mutex_t)) == 0,
			  "PI_MUTEX_INIT image %d differs from librtpi 1.0's", i);
	for (int i = 0; i < 4; i++)
		CHECK_MSG(memcmp(r.cond[i], &cond_images[i], sizeof(pi_cond_t)) == 0,
			  "PI_COND_INIT(%d) image differs from librtpi 1.0's", i);
}

/* ---- a PI mutex from each of librtpi's starting states --------------------- */

enum mutex_origin { FROM_STATIC_INIT, FROM_ZERO_FILL, FROM_PI_MUTEX_INIT };

static pi_mutex_t *mutex_from(enum mutex_origin origin)
{
	if (origin == FROM_STATIC_INIT)
		return &static_mutex;
	pi_mutex_t *m = aligned_alloc(64, sizeof(*m));
	CHECK(m != NULL);
	memset(m, 0, sizeof(*m));
	if (origin == FROM_PI_MUTEX_INIT)
		CHECK_OK(pi_mutex_init(m, 0));
	return m;
}

struct contender {
	pi_mutex_t *m;
	pid_t tid;
	int ret;
	uint32_t owner_seen; /* futex word's TID once it got the lock */
};

static void *contend(void *arg)
{
	struct contender *c = arg;
	H_STORE(&c->tid, h_gettid());
	int ret = pi_mutex_lock(c->m);
	c->owner_seen = futex_word(c->m) & TID_MASK;
	if (ret == 0)
		ret = pi_mutex_unlock(c->m);
	H_STORE(&c->ret, ret);
	return NULL;
}

static void check_pi_mutex(int origin)
{
	pi_mutex_t *m = mutex_from((enum mutex_origin)origin);
	pid_t me = h_gettid();
	CHECK_EQ(futex_word(m), 0);
	CHECK_OK(pi_mutex_lock(m));
	CHECK_EQ(futex_word(m), me); /* the PI-futex word: the owner's TID */
	CHECK_ERR(EDEADLOCK, pi_mutex_trylock(m));

	struct contender c = { .m = m, .ret = -1 };
	pthread_t t;
	CHECK_OK(pthread_create(&t, NULL, contend, &c));
	unsigned long op = 0;
	WAIT_FOR(H_LOAD(&c.tid) != 0 && in_futex_within(getpid(), H_LOAD(&c.tid), m, 4, &op), 3000);
	check_pi_lock_op(op, false);
	CHECK_EQ(futex_word(m), (uint32_t)me | FUTEX_WAITERS); /* the kernel queued it on the PI futex */
	CHECK_OK(pi_mutex_unlock(m));
	h_join(t, 3000);
	CHECK_OK(c.ret);
	CHECK_EQ(c.owner_seen, c.tid); /* FUTEX_UNLOCK_PI handed the word to the contender */
	CHECK_EQ(futex_word(m), 0);
	CHECK_OK(pi_mutex_destroy(m));
	if (m != &static_mutex)
		free(m);
}

/* ---- the priority boost itself --------------------------------------------- */

static void *rt_contend(void *arg)
{
	return contend(arg);
}

static void test_static_mutex_boosts_owner(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu); /* this thread: SCHED_OTHER, on free_cpu */
	enum { RT_PRIO = 10 };
	pi_mutex_t *m = &static_mutex_rt;
	pid_t me = h_gettid();
	int base = h_thread_prio(me);
	CHECK_OK(pi_mutex_lock(m));
	struct contender c = { .m = m, .ret = -1 };
	pthread_t t;
	h_thread_start(&t, rt_contend, &c, RT_PRIO, rt_cpu);
	/* The SCHED_FIFO contender lends its priority to the SCHED_OTHER owner. */
	WAIT_FOR(h_thread_prio(me) == h_fifo_prio_field(RT_PRIO), 3000);
	CHECK_EQ(futex_word(m), (uint32_t)me | FUTEX_WAITERS);
	CHECK_OK(pi_mutex_unlock(m));
	CHECK_EQ(h_thread_prio(me), base); /* the loan ends at the unlock */
	h_join(t, 3000);
	CHECK_OK(c.ret);
	CHECK_EQ(c.owner_seen, c.tid);
}

/* ---- process-shared images -------------------------------------------------- */

struct shared_pair {
	pi_mutex_t lock;
	pi_cond_t cond;
	int turn; /* 0: parent, 1: child */
	int rounds_done;
};

static struct shared_pair *map_shared_pair(void)
{
	struct shared_pair *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	memcpy(&p->lock, &pshared_mutex_image, sizeof(p->lock));
	memcpy(&p->cond, &pshared_cond_image, sizeof(p->cond));
	return p;
}

static void test_pshared_static_mutex_across_processes(void)
{
	struct shared_pair *p = map_shared_pair();
	CHECK_OK(pi_mutex_lock(&p->lock));
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		int ret = pi_mutex_lock(&p->lock);
		if (ret)
			_exit(10 + ret);
		if ((futex_word(&p->lock) & TID_MASK) != (uint32_t)h_gettid())
			_exit(2);
		_exit(pi_mutex_unlock(&p->lock) ? 3 : 0);
	}
	unsigned long op = 0;
	WAIT_FOR(in_futex_within(child, child, &p->lock, 4, &op), 3000);
	check_pi_lock_op(op, true);
	CHECK_OK(pi_mutex_unlock(&p->lock));
	int status;
	CHECK_SYS(waitpid(child, &status, 0));
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status 0x%x)",
		  status);
	CHECK_EQ(futex_word(&p->lock), 0);
	munmap(p, sizeof(*p));
}

#define ROUNDS 100

static int play(struct shared_pair *p, int me)
{
	for (int r = 0; r < ROUNDS; r++) {
		int ret = pi_mutex_lock(&p->lock);
		if (ret)
			return ret;
		struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 5000);
		while (p->turn != me && ret == 0)
			ret = pi_cond_timedwait(&p->cond, &p->lock, &dl);
		if (ret == 0) {
			p->turn = !me;
			p->rounds_done++;
			ret = pi_cond_signal(&p->cond, &p->lock);
		}
		pi_mutex_unlock(&p->lock);
		if (ret)
			return ret;
	}
	return 0;
}

static void test_pshared_static_cond_across_processes(void)
{
	struct shared_pair *p = map_shared_pair();
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0)
		_exit(play(p, 1) ? 4 : 0);
	CHECK_OK(play(p, 0));
	int status;
	CHECK_SYS(waitpid(child, &status, 0));
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed (status 0x%x)",
		  status);
	CHECK_EQ(p->rounds_done, 2 * ROUNDS);
	munmap(p, sizeof(*p));
}

/* ---- the clocks of static condvars ------------------------------------------- */

static void test_static_cond_clocks(void)
{
	/*
	 * Taking either for the other fails here: a CLOCK_REALTIME deadline read
	 * on CLOCK_MONOTONIC lies decades ahead (the case times out); a
	 * CLOCK_MONOTONIC one read on CLOCK_REALTIME has passed (returns early).
	 */
	CHECK_OK(pi_mutex_lock(&static_mutex));
	struct timespec dl = h_deadline_ms(CLOCK_REALTIME, 20);
	CHECK_ERR(ETIMEDOUT, pi_cond_timedwait(&static_cond_realtime, &static_mutex, &dl));
	CHECK_GE(clock_ns(CLOCK_REALTIME), timespec_ns(&dl));
	dl = h_deadline_ms(CLOCK_MONOTONIC, 20);
	CHECK_ERR(ETIMEDOUT, pi_cond_timedwait(&static_cond, &static_mutex, &dl));
	CHECK_GE(clock_ns(CLOCK_MONOTONIC), timespec_ns(&dl));
	CHECK_OK(pi_mutex_unlock(&static_mutex));
}

/* ---- issue 11 part 5, against librtpi's header --------------------------------- */

static struct {
	int ready;
	int arrived;
	pid_t tid;
	int ret;
} nd;

static void *wait_without_deadline(void *arg)
{
	(void)arg;
	int ret = pi_mutex_lock(&static_mutex);
	H_STORE(&nd.tid, h_gettid());
	H_STORE(&nd.arrived, 1);
	while (ret == 0 && !nd.ready)
		ret = pi_cond_timedwait(&static_cond, &static_mutex, NULL);
	if (ret == 0)
		ret = pi_mutex_unlock(&static_mutex);
	H_STORE(&nd.ret, ret);
	return NULL;
}

static void test_timedwait_null_deadline_waits(void)
{
	pthread_t t;
	nd.ret = -1;
	CHECK_OK(pthread_create(&t, NULL, wait_without_deadline, NULL));
	WAIT_FOR(H_LOAD(&nd.arrived), 3000);
	/*
	 * It sleeps in the kernel (librtpi: no deadline), not back with EINVAL,
	 * and has released the mutex. (Where it sleeps is rtsched's business: a
	 * process-private waiter sleeps on a word of its own.)
	 */
	unsigned long op = 0;
	WAIT_FOR(in_futex_within(getpid(), nd.tid, NULL, 0, &op) &&
			 pi_mutex_trylock(&static_mutex) == 0,
		 3000);
	CHECK_EQ(H_LOAD(&nd.ret), -1);
	nd.ready = 1;
	CHECK_OK(pi_cond_signal(&static_cond, &static_mutex));
	CHECK_OK(pi_mutex_unlock(&static_mutex));
	h_join(t, 3000);
	CHECK_OK(nd.ret);
}

static const struct h_case cases[] = {
	H_CASE(test_images_match_rtsched_header, 3000),
	{ "pi_mutex_static_init", NULL, 5000, check_pi_mutex, FROM_STATIC_INIT },
	{ "pi_mutex_zero_filled", NULL, 5000, check_pi_mutex, FROM_ZERO_FILL },
	{ "pi_mutex_pi_mutex_init", NULL, 5000, check_pi_mutex, FROM_PI_MUTEX_INIT },
	H_CASE(test_static_mutex_boosts_owner, 5000),
	H_CASE(test_pshared_static_mutex_across_processes, 5000),
	H_CASE(test_pshared_static_cond_across_processes, 10000),
	H_CASE(test_static_cond_clocks, 3000),
	H_CASE(test_timedwait_null_deadline_waits, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
