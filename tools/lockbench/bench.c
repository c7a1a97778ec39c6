/* SPDX-License-Identifier: MIT */
/*
 * The measurement core of rtsched-lockbench.
 *
 * Every benchmark thread is created with explicit attributes (SCHED_FIFO at
 * --priority, pinned to --cpu, small locked stack); the main thread keeps its
 * own policy and affinity, so nothing needs restoring afterwards. Every
 * measurement but the multiprocessor workload runs on ONE CPU, the other CPUs
 * stay free of real-time threads, and a real-time thread that has run for BREATHE_EVERY_MS sleeps
 * LB_BREATHE_MS outside any timed region, well inside the kernel's RT throttling.
 * Every phase thread is joined with a deadline (LB_PHASE_TIMEOUT_S): a lock that
 * never returns ends the run with an error instead of a hang.
 *
 * Uncontended: one thread; lock and unlock each timed alone (rdtscp + lfence
 * before and after), then lock+unlock pairs timed in batches; the subjects
 * are measured in UNC_ROUNDS interleaved rounds so that a slow spell of the
 * VM falls on all of them alike. Then the same loop, untimed, under a
 * per-thread perf counter of raw_syscalls:sys_enter.
 *
 * Contended (the uniprocessor schedule of seed 001): a low thread L (priority
 * P) and a high thread H (P+1) on one CPU. Each round:
 *   L: lock (uncontended); holding = 1; post H's semaphore
 *      -> H preempts L at once, reads holding, and its lock is contended: H
 *         blocks (PIP: L inherits P+1), L resumes
 *   L: holding = 0; timed unlock -> wakes H, which preempts L inside the
 *      unlock, takes the mutex, unlocks it, posts L's semaphore and waits
 *      for the next round; L's unlock returns.
 * H's lock sample runs from its request to its acquisition: the hand-over,
 * with L's remaining critical section empty. L's unlock sample has the time
 * H ran inside it (from H's acquisition to its next wait) removed, as seed 001
 * removes the preemption from preempted unlocks. Only rounds where H found
 * the mutex held count. With PRIO_PROTECT (ceiling P+1) L runs at H's
 * priority while it holds the mutex, so H never finds it held: no contended
 * samples, as in seed 001 (IPCP without nesting cannot be contended).
 *
 * Condition variable ping-pong: threads A and B, same priority, one CPU,
 * each holding the mutex except while waiting:
 *   A: turn = B; signal(cv_b); while (turn != A) wait(cv_a, m)
 *   B: while (turn != B) wait(cv_b, m); turn = A; signal(cv_a)
 * One sample is A's round trip: from one return of its wait to the next
 * (a signal and a wait each way). A's system calls are counted over the
 * first PINGPONG_COUNTED_ROUNDS measured rounds of each slice.
 *
 * The contended and condvar phases run in PHASE_SLICES slices, the subjects
 * interleaved, each slice with fresh threads and its own warm-up.
 *
 * The periodic task workload (workload.c; seed 001 Table I): per class
 * (uniprocessor: tasks on --cpu; multiprocessor: tasks on --cpu and one other
 * CPU, at low load on each) and subject, WL_SLICES timed runs with new random
 * task parameters, the subjects interleaved, then one run counting system
 * calls per operation.
 */
#include "bench.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "oncpu.h"
#include "subjects.h"
#include "syscount.h"
#include "threads.h"
#include "tsc.h"
#include "workload.h"

#define UNC_ROUNDS          5
#define PHASE_SLICES        5
#define CHUNK_WARMUP        256
#define BREATHE_EVERY_MS    20  /* 20 ms on, LB_BREATHE_MS (4) off: at most 84% of the CPU, under the 95% throttle */
#define PIECE_SAMPLES       4096 /* uncontended samples between two chances to pause */
#define GETPPID_CALLS       1000u
#define WL_SLICES           4    /* timed workload runs per subject and class */
#define WL_MIN_SLICE_MS     50
#define WL_MAX_COUNT_MS     250  /* the syscall-counting run */
#define MAX_COUNTED_PAIRS   10000u

/* Shared by the phases. */
struct env {
	const struct lb_options *opts;
	struct lb_results *r;
	const struct lb_syscount_probe *probe;
	int policy;
	uint64_t breathe_cycles;
	bool progress;
};

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

static void progress(const struct env *e, const char *phase, enum lb_subject s)
{
	if (e->progress)
		fprintf(stderr, "\rlockbench: %-12s %-30s", phase, lb_subject_label(s));
}

static void *probe_thread(void *arg)
{
	(void)arg;
	return NULL;
}

/* SCHED_FIFO if this process may use it, else SCHED_OTHER and why. */
static int choose_policy(const struct lb_options *o, char *note, size_t note_size)
{
	struct lb_thread *t;
	int ret = lb_thread_start(&t, probe_thread, NULL, SCHED_FIFO, o->priority + 1, o->cpu);
	if (ret == 0 && (ret = lb_thread_join_within(t)) == 0)
		return SCHED_FIFO;
	snprintf(note, note_size,
		 "SCHED_FIFO refused (%s): ran SCHED_OTHER; the contended schedule needs "
		 "priorities, so its figures are not comparable; PRIO_PROTECT skipped",
		 strerror(ret));
	return SCHED_OTHER;
}

/*
 * The locks of the one-CPU phases: every ceiling one above the benchmark
 * threads' priority, so that each lock of a ceiling protocol raises it (as
 * for any task below the ceiling), and the high thread of the hand-over is
 * at the ceiling.
 */
