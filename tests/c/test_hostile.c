/* SPDX-License-Identifier: MIT */
/*
 * Hostile writers (issue 33): for each kind of shared object, a victim
 * process uses it (timed and blocking locks, robust locks, condvar waits with
 * signal and broadcast, PI-CV, the LITMUS release word) while an attacker
 * process of the same user writes garbage into it: random words, pointers
 * into the victim's own memory (a fork child has the same address layout),
 * huge and edge indices, self-loops in the domain's queue records, zeros.
 *
 * A PI-CV is process-private, so its attacker writes only the PI-CV handle
 * (the field that held a pointer); the private condvar's own words are the
 * process's (docs/shared-state.md). Process-shared condvars are attacked
 * whole, their PI-CV field included.
 *
 * Asserted for every (kind, pattern) of the matrix:
 *  - the victim does not crash (no signal, and under ASan no report: its
 *    exit status is checked);
 *  - no byte outside the objects changes: canaries around every object in
 *    the shared page, which the attacker never writes, are intact;
 *  - every timed call returns, with 0 or an error number of the documented
 *    set, no later than its deadline plus a generous margin (CALL_MARGIN_MS);
 *  - blocking (untimed) calls may stay blocked, a documented limit
 *    (docs/shared-state.md), but the process stays sound: a victim whose
 *    blocking thread hangs ends on its own, and the count is printed; so may
 *    a timed condvar wait in the re-acquire of its mutex (untimed, as in
 *    pthread_cond_timedwait), printed too.
 *
 * Ownership: with a second account made by the test (useradd, removed by
 * userdel; root only, skipped with the reason otherwise), an object of a lock
 * domain's or the LITMUS release word's name held by the other user is
 * refused at once with EACCES, naming its owner.
 */
#include <fcntl.h>
#include <grp.h>
#include <litmus.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <rtsched/cond.h>
#include <rtsched/lockdomain.h>
#include <rtsched/mutex.h>

#include "harness.h"
#include "internal/ceiling.h" /* the domain's layout: the attacker writes its queue records */

#define RUN_MS 300            /* victim's time under attack per (kind, pattern) */
#define DEADLINE_MS 2         /* of every timed call */
#define CALL_MARGIN_MS 2000   /* generous: returned, not on time */
#define BLOCKED_GRACE_MS 1000 /* a blocking thread still blocked after this is left */
#define CANARY 0xa5a5a5a5a5a5a5a5ull
#define OBJECTS 4
#define RTS_SHM_WHY_MAX_TEST 1024

enum kind {
	K_FIFO_MUTEX,
	K_FIFO_COND,
	K_PIP_MUTEX,
	K_ROBUST_PIP,
	K_ROBUST_NONE,
	K_SHARED_COND_PIP,
	K_SHARED_COND_NONE,
	K_PICV,
	K_LITMUS_TS,
	N_KINDS
};
static const char *const kind_names[N_KINDS] = {
	"fifo-mutex",	     "fifo-cond",	  "pip-mutex", "robust-pip", "robust-none",
	"shared-cond-pip", "shared-cond-none", "picv",      "litmus-ts",
};

enum pattern { P_RANDOM, P_POINTERS, P_INDICES, P_SELF_LOOPS, P_ZERO, N_PATTERNS };
static const char *const pattern_names[N_PATTERNS] = { "random", "pointers", "indices",
							"self-loops", "zero" };

/* One object with a canary on each side; the attacker writes only `bytes`. */
struct guarded {
	uint64_t before[8];
	union {
		rts_mutex_t mutex;
		rts_cond_t cond;
		uint8_t bytes[64];
	};
	uint64_t after[8];
};

/* The page both processes map: objects (attacked) ... */
struct arena {
	struct guarded obj[OBJECTS];
};

/* ... and the results, in a page the attacker never writes. */
struct results {
	int stop;
	long calls, errors, blocking_hung;
	long reacquire_hung; /* a timed condvar wait left re-acquiring its mutex (documented) */
	int bad_ret;       /* an error number outside the documented set (0: none) */
	int late_ms;       /* the latest return past a deadline beyond the margin (0: none) */
	char ts_name[64];  /* litmus-ts: the object the attacker maps */
	char domain[64];   /* FIFO kinds: the domain the attacker maps */
};

/*
 * The documented answers: ENOTSUP is the timedlock of a ceiling protocol,
 * which rewritten flags may name; ESRCH a PI-CV wait whose helpers it sees
 * as gone (its handle rewritten between two looks).
 */
static const int allowed[] = { 0,      EOWNERDEAD, ETIMEDOUT,	    EBUSY,   EINVAL, EPERM,
			       EDEADLK, EAGAIN,	    ENOTRECOVERABLE, ENOTSUP, ESRCH };

static bool is_allowed(int ret)
{
	for (size_t i = 0; i < H_NCASES(allowed); i++)
		if (ret == allowed[i])
			return true;
	return false;
}

static void *map_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	memset(p, 0, size);
	return p;
}

