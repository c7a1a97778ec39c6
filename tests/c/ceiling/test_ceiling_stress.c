/* SPDX-License-Identifier: MIT */
/*
 * Stress, one case per protocol and variant (also run under ASan+UBSan and
 * TSan by scripts/test-sanitizers):
 *  - mutual exclusion: every lock guards a plain "inside" flag, never found
 *    set on entry, and a plain counter that ends equal to the acquisitions the
 *    threads counted;
 *  - progress: every thread completes all its jobs (a hang fails the case);
 *  - no leaked boost: at the end every thread is back at its base priority,
 *    in sched_getattr and in /proc.
 * Local protocols (PCP, SRP, IPCP): three SCHED_FIFO threads on one CPU, jobs
 * with one lock or two nested in either order. Global protocols (MPCP,
 * FMLP+): two SCHED_FIFO threads on the real-time CPU and two SCHED_OTHER
 * threads on the other (so that it never runs a real-time spinner), one lock
 * per job. Every thread sleeps between jobs, so lower ones progress.
 */
#include "ceiling_helpers.h"

#if H_TSAN
#define SCALE(n) ((n) / 8 + 1)
#else
#define SCALE(n) (n)
#endif

#define THREADS_MAX 4
#define LOCKS 2

struct stress_params {
	const char *name;
	int proto;
	int variant;
	int ceiling;
	int jobs; /* per thread */
};

static const struct stress_params table[] = {
	{ "stress_pcp", RTS_PROTO_PCP, RTS_CEILING_DEFERRED, 30, 3000 },
	{ "stress_srp", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, 30, 3000 },
	{ "stress_srp_eager", RTS_PROTO_SRP, RTS_CEILING_EAGER, 30, 2000 },
	{ "stress_ipcp", RTS_PROTO_IPCP, RTS_CEILING_DEFERRED, 30, 3000 },
	{ "stress_ipcp_eager", RTS_PROTO_IPCP, RTS_CEILING_EAGER, 30, 2000 },
	{ "stress_mpcp", RTS_PROTO_MPCP, RTS_CEILING_DEFERRED, 40, 3000 },
	{ "stress_mpcp_eager", RTS_PROTO_MPCP, RTS_CEILING_EAGER, 40, 2000 },
	{ "stress_fmlp", RTS_PROTO_FMLP, RTS_CEILING_DEFERRED, 0, 3000 },
	{ "stress_fmlp_eager", RTS_PROTO_FMLP, RTS_CEILING_EAGER, 40, 2000 },
};

struct guarded {
	rts_mutex_t m;
	int inside;     /* plain: the lock guards it */
	long counter;   /* plain: likewise */
};

struct stress_run {
	const struct stress_params *p;
	struct guarded g[LOCKS];
	int n_threads;
	int prio[THREADS_MAX];
	int cpu[THREADS_MAX];
	pid_t tid[THREADS_MAX];
	long acquisitions[THREADS_MAX];
	long jobs_done[THREADS_MAX];
	int ret[THREADS_MAX];
	int finished[THREADS_MAX];
	int exit_now;
};

struct stress_thread {
	struct stress_run *r;
	int index;
};

static int enter(struct stress_run *r, int k, long *acq)
{
	int ret = rts_mutex_lock(&r->g[k].m);
	if (ret)
		FAIL("%s: lock %d (owner %d, caller %d on CPU %d): %s", r->p->name, k,
		     mutex_owner(&r->g[k].m), h_gettid(), sched_getcpu(), h_errname(ret));
	if (r->g[k].inside)
		FAIL("%s: lock %d: two threads inside at once", r->p->name, k);
	r->g[k].inside = 1;
	r->g[k].counter++;
	(*acq)++;
	return 0;
}

static int leave(struct stress_run *r, int k)
{
	r->g[k].inside = 0;
	int ret = rts_mutex_unlock(&r->g[k].m);
	if (ret)
		FAIL("%s: unlock %d (owner %d, caller %d on CPU %d): %s", r->p->name, k,
		     mutex_owner(&r->g[k].m), h_gettid(), sched_getcpu(), h_errname(ret));
	return 0;
}