static struct lb_lock_params one_cpu_params(const struct lb_options *o)
{
	return (struct lb_lock_params){ .local_ceiling = o->priority + 1,
					.global_ceiling = o->priority + 1,
					.partition = o->cpu };
}

/* ---- machine ---- */

static void machine_info(struct lb_machine *m)
{
	snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "model name", 10) != 0)
				continue;
			char *colon = strchr(line, ':');
			if (!colon)
				continue;
			colon++;
			colon += strspn(colon, " \t");
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", colon);
			break;
		}
		fclose(f);
	}
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof(m->kernel), "%s %s %s", u.sysname, u.release, u.version);
	snprintf(m->glibc, sizeof(m->glibc), "%s", gnu_get_libc_version());
	m->ncpus = rts_ncpus();
}

/* ---- uncontended ---- */

struct unc_ctx {
	const struct env *e;
	const struct lb_syscount_probe *probe;
	struct lb_lock_params params;
	union lb_lock locks[LB_NR_MUTEX_SUBJECTS];
	bool active[LB_NR_MUTEX_SUBJECTS];
	uint64_t *lock_s[LB_NR_MUTEX_SUBJECTS], *unlock_s[LB_NR_MUTEX_SUBJECTS],
		*pair_s[LB_NR_MUTEX_SUBJECTS];
	uint64_t *timer_s;
	size_t n, npairs;
	int err;
	char msg[200];
};

static void count_syscalls(struct unc_ctx *c)
{
	struct lb_results *r = c->e->r;
	struct lb_syscall_check *sys = &r->sys;
	struct lb_syscount sc;
	snprintf(sys->note, sizeof(sys->note), "%s", c->probe->note);
	if (lb_syscount_open(&sc, c->probe, sys->reason, sizeof(sys->reason)) != 0)
		return;
	sys->available = true;
	sys->overhead = sc.overhead;

	/* The counter must see what a loop of known system calls makes. */
	sys->getppid_calls = GETPPID_CALLS;
	lb_syscount_start(&sc);
	for (unsigned i = 0; i < GETPPID_CALLS; i++)
		syscall(SYS_getppid);
	sys->getppid_counted = lb_syscount_stop(&sc);
	sys->self_check_ok = sys->getppid_counted == (int64_t)GETPPID_CALLS;

	size_t pairs = min_size(c->n, MAX_COUNTED_PAIRS);
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		if (!c->active[s])
			continue;
		const struct lb_mutex_ops *ops = lb_mutex_ops(s);
		lb_syscount_start(&sc);
		int ret = ops->loop(&c->locks[s], pairs);
		int64_t count = lb_syscount_stop(&sc);
		if (ret && !c->err) {
			c->err = ret;
			snprintf(c->msg, sizeof(c->msg), "%s: lock/unlock failed while counting",
				 lb_subject_label(s));
		}
		r->unc[s].syscalls_counted = true;
		r->unc[s].syscall_pairs = pairs;
		r->unc[s].syscalls = count;
	}
	lb_syscount_close(&sc);
}

static void *uncontended_main(void *arg)
{
	struct unc_ctx *c = arg;
	const struct lb_options *o = c->e->opts;
	struct lb_results *r = c->e->r;
	struct lb_breather b = { .every_cycles = c->e->breathe_cycles, .last = lb_tsc() };

	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		if (!c->active[s])
			continue;
		int ret = lb_mutex_ops(s)->init(&c->locks[s], &c->params);
		if (ret) {
			snprintf(r->skipped[s], sizeof(r->skipped[s]), "init failed: %s", strerror(ret));
			c->active[s] = false;
		}
	}

	/* The cost of the timer itself, included in every lock and unlock sample. */
	for (size_t i = 0; i < c->n; i++) {
		uint64_t t0 = lb_tsc();
		c->timer_s[i] = lb_tsc() - t0;
		lb_drain_stores(); /* as in the lock loops */
	}

	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		if (!c->active[s])
			continue;
		if ((c->err = lb_mutex_ops(s)->loop(&c->locks[s], o->warmup)) != 0) {
			snprintf(c->msg, sizeof(c->msg), "%s: warm-up lock/unlock failed: %s",
				 lb_subject_label(s), strerror(c->err));
			return NULL;
		}
	}

	for (int round = 0; round < UNC_ROUNDS; round++) {
		size_t from = c->n * round / UNC_ROUNDS, to = c->n * (round + 1) / UNC_ROUNDS;
		size_t pfrom = c->npairs * round / UNC_ROUNDS,
		       pto = c->npairs * (round + 1) / UNC_ROUNDS;
		for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
			if (!c->active[s])
				continue;
			progress(c->e, "uncontended", s);
			const struct lb_mutex_ops *ops = lb_mutex_ops(s);
			/* Another subject ran last: warm this one's code and data again. */
			int ret = ops->loop(&c->locks[s], CHUNK_WARMUP);
			for (size_t i = from; i < to; i += PIECE_SAMPLES) {
				size_t k = min_size(PIECE_SAMPLES, to - i);
				ret |= ops->split(&c->locks[s], c->lock_s[s] + i, c->unlock_s[s] + i, k);
				if (lb_breathe(&b))
					ret |= ops->loop(&c->locks[s], CHUNK_WARMUP);
			}
			for (size_t i = pfrom; i < pto; i += PIECE_SAMPLES / LB_PAIR_BATCH) {
				size_t k = min_size(PIECE_SAMPLES / LB_PAIR_BATCH, pto - i);
				ret |= ops->pairs(&c->locks[s], c->pair_s[s] + i, k);
				if (lb_breathe(&b))
					ret |= ops->loop(&c->locks[s], CHUNK_WARMUP);
			}
			if (ret) {
				c->err = EIO;
				snprintf(c->msg, sizeof(c->msg), "%s: a lock or unlock failed",
					 lb_subject_label(s));
				return NULL;
			}
		}
	}

	progress(c->e, "syscalls", LB_RTS_NONE);
	count_syscalls(c);

	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++)
		if (c->active[s])
			lb_mutex_ops(s)->destroy(&c->locks[s]);
	return NULL;
}