static void canaries_set(struct arena *a)
{
	for (int i = 0; i < OBJECTS; i++)
		for (int j = 0; j < 8; j++)
			a->obj[i].before[j] = a->obj[i].after[j] = CANARY;
}

static void canaries_check(const struct arena *a, const char *what)
{
	for (int i = 0; i < OBJECTS; i++)
		for (int j = 0; j < 8; j++)
			CHECK_MSG(a->obj[i].before[j] == CANARY && a->obj[i].after[j] == CANARY,
				  "%s: a write outside object %d (canary %s[%d] = %#llx)", what, i,
				  a->obj[i].before[j] != CANARY ? "before" : "after", j,
				  (unsigned long long)(a->obj[i].before[j] != CANARY ? a->obj[i].before[j]
										      : a->obj[i].after[j]));
}

/* ---- the victim ----------------------------------------------------------- */

struct victim {
	enum kind kind;
	struct arena *a;
	struct results *r;
	rts_mutex_t private_mutex; /* PI-CV: the waiters' mutex, not attacked */
	pid_t helper_tid;
};

static int64_t now_ms(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1000000;
}

static void note(struct victim *v, int ret)
{
	__atomic_add_fetch(&v->r->calls, 1, __ATOMIC_RELAXED);
	if (ret != 0)
		__atomic_add_fetch(&v->r->errors, 1, __ATOMIC_RELAXED);
	if (!is_allowed(ret))
		__atomic_store_n(&v->r->bad_ret, ret, __ATOMIC_RELAXED);
}

/* A timed call's return: no later than the deadline + margin. */
static void note_timed(struct victim *v, int ret, int64_t started_ms)
{
	note(v, ret);
	int64_t late = now_ms() - started_ms - DEADLINE_MS - CALL_MARGIN_MS;
	if (late > 0)
		__atomic_store_n(&v->r->late_ms, (int)late, __ATOMIC_RELAXED);
}

/* Hold a while now and then (queues form, and the attacker writes a held mutex), then unlock. */
static void after_lock(struct victim *v, rts_mutex_t *m, int ret, int i)
{
	if (ret != 0 && ret != EOWNERDEAD)
		return;
	if (ret == EOWNERDEAD)
		note(v, rts_mutex_consistent(m));
	if (i % 3 == 0)
		h_sleep_us(50);
	note(v, rts_mutex_unlock(m));
}

static void mutex_round(struct victim *v, rts_mutex_t *m, int i)
{
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, DEADLINE_MS);
	int64_t t0 = now_ms();
	int ret = i % 4 ? rts_mutex_timedlock(m, &dl) : rts_mutex_trylock(m);
	note_timed(v, ret, t0);
	after_lock(v, m, ret, i);
}

/*
 * Set while a worker is inside rts_cond_timedwait: a timed wait re-acquires
 * its mutex without a deadline, as pthread_cond_timedwait does, so a mutex
 * whose queue or owner was rewritten may hold it there (docs/shared-state.md).
 */
static __thread int *in_cond_wait;

/* A condvar round: wait (timed) with the mutex, or signal / broadcast it. */
static void cond_round(struct victim *v, rts_cond_t *c, rts_mutex_t *m, bool waiter, int i)
{
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, DEADLINE_MS);
	int64_t t0 = now_ms();
	int ret = rts_mutex_timedlock(m, &dl);
	note_timed(v, ret, t0);
	if (ret != 0 && ret != EOWNERDEAD)
		return;
	if (ret == EOWNERDEAD)
		note(v, rts_mutex_consistent(m));
	if (waiter) {
		dl = h_deadline_ms(CLOCK_MONOTONIC, DEADLINE_MS);
		t0 = now_ms();
		H_STORE(in_cond_wait, 1);
		ret = rts_cond_timedwait(c, m, &dl);
		H_STORE(in_cond_wait, 0);
		note_timed(v, ret, t0);
	} else {
		note(v, i % 2 ? rts_cond_signal(c) : rts_cond_broadcast(c));
	}
	note(v, rts_mutex_unlock(m));
}

static rts_mutex_t *victim_mutex(struct victim *v)
{
	return v->kind == K_PICV ? &v->private_mutex : &v->a->obj[0].mutex;
}

static void litmus_round(struct victim *v, int i)
{
	lt_t delay = 0;
	int ret = i % 2 ? get_nr_ts_release_waiters() : release_ts(&delay);
	note(v, ret >= 0 ? 0 : errno); /* the word may say anything: only the call's soundness counts */
}