static void *stress_main(void *arg)
{
	struct stress_thread *t = arg;
	struct stress_run *r = t->r;
	int me = t->index;
	H_STORE(&r->tid[me], h_gettid());
	unsigned seed = 12345u + (unsigned)me * 7919u;
	bool local = proto_is_local(r->p->proto);
	int jobs = SCALE(r->p->jobs);
	long acq = 0;
	int ret = 0;
	for (int j = 0; j < jobs && ret == 0; j++) {
		h_sleep_us(10 + rand_r(&seed) % 40);
		ret = rts_lock_gate();
		if (ret)
			break;
		int first = rand_r(&seed) % LOCKS;
		ret = enter(r, first, &acq);
		if (ret)
			break;
		burn_loops(2000 + rand_r(&seed) % 4000);
		/* Local protocols nest: the second lock in either order. */
		if (local && rand_r(&seed) % 3 == 0) {
			ret = enter(r, 1 - first, &acq);
			if (ret == 0) {
				burn_loops(1000);
				ret = leave(r, 1 - first);
			}
		}
		int r2 = leave(r, first);
		if (ret == 0)
			ret = r2;
		r->jobs_done[me]++;
	}
	H_STORE(&r->acquisitions[me], acq);
	H_STORE(&r->ret[me], ret);
	H_STORE(&r->finished[me], 1);
	sleep_until(&r->exit_now);
	return NULL;
}

/* Back at its base: SCHED_FIFO prio, or SCHED_OTHER at nice 0 (kernel prio 20). */
static void check_thread_at_base(pid_t tid, int prio)
{
	if (prio > 0) {
		CHECK_AT_BASE(tid, prio);
	} else {
		CHECK_EQ(base_fifo_prio(tid), 0);
		CHECK_EQ(h_thread_prio(tid), 20);
	}
}

static void test_stress(int i)
{
	const struct stress_params *p = &table[i];
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct stress_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	r->p = p;
	bool local = proto_is_local(p->proto);
	for (int k = 0; k < LOCKS; k++)
		ceil_mutex_init(&r->g[k].m, p->proto, p->ceiling, local ? rt_cpu : -1, p->variant);
	if (local) {
		static const int prio[] = { 10, 20, 30 };
		r->n_threads = 3;
		for (int k = 0; k < 3; k++) {
			r->prio[k] = prio[k];
			r->cpu[k] = rt_cpu;
		}
	} else {
		static const int prio[] = { 10, 20, 0, 0 };
		r->n_threads = 4;
		for (int k = 0; k < 4; k++) {
			r->prio[k] = prio[k];
			r->cpu[k] = prio[k] ? rt_cpu : free_cpu;
		}
	}
	pthread_t th[THREADS_MAX];
	struct stress_thread args[THREADS_MAX];
	for (int k = 0; k < r->n_threads; k++) {
		args[k] = (struct stress_thread){ r, k };
		h_thread_start(&th[k], stress_main, &args[k], r->prio[k], r->cpu[k]);
	}
	for (int k = 0; k < r->n_threads; k++)
		WAIT_FOR(H_LOAD(&r->finished[k]), 60000);
	long total = 0;
	for (int k = 0; k < r->n_threads; k++) {
		CHECK_OK(H_LOAD(&r->ret[k]));
		CHECK_EQ(r->jobs_done[k], SCALE(p->jobs));
		total += H_LOAD(&r->acquisitions[k]);
	}
	long counted = 0;
	for (int k = 0; k < LOCKS; k++) {
		CHECK_EQ(r->g[k].inside, 0);
		CHECK_EQ(mutex_owner(&r->g[k].m), 0);
		counted += r->g[k].counter;
	}
	H_LOG("%s: %ld acquisitions", p->name, total);
	CHECK_EQ(counted, total);
	for (int k = 0; k < r->n_threads; k++)
		check_thread_at_base(H_LOAD(&r->tid[k]), r->prio[k]);
	H_STORE(&r->exit_now, 1);
	for (int k = 0; k < r->n_threads; k++)
		h_join(th[k], 5000);
	for (int k = 0; k < LOCKS; k++)
		CHECK_OK(rts_mutex_destroy(&r->g[k].m));
	free(r);
}

static const struct h_case cases[] = {
	{ "stress_pcp", NULL, 90000, test_stress, 0 },
	{ "stress_srp", NULL, 90000, test_stress, 1 },
	{ "stress_srp_eager", NULL, 90000, test_stress, 2 },
	{ "stress_ipcp", NULL, 90000, test_stress, 3 },
	{ "stress_ipcp_eager", NULL, 90000, test_stress, 4 },
	{ "stress_mpcp", NULL, 90000, test_stress, 5 },
	{ "stress_mpcp_eager", NULL, 90000, test_stress, 6 },
	{ "stress_fmlp", NULL, 90000, test_stress, 7 },
	{ "stress_fmlp_eager", NULL, 90000, test_stress, 8 },
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