static int run_uncontended(const struct env *e, char *err, size_t err_size)
{
	struct lb_results *r = e->r;
	struct unc_ctx *c = aligned_alloc(64, (sizeof(*c) + 63) / 64 * 64);
	if (!c)
		return lb_fail(err, err_size, "out of memory");
	memset(c, 0, sizeof(*c));
	c->e = e;
	c->probe = e->probe;
	c->params = one_cpu_params(e->opts);
	c->n = e->opts->iterations;
	c->npairs = max_size(c->n / LB_PAIR_BATCH, LB_MIN_ITERATIONS);
	int ret = LB_EXIT_OK;
	bool oom = !(c->timer_s = lb_samples_alloc(c->n));
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		if (!e->opts->selected[s] || r->skipped[s][0])
			continue;
		c->active[s] = true;
		oom |= !(c->lock_s[s] = lb_samples_alloc(c->n));
		oom |= !(c->unlock_s[s] = lb_samples_alloc(c->n));
		oom |= !(c->pair_s[s] = lb_samples_alloc(c->npairs));
	}
	struct lb_thread *t;
	int tret;
	if (oom) {
		ret = lb_fail(err, err_size, "out of memory for %zu samples", c->n);
	} else if ((tret = lb_thread_start(&t, uncontended_main, c, e->policy, e->opts->priority,
					 e->opts->cpu)) != 0) {
		ret = lb_fail(err, err_size, "cannot start the benchmark thread on CPU %d: %s",
			   e->opts->cpu, strerror(tret));
	} else if ((tret = lb_thread_join_within(t)) != 0) {
		return lb_fail(err, err_size, "the uncontended phase did not finish within %d s (%s)",
			    LB_PHASE_TIMEOUT_S, strerror(tret)); /* the thread still uses c */
	} else if (c->err) {
		ret = lb_fail(err, err_size, "uncontended: %s", c->msg);
	} else {
		r->timer = lb_dist_of(c->timer_s, c->n);
		for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
			if (!c->active[s])
				continue;
			struct lb_uncontended *u = &r->unc[s];
			u->measured = true;
			u->lock = lb_dist_of(c->lock_s[s], c->n);
			u->unlock = lb_dist_of(c->unlock_s[s], c->n);
			u->pair = lb_dist_scaled(lb_dist_of(c->pair_s[s], c->npairs),
						 1.0 / LB_PAIR_BATCH);
		}
	}
	free(c->timer_s);
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		free(c->lock_s[s]);
		free(c->unlock_s[s]);
		free(c->pair_s[s]);
	}
	free(c);
	return ret;
}

/* ---- contended ---- */

/* Samples of one subject, gathered over the slices of a phase. */
struct acc {
	uint64_t *a, *b;
	size_t n;
};

static int acc_alloc(struct acc *acc, size_t cap)
{
	acc->n = 0;
	acc->a = lb_samples_alloc(cap);
	acc->b = lb_samples_alloc(cap);
	return acc->a && acc->b ? 0 : ENOMEM;
}

static void acc_free(struct acc *acc)
{
	free(acc->a);
	free(acc->b);
}

struct con_ctx {
	const struct env *e;
	const struct lb_mutex_ops *ops;
	union lb_lock lock;
	sem_t go;   /* L -> H: try to lock now (or stop) */
	sem_t back; /* H -> L: round done */
	_Atomic int holding;
	atomic_bool stop;
	size_t total; /* warm-up + measured rounds */
	uint64_t *h_lock;
	bool *h_contended;
	uint64_t *l_unlock;
	uint64_t h_acquired, h_done; /* H's last run, written before posting back */
	int h_err, l_err;
};

static void *contended_high(void *arg)
{
	struct con_ctx *c = arg;
	for (size_t i = 0;; i++) {
		while (sem_wait(&c->go) != 0)
			;
		if (atomic_load(&c->stop))
			break;
		int held = atomic_load_explicit(&c->holding, memory_order_relaxed);
		uint64_t t0 = lb_tsc();
		int ret = c->ops->lock(&c->lock);
		uint64_t t1 = lb_tsc();
		ret |= c->ops->unlock(&c->lock);
		if (ret && !c->h_err)
			c->h_err = ret;
		if (i < c->total) {
			c->h_lock[i] = t1 - t0;
			c->h_contended[i] = held;
		}
		c->h_acquired = t1;
		c->h_done = lb_tsc();
		sem_post(&c->back);
	}
	return NULL;
}

static void *contended_low(void *arg)
{
	struct con_ctx *c = arg;
	struct lb_breather b = { .every_cycles = c->e->breathe_cycles, .last = lb_tsc() };
	for (size_t i = 0; i < c->total && !c->h_err && !c->l_err; i++) {
		lb_breathe(&b); /* H waits for go: the CPU may idle */
		int ret = c->ops->lock(&c->lock);
		atomic_store_explicit(&c->holding, 1, memory_order_relaxed);
		sem_post(&c->go); /* FIFO: H preempts here and blocks on the mutex */
		atomic_store_explicit(&c->holding, 0, memory_order_relaxed);
		uint64_t ta = lb_tsc();
		ret |= c->ops->unlock(&c->lock); /* H runs inside, unless it was not blocked */
		uint64_t tb = lb_tsc();
		while (sem_wait(&c->back) != 0)
			;
		uint64_t spent = tb - ta;
		if (c->h_acquired > ta && c->h_acquired < tb) {
			uint64_t h_ran = c->h_done - c->h_acquired;
			spent = spent > h_ran ? spent - h_ran : 0;
		}
		c->l_unlock[i] = spent;
		if (ret)
			c->l_err = ret;
	}
	atomic_store(&c->stop, true);
	sem_post(&c->go);
	return NULL;
}