struct worker {
	struct victim *v;
	int role; /* 0, 1: timed rounds; 2: blocking rounds */
	int done;
	int in_cond_wait;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct victim *v = w->v;
	in_cond_wait = &w->in_cond_wait;
	if (w->role == 1)
		H_STORE(&v->helper_tid, h_gettid());
	for (int i = 0; !H_LOAD(&v->r->stop); i++) {
		switch (v->kind) {
		case K_FIFO_MUTEX:
		case K_PIP_MUTEX:
		case K_ROBUST_PIP:
		case K_ROBUST_NONE:
			if (w->role == 2) {
				int ret = rts_mutex_lock(&v->a->obj[0].mutex);
				note(v, ret);
				after_lock(v, &v->a->obj[0].mutex, ret, i);
			} else { /* role 1 takes the second mutex now and then */
				mutex_round(v, &v->a->obj[w->role == 1 && i % 4 == 0].mutex, i);
			}
			break;
		case K_FIFO_COND:
		case K_SHARED_COND_PIP:
		case K_SHARED_COND_NONE:
		case K_PICV:
			if (w->role == 2) { /* a blocking wait, woken by the signaller or never */
				rts_mutex_t *m = victim_mutex(v);
				int ret = rts_mutex_lock(m);
				note(v, ret);
				if (ret == 0 || ret == EOWNERDEAD) {
					note(v, rts_cond_wait(&v->a->obj[1].cond, m));
					note(v, rts_mutex_unlock(m));
				}
			} else {
				cond_round(v, &v->a->obj[1].cond, victim_mutex(v), w->role == 0, i);
			}
			break;
		case K_LITMUS_TS:
			litmus_round(v, i);
			break;
		default:
			break;
		}
	}
	H_STORE(&w->done, 1);
	return NULL;
}

static void mutex_init_kind(rts_mutex_t *m, int protocol, bool robust, rts_lockdomain_t *d)
{
	rts_mutexattr_t attr;
	CHECK_OK(rts_mutexattr_init(&attr));
	CHECK_OK(rts_mutexattr_setprotocol(&attr, protocol));
	CHECK_OK(rts_mutexattr_setpshared(&attr, RTS_PROCESS_SHARED));
	if (robust)
		CHECK_OK(rts_mutexattr_setrobust(&attr, RTS_MUTEX_ROBUST));
	if (d)
		CHECK_OK(rts_mutexattr_setdomain(&attr, d));
	CHECK_OK(rts_mutex_init(m, &attr));
}

static void cond_init_shared(rts_cond_t *c)
{
	rts_condattr_t attr;
	CHECK_OK(rts_condattr_init(&attr));
	CHECK_OK(rts_condattr_setpshared(&attr, RTS_PROCESS_SHARED));
	CHECK_OK(rts_cond_init(c, &attr));
}

/* The victim's objects, made before the attacker starts. */
static void victim_setup(struct victim *v, rts_lockdomain_t *d)
{
	struct arena *a = v->a;
	switch (v->kind) {
	case K_FIFO_MUTEX:
	case K_FIFO_COND: /* d: the parent's, open in the victim since the fork */
		mutex_init_kind(&a->obj[0].mutex, RTS_PROTO_FIFO, false, d);
		mutex_init_kind(&a->obj[1].mutex, RTS_PROTO_FIFO, false, d);
		if (v->kind == K_FIFO_COND)
			cond_init_shared(&a->obj[1].cond);
		break;
	case K_PIP_MUTEX:
	case K_ROBUST_PIP:
	case K_ROBUST_NONE: {
		int protocol = v->kind == K_ROBUST_NONE ? RTS_PROTO_NONE : RTS_PROTO_PIP;
		bool robust = v->kind != K_PIP_MUTEX;
		mutex_init_kind(&a->obj[0].mutex, protocol, robust, NULL);
		mutex_init_kind(&a->obj[1].mutex, protocol, robust, NULL);
		break;
	}
	case K_SHARED_COND_PIP:
	case K_SHARED_COND_NONE:
		mutex_init_kind(&a->obj[0].mutex,
				v->kind == K_SHARED_COND_PIP ? RTS_PROTO_PIP : RTS_PROTO_NONE, false,
				NULL);
		cond_init_shared(&a->obj[1].cond);
		break;
	case K_PICV: {
		rts_mutexattr_t attr;
		CHECK_OK(rts_mutexattr_init(&attr));
		CHECK_OK(rts_mutexattr_setprotocol(&attr, RTS_PROTO_PIP));
		CHECK_OK(rts_mutex_init(&v->private_mutex, &attr));
		CHECK_OK(rts_cond_init(&a->obj[1].cond, NULL)); /* private, in shared memory */
		break;
	}
	case K_LITMUS_TS:
		CHECK_SYS(setenv("RTSCHED_LITMUS_TS_NAME", v->r->ts_name, 1));
		CHECK(get_nr_ts_release_waiters() >= 0); /* makes the object */
		break;
	default:
		break;
	}
}