/* One slice of rounds for subject s; the contended ones are appended to acc. */
static int run_contended(const struct env *e, enum lb_subject s, size_t rounds, struct acc *acc,
			 char *err, size_t err_size)
{
	const struct lb_options *o = e->opts;
	size_t warm = max_size(rounds / 10, 10);
	struct con_ctx *c = aligned_alloc(64, (sizeof(*c) + 63) / 64 * 64);
	if (!c)
		return lb_fail(err, err_size, "out of memory");
	memset(c, 0, sizeof(*c));
	c->e = e;
	c->ops = lb_mutex_ops(s);
	c->total = warm + rounds;
	c->h_lock = lb_samples_alloc(c->total);
	c->l_unlock = lb_samples_alloc(c->total);
	c->h_contended = calloc(c->total, sizeof(bool));
	int ret = LB_EXIT_OK, tret;
	sem_init(&c->go, 0, 0);
	sem_init(&c->back, 0, 0);
	struct lb_thread *high, *low;
	if (!c->h_lock || !c->l_unlock || !c->h_contended) {
		ret = lb_fail(err, err_size, "out of memory for %zu rounds", c->total);
		goto out;
	}
	struct lb_lock_params params = one_cpu_params(o);
	if ((tret = c->ops->init(&c->lock, &params)) != 0) {
		snprintf(e->r->skipped[s], sizeof(e->r->skipped[s]), "init failed: %s",
			 strerror(tret));
		goto out;
	}
	progress(e, "contended", s);
	if ((tret = lb_thread_start(&high, contended_high, c, e->policy, o->priority + 1, o->cpu))) {
		ret = lb_fail(err, err_size, "cannot start a thread on CPU %d: %s", o->cpu, strerror(tret));
		goto out_destroy;
	}
	if ((tret = lb_thread_start(&low, contended_low, c, e->policy, o->priority, o->cpu))) {
		atomic_store(&c->stop, true);
		sem_post(&c->go);
		lb_thread_join_within(high);
		ret = lb_fail(err, err_size, "cannot start a thread on CPU %d: %s", o->cpu, strerror(tret));
		goto out_destroy;
	}
	if (lb_thread_join_within(low) != 0 || lb_thread_join_within(high) != 0)
		return lb_fail(err, err_size, "contended %s: the threads did not finish within %d s",
			    lb_subject_label(s), LB_PHASE_TIMEOUT_S); /* they still use c */
	if (c->h_err || c->l_err) {
		ret = lb_fail(err, err_size, "contended %s: lock/unlock failed: %s",
			   lb_subject_label(s), strerror(c->h_err ? c->h_err : c->l_err));
		goto out_destroy;
	}
	/* Keep the measured rounds where H found the mutex held. */
	for (size_t i = warm; i < c->total; i++) {
		if (!c->h_contended[i])
			continue;
		acc->a[acc->n] = c->h_lock[i];
		acc->b[acc->n] = c->l_unlock[i];
		acc->n++;
	}
	e->r->con[s].rounds += rounds;
out_destroy:
	c->ops->destroy(&c->lock);
out:
	sem_destroy(&c->go);
	sem_destroy(&c->back);
	free(c->h_lock);
	free(c->l_unlock);
	free(c->h_contended);
	free(c);
	return ret;
}

/* ---- condition variable ping-pong ---- */

#define PINGPONG_COUNTED_ROUNDS 200 /* per slice: short enough to need no pause */

struct pp_ctx {
	const struct env *e;
	const struct lb_cond_ops *ops;
	const struct lb_mutex_ops *mops;
	union lb_lock m;
	union lb_cond cv_a, cv_b;
	/*
	 * Written only with m held. Atomics (relaxed: plain loads and stores on
	 * x86) only because ThreadSanitizer cannot see a mutex handed over by the
	 * kernel (requeue-PI, FUTEX_UNLOCK_PI) and would report a race.
	 */
	_Atomic int turn; /* TURN_A or TURN_B */
	atomic_bool stop;
	size_t warm, total;
	uint64_t *round;
	int a_err, b_err;
	/* A's system calls over rounds [warm, warm + counted_rounds) */
	size_t counted_rounds;
	int64_t syscalls;
};

enum { TURN_A, TURN_B };

static int get_turn(struct pp_ctx *c)
{
	return atomic_load_explicit(&c->turn, memory_order_relaxed);
}

static void set_turn(struct pp_ctx *c, int turn)
{
	atomic_store_explicit(&c->turn, turn, memory_order_relaxed);
}

static bool stopping(struct pp_ctx *c)
{
	return atomic_load_explicit(&c->stop, memory_order_relaxed);
}

static void stop(struct pp_ctx *c)
{
	atomic_store_explicit(&c->stop, true, memory_order_relaxed);
}

static void *pingpong_a(void *arg)
{
	struct pp_ctx *c = arg;
	struct lb_breather b = { .every_cycles = c->e->breathe_cycles, .last = lb_tsc() };
	struct lb_syscount sc = { .fd = -1 };
	char why[200];
	size_t count_from = c->warm, count_to = c->warm;
	if (c->e->probe->available && lb_syscount_open(&sc, c->e->probe, why, sizeof(why)) == 0)
		count_to = c->warm + min_size(c->total - c->warm, PINGPONG_COUNTED_ROUNDS);
	int ret = c->mops->lock(&c->m);
	uint64_t prev = lb_tsc();
	for (size_t i = 0; i < c->total && ret == 0; i++) {
		if (i == count_from && count_to > count_from) {
			b.last = lb_tsc();
			lb_syscount_start(&sc);
		}
		set_turn(c, TURN_B);
		ret = c->ops->signal(&c->cv_b);
		while (ret == 0 && get_turn(c) != TURN_A)
			ret = c->ops->wait(&c->cv_a, &c->m);
		uint64_t now = lb_tsc();
		c->round[i] = now - prev;
		prev = now;
		if (count_to > count_from && i + 1 == count_to) {
			c->syscalls = lb_syscount_stop(&sc);
			c->counted_rounds = count_to - count_from;
		}
		bool counting = i + 1 >= count_from && i + 1 < count_to;
		if (!counting && now - b.last >= b.every_cycles) {
			/* B waits for its turn: pause without the mutex; the
			 * next round starts after the pause. */
			ret |= c->mops->unlock(&c->m);
			lb_breathe(&b);
			ret |= c->mops->lock(&c->m);
			prev = lb_tsc();
		}
	}
	c->a_err = ret;
	stop(c);
	set_turn(c, TURN_B);
	c->ops->signal(&c->cv_b);
	c->mops->unlock(&c->m);
	lb_syscount_close(&sc);
	return NULL;
}

static void *pingpong_b(void *arg)
{
	struct pp_ctx *c = arg;
	int ret = c->mops->lock(&c->m);
	while (ret == 0) {
		while (ret == 0 && get_turn(c) != TURN_B && !stopping(c))
			ret = c->ops->wait(&c->cv_b, &c->m);
		if (stopping(c) || ret)
			break;
		set_turn(c, TURN_A);
		ret = c->ops->signal(&c->cv_a);
	}
	c->b_err = ret;
	if (ret == 0)
		c->mops->unlock(&c->m);
	return NULL;
}

/* One slice of rounds for condvar subject s, appended to acc->a. */
static int run_pingpong(const struct env *e, enum lb_subject s, size_t rounds, struct acc *acc,
			char *err, size_t err_size)
{
	const struct lb_options *o = e->opts;
	struct pp_ctx *c = aligned_alloc(64, (sizeof(*c) + 63) / 64 * 64);
	if (!c)
		return lb_fail(err, err_size, "out of memory");
	memset(c, 0, sizeof(*c));
	c->e = e;
	c->ops = lb_cond_ops(s);
	c->mops = lb_mutex_ops(c->ops->mutex);
	c->warm = max_size(rounds / 10, 10);
	c->total = c->warm + rounds;
	set_turn(c, TURN_A);
	c->round = lb_samples_alloc(c->total);
	int ret = LB_EXIT_OK, tret;
	struct lb_thread *ta, *tb;
	if (!c->round) {
		ret = lb_fail(err, err_size, "out of memory for %zu rounds", c->total);
		goto out;
	}
	struct lb_lock_params params = one_cpu_params(o);
	if ((tret = c->mops->init(&c->m, &params)) != 0 || (tret = c->ops->init(&c->cv_a)) != 0 ||
	    (tret = c->ops->init(&c->cv_b)) != 0) {
		snprintf(e->r->skipped[s], sizeof(e->r->skipped[s]), "init failed: %s",
			 strerror(tret));
		goto out;
	}
	progress(e, "condvar", s);
	if ((tret = lb_thread_start(&tb, pingpong_b, c, e->policy, o->priority, o->cpu))) {
		ret = lb_fail(err, err_size, "cannot start a thread on CPU %d: %s", o->cpu, strerror(tret));
		goto out_destroy;
	}
	if ((tret = lb_thread_start(&ta, pingpong_a, c, e->policy, o->priority, o->cpu))) {
		c->mops->lock(&c->m);
		stop(c);
		c->ops->signal(&c->cv_b);
		c->mops->unlock(&c->m);
		lb_thread_join_within(tb);
		ret = lb_fail(err, err_size, "cannot start a thread on CPU %d: %s", o->cpu, strerror(tret));
		goto out_destroy;
	}
	if (lb_thread_join_within(ta) != 0 || lb_thread_join_within(tb) != 0)
		return lb_fail(err, err_size, "condvar %s: the threads did not finish within %d s",
			    lb_subject_label(s), LB_PHASE_TIMEOUT_S); /* they still use c */
	if (c->a_err || c->b_err) {
		ret = lb_fail(err, err_size, "condvar %s: a lock, wait or signal failed: %s",
			   lb_subject_label(s), strerror(c->a_err ? c->a_err : c->b_err));
		goto out_destroy;
	}
	for (size_t i = c->warm; i < c->total; i++)
		acc->a[acc->n++] = c->round[i];
	struct lb_condvar *cv = &e->r->cv[s];
	if (c->counted_rounds) {
		cv->syscalls_counted = true;
		cv->syscall_rounds += c->counted_rounds;
		cv->syscalls += c->syscalls;
	}
out_destroy:
	c->ops->destroy(&c->cv_a);
	c->ops->destroy(&c->cv_b);
	c->mops->destroy(&c->m);
out:
	free(c->round);
	free(c);
	return ret;
}

/*
 * The contended and condvar phases, in PHASE_SLICES interleaved slices of
 * rounds (a fresh pair of threads per slice and subject), so that a slow
 * spell of the VM falls on every subject alike.
 */