/* The victim process: 0, or FAIL (exit 1); a crash is a signal. */
static void victim_run(enum kind kind, struct arena *a, struct results *r, int *ready,
		       rts_lockdomain_t *d)
{
	static struct victim v;
	v = (struct victim){ .kind = kind, .a = a, .r = r };
	victim_setup(&v, d);
	struct worker w[3] = { { &v, 0, 0 }, { &v, 1, 0 }, { &v, 2, 0 } };
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		CHECK_OK(pthread_create(&t[i], NULL, worker_main, &w[i]));
	if (kind == K_PICV) {
		WAIT_FOR(H_LOAD(&v.helper_tid) != 0, 5000);
		int ret = rts_cond_helper_add(&a->obj[1].cond, H_LOAD(&v.helper_tid));
		CHECK_MSG(ret == 0 || ret == EBUSY, "helper_add: %s", h_errname(ret));
	}
	H_STORE(ready, 1);
	WAIT_FOR(H_LOAD(&r->stop), RUN_MS * 10 + 10000);
	/* Timed workers return by their deadlines (the condvar waiter but in the
	 * re-acquire of its mutex); the blocking one may stay blocked. */
	h_join(t[1], CALL_MARGIN_MS + 5000);
	int64_t waiter_until = now_ms() + CALL_MARGIN_MS + BLOCKED_GRACE_MS;
	while (!H_LOAD(&w[0].done) && now_ms() < waiter_until)
		h_sleep_ms(10);
	if (!H_LOAD(&w[0].done)) {
		CHECK_MSG(H_LOAD(&w[0].in_cond_wait), "a timed call did not return (not in a condvar wait)");
		r->reacquire_hung = 1;
	}
	int64_t until = now_ms() + BLOCKED_GRACE_MS;
	while (!H_LOAD(&w[2].done) && now_ms() < until) {
		if (kind >= K_FIFO_COND && kind != K_LITMUS_TS)
			rts_cond_broadcast(&a->obj[1].cond); /* may be refused: the object is garbage */
		h_sleep_ms(10);
	}
	if (!H_LOAD(&w[2].done))
		r->blocking_hung = 1; /* documented: untimed calls on a corrupted object may block */
	fflush(stdout);
	_exit(0);
}

/* ---- the attacker --------------------------------------------------------- */

static uint64_t rand64(unsigned *seed)
{
	return ((uint64_t)rand_r(seed) << 33) ^ ((uint64_t)rand_r(seed) << 11) ^ (uint64_t)rand_r(seed);
}

static int victim_global; /* its address is valid in the victim too (fork) */

/* Pointers the victim would find in its own memory. */
static uint64_t victim_pointer(unsigned *seed, struct arena *a)
{
	int stack_local;
	uintptr_t choices[] = {
		(uintptr_t)&victim_global,	  (uintptr_t)&stack_local,  (uintptr_t)a,
		(uintptr_t)&a->obj[0].bytes[32], (uintptr_t)&a->obj[1].after[0], (uintptr_t)&errno,
		(uintptr_t)&a->obj[0].bytes[32] | 1, 1, 0, (uintptr_t)-8,
	};
	return choices[(unsigned)rand_r(seed) % H_NCASES(choices)];
}

static uint32_t edge_index(unsigned *seed)
{
	uint32_t choices[] = { 0xffffffffu, 0x80000000u, RTS_FIFO_RECORDS, RTS_FIFO_RECORDS + 1,
			       65535, 1, 0, (uint32_t)getpid() };
	return choices[(unsigned)rand_r(seed) % H_NCASES(choices)];
}

static void scribble_object(uint8_t *bytes, size_t size, enum pattern p, unsigned *seed,
			    struct arena *a)
{
	size_t at8 = ((unsigned)rand_r(seed) % (size / 8)) * 8;
	size_t at4 = ((unsigned)rand_r(seed) % (size / 4)) * 4;
	switch (p) {
	case P_RANDOM:
		__atomic_store_n((uint64_t *)(bytes + at8), rand64(seed), __ATOMIC_RELAXED);
		break;
	case P_POINTERS:
		__atomic_store_n((uint64_t *)(bytes + at8), victim_pointer(seed, a), __ATOMIC_RELAXED);
		break;
	case P_INDICES:
	case P_SELF_LOOPS:
		__atomic_store_n((uint32_t *)(bytes + at4), edge_index(seed), __ATOMIC_RELAXED);
		break;
	case P_ZERO:
		for (size_t i = 0; i < size; i += 8)
			__atomic_store_n((uint64_t *)(bytes + i), 0, __ATOMIC_RELAXED);
		break;
	default:
		break;
	}
}