/* The condvar subjects and the mutexes of the hand-over, if selected and not skipped. */
static bool in_sliced_phase(const struct env *e, enum lb_subject s)
{
	if (!e->opts->selected[s] || e->r->skipped[s][0])
		return false;
	return lb_subject_is_cond(s) || lb_mutex_ops(s)->handover;
}

static int run_sliced(const struct env *e, char *err, size_t err_size)
{
	const struct lb_options *o = e->opts;
	struct lb_results *r = e->r;
	struct acc acc[LB_NR_SUBJECTS];
	memset(acc, 0, sizeof(acc));
	int ret = LB_EXIT_OK;
	for (int s = 0; s < LB_NR_SUBJECTS && ret == LB_EXIT_OK; s++)
		if (in_sliced_phase(e, s) && acc_alloc(&acc[s], o->rounds) != 0)
			ret = lb_fail(err, err_size, "out of memory for %zu rounds", o->rounds);
	for (int slice = 0; slice < PHASE_SLICES && ret == LB_EXIT_OK; slice++) {
		size_t rounds = o->rounds * (slice + 1) / PHASE_SLICES - o->rounds * slice / PHASE_SLICES;
		for (int s = 0; s < LB_NR_SUBJECTS && ret == LB_EXIT_OK; s++) {
			if (!in_sliced_phase(e, s))
				continue;
			if (lb_subject_is_cond(s))
				ret = run_pingpong(e, s, rounds, &acc[s], err, err_size);
			else
				ret = run_contended(e, s, rounds, &acc[s], err, err_size);
		}
	}
	for (int s = 0; s < LB_NR_SUBJECTS && ret == LB_EXIT_OK; s++) {
		if (!in_sliced_phase(e, s))
			continue;
		if (lb_subject_is_cond(s)) {
			r->cv[s].measured = true;
			r->cv[s].round = lb_dist_of(acc[s].a, acc[s].n);
		} else {
			r->con[s].measured = true;
			r->con[s].contended = acc[s].n;
			r->con[s].lock = lb_dist_of(acc[s].a, acc[s].n);
			r->con[s].unlock = lb_dist_of(acc[s].b, acc[s].n);
		}
	}
	for (int s = 0; s < LB_NR_SUBJECTS; s++)
		acc_free(&acc[s]);
	return ret;
}

/* ---- the periodic task workload ---- */

static bool in_workload(const struct env *e, enum lb_subject s, enum lb_wl_class cls)
{
	unsigned bit = cls == LB_WL_UNIPROCESSOR ? LB_IN_UNIPROCESSOR : LB_IN_MULTIPROCESSOR;
	return !lb_subject_is_cond(s) && e->opts->selected[s] && !e->r->skipped[s][0] &&
	       (lb_mutex_ops(s)->classes & bit);
}

/* The second CPU of the multiprocessor class: the lowest allowed one but --cpu; -1 if none. */
static int second_cpu(int cpu)
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != cpu && CPU_ISSET(c, &allowed))
			return c;
	return -1;
}

/* Which classes can run here; the reasons of those that cannot in wl->cls[].skipped. */
static void workload_plan(const struct env *e)
{
	struct lb_workload *wl = &e->r->wl;
	const struct lb_options *o = e->opts;
	char why[200] = "";
	struct lb_oncpu probe;
	if (o->workload_ms == 0)
		snprintf(why, sizeof(why), "--workload-ms 0");
	else if (e->policy != SCHED_FIFO)
		snprintf(why, sizeof(why), "the workload needs SCHED_FIFO (see policy_note)");
	else if (lb_oncpu_open(&probe, why, sizeof(why)) == 0)
		lb_oncpu_close(&probe);
	wl->cpus[0] = o->cpu;
	wl->cpus[1] = second_cpu(o->cpu);
	for (int cls = 0; cls < LB_NR_WL_CLASSES; cls++) {
		struct lb_workload_class *wc = &wl->cls[cls];
		bool any = false;
		for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++)
			any |= in_workload(e, s, cls);
		if (why[0])
			snprintf(wc->skipped, sizeof(wc->skipped), "%s", why);
		else if (!any)
			snprintf(wc->skipped, sizeof(wc->skipped), "no subject of this class selected");
		else if (cls == LB_WL_MULTIPROCESSOR && wl->cpus[1] < 0)
			snprintf(wc->skipped, sizeof(wc->skipped),
				 "needs a second CPU in this process's affinity mask");
		else
			wc->run = true;
	}
}

/*
 * WL_SLICES timed runs per class and subject, the subjects interleaved, each
 * slice with a new random task set (the same for every subject); then one
 * shorter run per class and subject counting system calls.
 */
static int run_workload(const struct env *e, char *err, size_t err_size)
{
	const struct lb_options *o = e->opts;
	struct lb_results *r = e->r;
	struct lb_workload *wl = &r->wl;
	workload_plan(e);
	wl->slices = o->workload_ms / WL_SLICES >= WL_MIN_SLICE_MS ? WL_SLICES : 1;
	wl->slice_ms = o->workload_ms / wl->slices;
	wl->count_ms = wl->slice_ms < WL_MAX_COUNT_MS ? wl->slice_ms : WL_MAX_COUNT_MS;
	struct lb_wl_env env = { .policy = e->policy, .tsc_hz = r->machine.tsc_hz, .probe = e->probe };
	/* Room for every priority of the task set and the global ceiling above it. */
	int base = o->priority < 98 - LB_WL_MAX_TASKS ? o->priority : 98 - LB_WL_MAX_TASKS;

	struct lb_wl_acc acc[LB_NR_WL_CLASSES][LB_NR_MUTEX_SUBJECTS];
	memset(acc, 0, sizeof(acc));
	int ret = LB_EXIT_OK;
	size_t cap = lb_wl_max_jobs(o->workload_ms);
	for (int cls = 0; cls < LB_NR_WL_CLASSES && ret == LB_EXIT_OK; cls++)
		for (int s = 0; s < LB_NR_MUTEX_SUBJECTS && ret == LB_EXIT_OK; s++)
			if (wl->cls[cls].run && in_workload(e, s, cls) &&
			    lb_wl_acc_alloc(&acc[cls][s], cap) != 0)
				ret = lb_fail(err, err_size, "out of memory for the workload's samples");

	for (unsigned slice = 0; slice <= wl->slices && ret == LB_EXIT_OK; slice++) {
		bool counting = slice == wl->slices;
		if (counting && !e->probe->available)
			break;
		for (int cls = 0; cls < LB_NR_WL_CLASSES && ret == LB_EXIT_OK; cls++) {
			struct lb_workload_class *wc = &wl->cls[cls];
			if (!wc->run)
				continue;
			struct lb_wl_taskset ts;
			lb_wl_taskset_make(cls, wl->cpus, base, o->seed + (counting ? 0 : slice), &ts);
			if (slice == 0)
				wc->first = ts;
			for (int s = 0; s < LB_NR_MUTEX_SUBJECTS && ret == LB_EXIT_OK; s++) {
				if (!in_workload(e, s, cls))
					continue;
				progress(e, cls == LB_WL_UNIPROCESSOR ? "workload/1" : "workload/2", s);
				ret = lb_wl_run(&env, s, &ts, counting ? wl->count_ms : wl->slice_ms,
						counting, &acc[cls][s], r->skipped[s],
						sizeof(r->skipped[s]), err, err_size);
			}
		}
	}
	for (int cls = 0; cls < LB_NR_WL_CLASSES; cls++)
		for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
			if (ret == LB_EXIT_OK && wl->cls[cls].run && in_workload(e, s, cls))
				lb_wl_acc_summarise(&acc[cls][s], &wl->cls[cls].subject[s]);
			lb_wl_acc_free(&acc[cls][s]);
		}
	return ret;
}

/* ---- the run ---- */

int lb_run(const struct lb_options *opts, struct lb_results *r, char *err, size_t err_size)
{
	memset(r, 0, sizeof(*r));
	r->opts = *opts;
	machine_info(&r->machine);

	const char *why;
	if (!lb_tsc_usable(&why))
		return lb_fail(err, err_size, "cannot time with the TSC: %s", why);

	if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
		r->mlocked = true;
	} else {
		snprintf(r->mlock_note, sizeof(r->mlock_note),
			 "mlockall failed (%s): page faults may show in the maxima", strerror(errno));
	}

	r->machine.calibration_ms = opts->quick ? 50 : 250;
	r->machine.tsc_hz = lb_tsc_calibrate_hz(r->machine.calibration_ms);

	struct env e = {
		.opts = opts,
		.r = r,
		.breathe_cycles = (uint64_t)(r->machine.tsc_hz * BREATHE_EVERY_MS / 1000.0),
		.progress = isatty(STDERR_FILENO),
	};
	e.policy = choose_policy(opts, r->policy_note, sizeof(r->policy_note));
	r->policy = e.policy;
	if (e.policy != SCHED_FIFO && opts->selected[LB_GLIBC_PROTECT])
		snprintf(r->skipped[LB_GLIBC_PROTECT], sizeof(r->skipped[0]),
			 "PRIO_PROTECT needs SCHED_FIFO (its ceiling is a real-time priority)");

	struct lb_syscount_probe probe;
	lb_syscount_probe(&probe);
	e.probe = &probe;

	bool any_mutex = false;
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++)
		any_mutex |= opts->selected[s] && !r->skipped[s][0];
	int ret = LB_EXIT_OK;
	if (any_mutex)
		ret = run_uncontended(&e, err, err_size);
	else
		snprintf(r->sys.reason, sizeof(r->sys.reason), "no mutex subject selected");
	if (ret == LB_EXIT_OK)
		ret = run_sliced(&e, err, err_size);
	if (ret == LB_EXIT_OK)
		ret = run_workload(&e, err, err_size);
	if (e.progress)
		fprintf(stderr, "\r%60s\r", "");
	return ret;
}

/* ---- ratios ---- */

enum ratio_metric { UNC_PAIR, CON_LOCK, CON_UNLOCK, COND_ROUND };