/* The domain's queue records (never its queue locks: docs/shared-state.md). */
static void scribble_records(struct rts_fifo_scope *s, enum pattern p, unsigned *seed)
{
	uint32_t slot = 1 + (unsigned)rand_r(seed) % 8; /* the victim's records come first */
	struct rts_fifo_record *rec = &s->records[slot - 1];
	uint32_t value = p == P_SELF_LOOPS ? slot
			 : p == P_RANDOM   ? (uint32_t)rand_r(seed)
			 : p == P_ZERO	   ? 0
					   : edge_index(seed);
	switch ((unsigned)rand_r(seed) % 4) {
	case 0: __atomic_store_n(&rec->next, value, __ATOMIC_RELAXED); break;
	case 1: __atomic_store_n(&rec->prev, value, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n(&rec->head_of, value % 4, __ATOMIC_RELAXED); break;
	default: __atomic_store_n(&rec->mutex_offset, (int64_t)victim_pointer(seed, NULL), __ATOMIC_RELAXED); break;
	}
}

static void *map_named(const char *shm_name, size_t size)
{
	int fd = shm_open(shm_name, O_RDWR, 0);
	CHECK_MSG(fd >= 0, "attacker: %s: %s", shm_name, strerror(errno));
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	CHECK(p != MAP_FAILED);
	return p;
}

static void attacker_run(enum kind kind, enum pattern p, struct arena *a, struct results *r)
{
	unsigned seed = (unsigned)(kind * 31 + p * 7 + 1);
	struct rts_fifo_scope *scope = NULL;
	uint8_t *ts = NULL;
	if (kind == K_FIFO_MUTEX || kind == K_FIFO_COND) {
		char shm[96];
		snprintf(shm, sizeof(shm), "/rtsched-lockdomain.%s", r->domain);
		scope = &((struct rts_lockdomain *)map_named(shm, sizeof(struct rts_lockdomain)))->fifo;
	}
	if (kind == K_LITMUS_TS) {
		char shm[96];
		snprintf(shm, sizeof(shm), "/%s", r->ts_name);
		ts = map_named(shm, 64);
	}
	int target = kind >= K_FIFO_COND && kind != K_LITMUS_TS && kind != K_PIP_MUTEX &&
				     kind != K_ROBUST_PIP && kind != K_ROBUST_NONE
			     ? 1
			     : 0;
	for (unsigned i = 0; !H_LOAD(&r->stop); i++) {
		if (ts)
			scribble_object(ts, 64, p, &seed, a);
		else if (scope && i % 2)
			scribble_records(scope, p, &seed);
		else if (kind == K_PICV) /* its handle: the condvar itself is process-private */
			scribble_object((uint8_t *)&a->obj[1].cond.s.picv, 8, p, &seed, a);
		else
			scribble_object(a->obj[target].bytes, 64, p, &seed, a);
		if (kind >= K_PIP_MUTEX && kind <= K_ROBUST_NONE && i % 3 == 0)
			scribble_object(a->obj[1].bytes, 64, p, &seed, a);
		if (i % 8 == 0)
			sched_yield();
	}
	_exit(0);
}

/* ---- the matrix ----------------------------------------------------------- */

static void run_one(enum kind kind, enum pattern p)
{
	struct arena *a = map_shared(sizeof(struct arena));
	struct results *r = map_shared(sizeof(struct results));
	int *ready = map_shared(sizeof(int));
	canaries_set(a);
	char domain_name[64];
	rts_lockdomain_t *d = NULL;
	if (kind == K_FIFO_MUTEX || kind == K_FIFO_COND) {
		snprintf(domain_name, sizeof(domain_name), "hostile-%d", (int)getpid());
		CHECK_OK(rts_lockdomain_open(domain_name, RTS_LOCKDOMAIN_CREATE, 0, &d));
		snprintf(r->domain, sizeof(r->domain), "%s", domain_name);
	}
	snprintf(r->ts_name, sizeof(r->ts_name), "rtsched-litmus-ts-hostile.%d", (int)getpid());

	pid_t victim = fork();
	CHECK(victim >= 0);
	if (victim == 0)
		victim_run(kind, a, r, ready, d);
	WAIT_FOR(H_LOAD(ready), 10000);
	pid_t attacker = fork();
	CHECK(attacker >= 0);
	if (attacker == 0)
		attacker_run(kind, p, a, r);
	h_sleep_ms(RUN_MS);
	H_STORE(&r->stop, 1);

	int status;
	CHECK_EQ(waitpid(attacker, &status, 0), attacker);
	int64_t until = now_ms() + CALL_MARGIN_MS + BLOCKED_GRACE_MS + 10000;
	pid_t got;
	while ((got = waitpid(victim, &status, WNOHANG)) == 0 && now_ms() < until)
		h_sleep_ms(10);
	if (got == 0) {
		kill(victim, SIGKILL);
		waitpid(victim, &status, 0);
		FAIL("%s / %s: the victim did not end (a timed call or its process hung)",
		     kind_names[kind], pattern_names[p]);
	}
	CHECK_MSG(!WIFSIGNALED(status), "%s / %s: the victim crashed: signal %d (%s)",
		  kind_names[kind], pattern_names[p], WTERMSIG(status), strsignal(WTERMSIG(status)));
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "%s / %s: the victim failed (exit %d; a sanitizer report is above)",
		  kind_names[kind], pattern_names[p], WEXITSTATUS(status));
	char what[64];
	snprintf(what, sizeof(what), "%s / %s", kind_names[kind], pattern_names[p]);
	canaries_check(a, what);
	CHECK_MSG(r->bad_ret == 0, "%s: a call returned %s, not a documented error", what,
		  h_errname(r->bad_ret));
	CHECK_MSG(r->late_ms == 0, "%s: a timed call returned %d ms after its deadline + %d ms",
		  what, r->late_ms, CALL_MARGIN_MS);
	CHECK_GT(r->calls, 0);
	printf("%-17s %-10s calls %8ld  errors %8ld  left blocked: untimed call %-3s timed wait "
	       "re-acquiring %s\n",
	       kind_names[kind], pattern_names[p], r->calls, r->errors,
	       r->blocking_hung ? "yes" : "no", r->reacquire_hung ? "yes" : "no");
	fflush(stdout);
	if (d) {
		/* ENOENT: something else on the machine removed the name meanwhile. */
		int unlinked = rts_lockdomain_unlink(domain_name);
		CHECK_MSG(unlinked == 0 || unlinked == ENOENT, "unlink: %s", h_errname(unlinked));
		rts_lockdomain_close(d); /* EBUSY when the attacker left a record "waiting" */
	}
	char ts_path[96];
	snprintf(ts_path, sizeof(ts_path), "/%s", r->ts_name);
	shm_unlink(ts_path);
	munmap(a, sizeof(*a));
	munmap(r, sizeof(*r));
	munmap(ready, sizeof(int));
}

static void run_kind(enum kind kind)
{
	for (int p = 0; p < N_PATTERNS; p++)
		run_one(kind, (enum pattern)p);
}

static void test_fifo_mutex(void) { run_kind(K_FIFO_MUTEX); }
static void test_fifo_cond(void) { run_kind(K_FIFO_COND); }
static void test_pip_mutex(void) { run_kind(K_PIP_MUTEX); }
static void test_robust_pip(void) { run_kind(K_ROBUST_PIP); }
static void test_robust_none(void) { run_kind(K_ROBUST_NONE); }
static void test_shared_cond_pip(void) { run_kind(K_SHARED_COND_PIP); }
static void test_shared_cond_none(void) { run_kind(K_SHARED_COND_NONE); }
static void test_picv(void) { run_kind(K_PICV); }
static void test_litmus_ts(void) { run_kind(K_LITMUS_TS); }

/* ---- ownership: a second account ------------------------------------------ */

#define OTHER_USER_PREFIX "rtshostile"

static int run_command(const char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run fn as the other user in a child; its exit status (0: its checks passed). */
static int as_user(uid_t uid, gid_t gid, void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0)
			_exit(90);
		fn(arg);
		_exit(0);
	}
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void squat_domain(void *name)
{
	rts_lockdomain_t *d;
	if (rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0666, &d) != 0)
		_exit(91);
}

static void squat_empty(void *shm_name)
{
	int fd = shm_open(shm_name, O_RDWR | O_CREAT | O_EXCL, 0666);
	if (fd < 0 || fchmod(fd, 0666) != 0)
		_exit(92);
}

/* As the other user: its own release word works while root's name is squatted. */
static void user_release_word(void *unused)
{
	(void)unused;
	unsetenv("RTSCHED_LITMUS_TS_NAME");
	if (get_nr_ts_release_waiters() < 0)
		_exit(93);
	exit_litmus(); /* the last user removes it */
	char own[64];
	snprintf(own, sizeof(own), "/dev/shm/rtsched-litmus-ts.%u", (unsigned)getuid());
	if (access(own, F_OK) == 0)
		_exit(94);
}

/* As the other user: a root domain of mode 0666 is wider than 0600: refused. */
static void user_opens_wide_root_domain(void *name)
{
	rts_lockdomain_t *d;
	if (rts_lockdomain_open(name, 0, 0600, &d) != EACCES)
		_exit(95);
}

static void ownership_checks(uid_t uid, gid_t gid)
{
	char name[64], shm[96], why[RTS_SHM_WHY_MAX_TEST], uid_text[32];
	rts_lockdomain_t *d;
	snprintf(uid_text, sizeof(uid_text), "uid %u", (unsigned)uid);

	/* A valid 0666 domain of another user: refused at once, owner named. */
	snprintf(name, sizeof(name), "hostile-squat-%d", (int)getpid());
	CHECK_EQ(as_user(uid, gid, squat_domain, name), 0);
	CHECK_ERR(EACCES, rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0600, &d));
	CHECK_OK(rts_lockdomain_open_error(why, sizeof(why)));
	CHECK_MSG(strstr(why, uid_text) && strstr(why, "0666") && strstr(why, "choose another name"),
		  "the refusal names the owner, the mode and a way out: \"%s\"", why);
	CHECK_OK(rts_lockdomain_unlink(name));

	/* An empty file of the name: refused at once too (was EPROTO after 1.6 s). */
	snprintf(shm, sizeof(shm), "/rtsched-lockdomain.%s", name);
	CHECK_EQ(as_user(uid, gid, squat_empty, shm), 0);
	int64_t t0 = now_ms();
	CHECK_ERR(EACCES, rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0600, &d));
	H_LOG("refused in %lld ms", (long long)(now_ms() - t0));
	CHECK_OK(rts_lockdomain_unlink(name));

	/* root's own domain of mode 0666, opened by the other user asking 0600: wider. */
	CHECK_OK(rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0666, &d));
	CHECK_EQ(as_user(uid, gid, user_opens_wide_root_domain, name), 0);
	CHECK_OK(rts_lockdomain_close(d));
	CHECK_OK(rts_lockdomain_unlink(name));

	/* The LITMUS release word: root's name squatted by the other user. */
	unsetenv("RTSCHED_LITMUS_TS_NAME");
	char ts[64];
	snprintf(ts, sizeof(ts), "/rtsched-litmus-ts.%u", (unsigned)geteuid());
	shm_unlink(ts);
	CHECK_EQ(as_user(uid, gid, squat_empty, ts), 0);
	errno = 0;
	CHECK_EQ(get_nr_ts_release_waiters(), -1);
	CHECK_EQ(errno, EACCES);
	/* ... while the other user's own word works and is removed by its last user. */
	CHECK_EQ(as_user(uid, gid, user_release_word, NULL), 0);
	shm_unlink(ts);
}