static const struct {
	const char *key;
	const char *what;
	enum ratio_metric metric;
	enum lb_subject num, den;
	double target_max;
} ratio_table[] = {
	{ "uncontended_pair_rts-pip_vs_glibc-inherit", "uncontended lock+unlock, rts PIP / glibc PRIO_INHERIT",
	  UNC_PAIR, LB_RTS_PIP, LB_GLIBC_INHERIT, 1.2 },
	{ "uncontended_pair_rts-pip_vs_glibc-none", "uncontended lock+unlock, rts PIP / glibc PRIO_NONE",
	  UNC_PAIR, LB_RTS_PIP, LB_GLIBC_NONE, 0 },
	{ "uncontended_pair_rts-pip_vs_glibc-protect", "uncontended lock+unlock, rts PIP / glibc PRIO_PROTECT",
	  UNC_PAIR, LB_RTS_PIP, LB_GLIBC_PROTECT, 0 },
	{ "uncontended_pair_rts-none_vs_glibc-none", "uncontended lock+unlock, rts NONE / glibc PRIO_NONE",
	  UNC_PAIR, LB_RTS_NONE, LB_GLIBC_NONE, 0 },
	/* Issue 17's target for seed 000's FIFO mutex. */
	{ "uncontended_pair_rts-fifo_vs_glibc-none", "uncontended lock+unlock, rts FIFO / glibc PRIO_NONE",
	  UNC_PAIR, LB_RTS_FIFO, LB_GLIBC_NONE, 1.2 },
	/* The targets for the ceiling protocols' deferred forms. */
#define DEFERRED_TARGETS(name, label, subject)                                                          \
	{ "uncontended_pair_" name "_vs_glibc-none", "uncontended lock+unlock, " label " / glibc PRIO_NONE", \
	  UNC_PAIR, subject, LB_GLIBC_NONE, 1.5 },                                                          \
	{ "uncontended_pair_" name "_vs_glibc-protect",                                                    \
	  "uncontended lock+unlock, " label " / glibc PRIO_PROTECT", UNC_PAIR,                                \
	  subject, LB_GLIBC_PROTECT, 0.1 }
	DEFERRED_TARGETS("rts-pcp", "rts PCP", LB_RTS_PCP),
	DEFERRED_TARGETS("rts-srp", "rts SRP", LB_RTS_SRP),
	DEFERRED_TARGETS("rts-ipcp", "rts IPCP", LB_RTS_IPCP),
	DEFERRED_TARGETS("rts-mpcp", "rts MPCP", LB_RTS_MPCP),
	DEFERRED_TARGETS("rts-fmlp", "rts FMLP+", LB_RTS_FMLP),
#undef DEFERRED_TARGETS
	{ "contended_lock_rts-pip_vs_glibc-inherit", "contended lock, rts PIP / glibc PRIO_INHERIT",
	  CON_LOCK, LB_RTS_PIP, LB_GLIBC_INHERIT, 0 },
	{ "contended_unlock_rts-pip_vs_glibc-inherit", "contended unlock, rts PIP / glibc PRIO_INHERIT",
	  CON_UNLOCK, LB_RTS_PIP, LB_GLIBC_INHERIT, 0 },
	{ "condvar_round_cond-rts-pip_vs_cond-glibc-none", "condvar round trip, rts_cond+PIP / pthread_cond+PRIO_NONE",
	  COND_ROUND, LB_COND_RTS_PIP, LB_COND_GLIBC_NONE, 1.5 },
	{ "condvar_round_cond-rts-none_vs_cond-glibc-none", "condvar round trip, rts_cond+NONE / pthread_cond+PRIO_NONE",
	  COND_ROUND, LB_COND_RTS_NONE, LB_COND_GLIBC_NONE, 0 },
	{ "condvar_round_cond-rts-fifo_vs_cond-glibc-none", "condvar round trip, rts_cond+FIFO / pthread_cond+PRIO_NONE",
	  COND_ROUND, LB_COND_RTS_FIFO, LB_COND_GLIBC_NONE, 0 },
	{ "condvar_round_cond-glibc-inherit_vs_cond-glibc-none", "condvar round trip, pthread_cond+PRIO_INHERIT / pthread_cond+PRIO_NONE",
	  COND_ROUND, LB_COND_GLIBC_INHERIT, LB_COND_GLIBC_NONE, 0 },
};

_Static_assert(sizeof(ratio_table) / sizeof(ratio_table[0]) <= LB_MAX_RATIOS, "LB_MAX_RATIOS");

/* The average of a metric for subject s, or a negative number if not measured. */
static double metric_avg(const struct lb_results *r, enum ratio_metric m, enum lb_subject s)
{
	const struct lb_dist *d;
	switch (m) {
	case UNC_PAIR:
		d = r->unc[s].measured ? &r->unc[s].pair : NULL;
		break;
	case CON_LOCK:
		d = r->con[s].measured ? &r->con[s].lock : NULL;
		break;
	case CON_UNLOCK:
		d = r->con[s].measured ? &r->con[s].unlock : NULL;
		break;
	default:
		d = r->cv[s].measured ? &r->cv[s].round : NULL;
		break;
	}
	return d && d->n ? d->avg : -1;
}

size_t lb_syscall_targets(const struct lb_results *r, struct lb_syscall_target out[LB_MAX_RATIOS])
{
	size_t n = 0;
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		/* the deferred ceiling forms and the FIFO mutex promise no system call */
		if (!(lb_mutex_ops(s)->deferred || s == LB_RTS_FIFO) || !r->opts.selected[s])
			continue;
		const struct lb_uncontended *u = &r->unc[s];
		struct lb_syscall_target *q = &out[n++];
		q->subject = s;
		q->available = u->syscalls_counted;
		q->per_pair = u->syscalls_counted ? (double)u->syscalls / (double)u->syscall_pairs : 0;
		q->met = u->syscalls_counted && u->syscalls == 0;
	}
	return n;
}

size_t lb_ratios(const struct lb_results *r, struct lb_ratio out[LB_MAX_RATIOS])
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(ratio_table) / sizeof(ratio_table[0]); i++) {
		struct lb_ratio *q = &out[n++];
		q->key = ratio_table[i].key;
		q->what = ratio_table[i].what;
		q->num = ratio_table[i].num;
		q->den = ratio_table[i].den;
		q->target_max = ratio_table[i].target_max;
		double a = metric_avg(r, ratio_table[i].metric, q->num);
		double b = metric_avg(r, ratio_table[i].metric, q->den);
		q->available = a >= 0 && b > 0;
		q->value = q->available ? a / b : 0;
	}
	return n;
}