static void test_ownership_second_account(void)
{
	if (geteuid() != 0)
		SKIP("needs root to create and remove a second account (useradd / userdel)");
	if (access("/usr/sbin/useradd", X_OK) != 0 || access("/usr/sbin/userdel", X_OK) != 0)
		SKIP("useradd / userdel not found in /usr/sbin");
	char user[32];
	snprintf(user, sizeof(user), OTHER_USER_PREFIX "%d", (int)getpid() % 100000);
	const char *add[] = { "/usr/sbin/useradd", "-M", "-r", "-s", "/usr/sbin/nologin", user, NULL };
	CHECK_MSG(run_command(add) == 0, "useradd %s failed", user);
	struct passwd *pw = getpwnam(user);
	uid_t uid = pw ? pw->pw_uid : 0;
	gid_t gid = pw ? pw->pw_gid : 0;
	/* The checks run in a child so that the account is removed whatever they find. */
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (!pw)
			FAIL("getpwnam(%s) found nothing after useradd", user);
		ownership_checks(uid, gid);
		_exit(0);
	}
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	const char *del[] = { "/usr/sbin/userdel", user, NULL };
	int del_ret = run_command(del);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ownership checks failed (status %#x)",
		  status);
	CHECK_MSG(del_ret == 0, "userdel %s failed", user);
}

/* Without a second account: a symbolic link and a widened own object are refused. */
static void test_ownership_same_user(void)
{
	char name[64], shm[96], target[128], why[RTS_SHM_WHY_MAX_TEST];
	rts_lockdomain_t *d;
	snprintf(name, sizeof(name), "hostile-link-%d", (int)getpid());
	snprintf(shm, sizeof(shm), "/dev/shm/rtsched-lockdomain.%s", name);
	snprintf(target, sizeof(target), "/dev/shm/hostile-target-%d", (int)getpid());
	int fd = open(target, O_RDWR | O_CREAT, 0600);
	CHECK_SYS(fd);
	close(fd);
	CHECK_SYS(symlink(target, shm));
	CHECK_ERR(ELOOP, rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0600, &d));
	unlink(shm);
	unlink(target);

	CHECK_OK(rts_lockdomain_open(name, RTS_LOCKDOMAIN_CREATE, 0660, &d));
	CHECK_OK(rts_lockdomain_close(d));
	CHECK_ERR(EACCES, rts_lockdomain_open(name, 0, 0600, &d)); /* 0660 is wider than 0600 */
	CHECK_OK(rts_lockdomain_open_error(why, sizeof(why)));
	CHECK_MSG(strstr(why, "0660") && strstr(why, "wider"), "names the mode: \"%s\"", why);
	CHECK_OK(rts_lockdomain_open(name, 0, 0660, &d)); /* asked for what it is */
	CHECK_OK(rts_lockdomain_close(d));
	CHECK_OK(rts_lockdomain_unlink(name));
}

/* ---- regressions of the crashes issue 33 found ------------------------------ */

/* A robust PIP mutex held while another process rewrote its list pointers: unlock wrote through them. */
static void test_robust_unlock_after_list_pointers_rewritten(void)
{
	struct arena *a = map_shared(sizeof(struct arena));
	canaries_set(a);
	mutex_init_kind(&a->obj[0].mutex, RTS_PROTO_PIP, true, NULL);
	CHECK_OK(rts_mutex_lock(&a->obj[0].mutex));
	CHECK(a->obj[0].mutex.s.robust_prev == NULL); /* no address of this thread shown */
	a->obj[0].mutex.s.robust_prev = (void *)&victim_global;
	a->obj[0].mutex.s.robust_next = (void *)(uintptr_t)0x10;
	CHECK_OK(rts_mutex_unlock(&a->obj[0].mutex));
	canaries_check(a, "robust unlock");
	/* A word that shows the caller's TID without a lock of it: EPERM, not an unlink. */
	H_STORE(&a->obj[1].mutex.s.word, 0);
	mutex_init_kind(&a->obj[1].mutex, RTS_PROTO_PIP, true, NULL);
	H_STORE(&a->obj[1].mutex.s.word, (uint32_t)h_gettid());
	CHECK_ERR(EPERM, rts_mutex_unlock(&a->obj[1].mutex));
}

/* A process-shared condvar whose mutex offset was rewritten: the signal read the mutex. */
static void test_shared_cond_signal_after_offset_rewritten(void)
{
	struct arena *a = map_shared(sizeof(struct arena));
	mutex_init_kind(&a->obj[0].mutex, RTS_PROTO_PIP, false, NULL);
	cond_init_shared(&a->obj[1].cond);
	CHECK_OK(rts_mutex_lock(&a->obj[0].mutex));
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 1);
	CHECK_ERR(ETIMEDOUT, rts_cond_timedwait(&a->obj[1].cond, &a->obj[0].mutex, &dl));
	CHECK_OK(rts_mutex_unlock(&a->obj[0].mutex));
	a->obj[1].cond.s.waiters = 1;
	a->obj[1].cond.s.mutex_offset = (int64_t)0x7fff00000000ll;
	CHECK_ERR(EINVAL, rts_cond_signal(&a->obj[1].cond));
	a->obj[1].cond.s.mutex_offset = 4; /* misaligned */
	CHECK_ERR(EINVAL, rts_cond_broadcast(&a->obj[1].cond));
}

/* A condvar whose PI-CV field holds a garbage pointer: the signal followed it. */
static void test_picv_signal_after_field_rewritten(void)
{
	struct arena *a = map_shared(sizeof(struct arena));
	cond_init_shared(&a->obj[1].cond);
	a->obj[1].cond.s.picv = (void *)&victim_global;
	CHECK_ERR(EINVAL, rts_cond_signal(&a->obj[1].cond));
	CHECK_ERR(EINVAL, rts_cond_broadcast(&a->obj[1].cond));
	CHECK_ERR(EINVAL, rts_cond_destroy(&a->obj[1].cond));
	/* A private condvar's flags and queue made up: refused, not followed. */
	CHECK_OK(rts_cond_init(&a->obj[2].cond, NULL));
	a->obj[2].cond.s.waiters = 3;
	a->obj[2].cond.s.queue = (void *)&victim_global;
	CHECK_ERR(EINVAL, rts_cond_signal(&a->obj[2].cond));
}

/* A non-robust PIP mutex whose word another process marked owner-died: taken, no EOWNERDEAD. */
static void test_non_robust_never_owner_dead(void)
{
	struct arena *a = map_shared(sizeof(struct arena));
	mutex_init_kind(&a->obj[0].mutex, RTS_PROTO_PIP, false, NULL);
	H_STORE(&a->obj[0].mutex.s.word, 0x40000000u); /* FUTEX_OWNER_DIED, no owner */
	struct timespec dl = h_deadline_ms(CLOCK_MONOTONIC, 100);
	CHECK_OK(rts_mutex_timedlock(&a->obj[0].mutex, &dl));
	CHECK_OK(rts_mutex_unlock(&a->obj[0].mutex));
}

/* An FMLP+ mutex whose held partition was rewritten while held: the unlock popped a NULL partition. */
static void test_ceiling_unlock_after_partition_rewritten(void)
{
	struct arena *a = map_shared(sizeof(struct arena));
	rts_mutexattr_t attr;
	CHECK_OK(rts_mutexattr_init(&attr));
	CHECK_OK(rts_mutexattr_setprotocol(&attr, RTS_PROTO_FMLP));
	CHECK_OK(rts_mutex_init(&a->obj[0].mutex, &attr));
	struct ceiling_mutex *cm = (struct ceiling_mutex *)(void *)&a->obj[0].mutex;
	int ret = rts_mutex_lock(&a->obj[0].mutex);
	if (ret == EINVAL || ret == EPERM)
		SKIP("FMLP+ lock refused here (%s)", h_errname(ret));
	CHECK_OK(ret);
	int held = cm->held_partition;
	cm->held_partition = RTS_LOCK_MAX_PARTITIONS + 7;
	CHECK_ERR(EINVAL, rts_mutex_unlock(&a->obj[0].mutex));
	cm->held_partition = held;
	CHECK_OK(rts_mutex_unlock(&a->obj[0].mutex));
}

static const struct h_case cases[] = {
	H_CASE(test_robust_unlock_after_list_pointers_rewritten, 10000),
	H_CASE(test_shared_cond_signal_after_offset_rewritten, 10000),
	H_CASE(test_picv_signal_after_field_rewritten, 10000),
	H_CASE(test_non_robust_never_owner_dead, 10000),
	H_CASE(test_ceiling_unlock_after_partition_rewritten, 10000),
	H_CASE(test_ownership_same_user, 10000),
	H_CASE(test_ownership_second_account, 60000),
	H_CASE(test_fifo_mutex, 120000),
	H_CASE(test_fifo_cond, 120000),
	H_CASE(test_pip_mutex, 120000),
	H_CASE(test_robust_pip, 120000),
	H_CASE(test_robust_none, 120000),
	H_CASE(test_shared_cond_pip, 120000),
	H_CASE(test_shared_cond_none, 120000),
	H_CASE(test_picv, 120000),
	H_CASE(test_litmus_ts, 120000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
