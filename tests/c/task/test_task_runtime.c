/* SPDX-License-Identifier: MIT */
/*
 * The task runtime (<rtsched/task.h>): job counts and numbering, the release
 * grid and synchronous release, policies observed with sched_getattr, stop,
 * budget overruns, deadline misses, sporadic gaps, and the explained errors.
 * No absolute timing: releases are compared with their nominal values, which
 * the runtime computes exactly; CPU time is what the jobs burn.
 */
#include <rtsched/task.h>

#include <sys/resource.h>

#include "harness.h"
#include "internal/sched_attr.h"

#define MS (1000 * 1000LL)
#define MAX_JOBS 64

struct record {
	atomic_int jobs;
	struct rts_job seen[MAX_JOBS];
	struct rts_sched_attr attr;  /* as the first job saw itself */
	cpu_set_t affinity;
	int64_t burn_cpu_ns;         /* CPU time each job burns */
};

static void burn_cpu(int64_t ns)
{
	int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

static void record_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	struct record *r = arg;
	int n = atomic_load(&r->jobs);
	if (n < MAX_JOBS)
		r->seen[n] = *job;
	if (n == 0) {
		r->attr.size = sizeof(r->attr);
		CHECK_OK(-rts_sched_getattr(0, &r->attr));
		CHECK_OK(pthread_getaffinity_np(pthread_self(), sizeof(r->affinity), &r->affinity));
	}
	if (r->burn_cpu_ns)
		burn_cpu(r->burn_cpu_ns);
	atomic_fetch_add(&r->jobs, 1);
}

static struct rts_task_params fifo_params(const char *name, int cpu, int priority)
{
	static cpu_set_t cpus[4];
	static int next;
	cpu_set_t *set = &cpus[next++ % 4];
	CPU_ZERO(set);
	CPU_SET(cpu, set);
	struct rts_task_params p = {
		.name = name,
		.kind = RTS_TASK_PERIODIC,
		.period_ns = 10 * MS,
		.deadline_ns = 10 * MS,
		.policy = RTS_POLICY_FIFO,
		.priority = priority,
		.cpus = set,
	};
	return p;
}

static int64_t soon(void)
{
	return clock_ns(CLOCK_MONOTONIC) + 20 * MS;
}

static void test_bad_params_are_explained(void)
{
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("zero-period", 0, 10);
	p.period_ns = 0;
	CHECK_ERR(EINVAL, rts_task_create(set, &p, record_job, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "zero-period") != NULL);

	p = fifo_params("prio-0", 0, 0);
	CHECK_ERR(EINVAL, rts_task_create(set, &p, record_job, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "1..99") != NULL);

	p = fifo_params("dl", 0, 0);
	p.policy = RTS_POLICY_DEADLINE;
	p.dl_runtime_ns = 20 * MS; /* > deadline */
	p.cpus = NULL;
	CHECK_ERR(EINVAL, rts_task_create(set, &p, record_job, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "runtime") != NULL);

	p = fifo_params("", 0, 10);
	CHECK_ERR(EINVAL, rts_task_create(set, &p, record_job, &r, NULL));
	CHECK_ERR(EINVAL, rts_task_create(set, NULL, record_job, &r, NULL));
	CHECK_ERR(EINVAL, rts_taskset_release(set, 0));
	rts_taskset_destroy(set);
}

/* The backend is chosen by name, before the first task; the threads backend runs the jobs. */
static void test_backend_is_chosen_by_name(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	CHECK_ERR(EINVAL, rts_taskset_set_backend(NULL, "threads"));
	CHECK_ERR(EINVAL, rts_taskset_set_backend(set, NULL));
	CHECK_ERR(ENOENT, rts_taskset_set_backend(set, "litmus"));
	CHECK(strstr(rts_taskset_error(set), "litmus") != NULL);
	CHECK_OK(rts_taskset_set_backend(set, "threads"));
	struct rts_task_params p = fifo_params("chosen", rt_cpu, 10);
	p.max_jobs = 3;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, NULL));
	CHECK_ERR(EBUSY, rts_taskset_set_backend(set, "threads"));
	CHECK_OK(rts_taskset_release(set, soon()));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.jobs), 3);
	rts_taskset_destroy(set);
}

static void test_jobs_follow_the_release_grid(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	rts_task_t *task;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("grid", rt_cpu, 10);
	p.max_jobs = 20;
	p.offset_ns = 3 * MS;
	p.deadline_ns = 7 * MS;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, &task));
	int64_t t0 = soon();
	CHECK_OK(rts_taskset_release(set, t0));
	CHECK_ERR(EALREADY, rts_taskset_release(set, t0));
	CHECK_ERR(EALREADY, rts_task_create(set, &p, record_job, &r, NULL));
	CHECK_OK(rts_taskset_join(set)); /* max_jobs ends the task by itself */
	CHECK_EQ(atomic_load(&r.jobs), 20);
	for (int k = 0; k < 20; k++) {
		CHECK_EQ(r.seen[k].number, (uint32_t)k + 1);
		CHECK_EQ(r.seen[k].release_ns, t0 + p.offset_ns + k * p.period_ns);
		CHECK_EQ(r.seen[k].deadline_ns, r.seen[k].release_ns + p.deadline_ns);
		CHECK_GE(r.seen[k].start_ns, r.seen[k].release_ns);
	}
	struct rts_task_stats stats;
	CHECK_OK(rts_task_stats(task, &stats));
	CHECK_EQ(stats.jobs_completed, 20u);
	rts_taskset_destroy(set);
}

static void test_fifo_policy_is_applied(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("fifo", rt_cpu, 37);
	p.max_jobs = 1;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, NULL));
	CHECK_OK(rts_taskset_release(set, soon()));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.jobs), 1);
	CHECK_EQ(r.attr.sched_policy, (uint32_t)SCHED_FIFO);
	CHECK_EQ(r.attr.sched_priority, 37u);
	CHECK_EQ(CPU_COUNT(&r.affinity), 1);
	CHECK(CPU_ISSET(rt_cpu, &r.affinity));
	rts_taskset_destroy(set);
}

static void test_deadline_policy_is_applied(void)
{
	h_require_rt(NULL, NULL);
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = {
		.name = "dl",
		.kind = RTS_TASK_PERIODIC,
		.period_ns = 20 * MS,
		.deadline_ns = 15 * MS,
		.dl_runtime_ns = 2 * MS,
		.policy = RTS_POLICY_DEADLINE,
		.max_jobs = 2,
	};
	int err = rts_task_create(set, &p, record_job, &r, NULL);
	if (err == EPERM || err == EBUSY)
		SKIP("SCHED_DEADLINE refused here: %s", rts_taskset_error(set));
	CHECK_OK(err);
	CHECK_OK(rts_taskset_release(set, soon()));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.jobs), 2);
	CHECK_EQ(r.attr.sched_policy, (uint32_t)SCHED_DEADLINE);
	CHECK_EQ(r.attr.sched_runtime, (uint64_t)p.dl_runtime_ns);
	CHECK_EQ(r.attr.sched_deadline, (uint64_t)p.deadline_ns);
	CHECK_EQ(r.attr.sched_period, (uint64_t)p.period_ns);
	CHECK(r.attr.sched_flags & SCHED_FLAG_DL_OVERRUN);
	rts_taskset_destroy(set);
}

/* A total DEADLINE bandwidth above what the machine admits is refused, and said so. */
static void test_deadline_admission_refusal_is_explained(void)
{
	h_require_rt(NULL, NULL);
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int err = 0;
	char name[32];
	for (long i = 0; i <= cpus && err == 0; i++) {
		snprintf(name, sizeof(name), "hog%ld", i);
		struct rts_task_params p = {
			.name = name,
			.kind = RTS_TASK_PERIODIC,
			.period_ns = 100 * MS,
			.deadline_ns = 100 * MS,
			.dl_runtime_ns = 90 * MS,
			.policy = RTS_POLICY_DEADLINE,
		};
		err = rts_task_create(set, &p, record_job, &r, NULL);
	}
	if (err == EPERM)
		SKIP("SCHED_DEADLINE refused here: %s", rts_taskset_error(set));
	CHECK_ERR(EBUSY, err);
	CHECK(strstr(rts_taskset_error(set), "admission") != NULL);
	CHECK(strstr(rts_taskset_error(set), name) != NULL);
	rts_taskset_destroy(set); /* never released: nothing ran */
	CHECK_EQ(atomic_load(&r.jobs), 0);
}

static void test_stop_wakes_a_sleeping_task(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("sleeper", rt_cpu, 10);
	p.period_ns = 3600 * 1000 * MS; /* the second job is an hour away */
	p.deadline_ns = p.period_ns;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, NULL));
	CHECK_OK(rts_taskset_release(set, soon()));
	WAIT_FOR(atomic_load(&r.jobs) == 1, 2000);
	CHECK_OK(rts_taskset_stop(set));
	CHECK_OK(rts_taskset_join(set)); /* the case's timeout catches a join that waits the hour */
	CHECK_EQ(atomic_load(&r.jobs), 1);
	rts_taskset_destroy(set);
}

static void test_stop_before_release_ends_tasks(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("never", rt_cpu, 10);
	CHECK_OK(rts_task_create(set, &p, record_job, &r, NULL));
	CHECK_OK(rts_taskset_stop(set));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.jobs), 0);
	rts_taskset_destroy(set);
}

/* ---- services (RTS_TASK_SERVICE) ---- */

struct service_record {
	atomic_int calls;
	atomic_int end;         /* the test tells the body to return */
	struct rts_job job;     /* what its body was given */
	int64_t began_ns;       /* when its body began */
	int job_next_err;       /* rts_job_next from inside it */
	struct rts_sched_attr attr;
	cpu_set_t affinity;
};

static void service_body(rts_task_t *task, const struct rts_job *job, void *arg)
{
	struct service_record *r = arg;
	r->began_ns = clock_ns(CLOCK_MONOTONIC);
	r->job = *job;
	r->attr.size = sizeof(r->attr);
	CHECK_OK(-rts_sched_getattr(0, &r->attr));
	CHECK_OK(pthread_getaffinity_np(pthread_self(), sizeof(r->affinity), &r->affinity));
	r->job_next_err = rts_job_next(task, NULL);
	atomic_fetch_add(&r->calls, 1);
	while (!atomic_load(&r->end))
		h_sleep_us(500);
}

static struct rts_task_params service_params(const char *name, int cpu, int priority)
{
	struct rts_task_params p = fifo_params(name, cpu, priority);
	p.kind = RTS_TASK_SERVICE;
	p.period_ns = 0;
	p.deadline_ns = 0;
	return p;
}

static void test_service_params_are_explained(void)
{
	rts_taskset_t *set;
	struct service_record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = service_params("with-period", 0, 10);
	p.period_ns = 10 * MS;
	CHECK_ERR(EINVAL, rts_task_create(set, &p, service_body, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "with-period: a service has no jobs") != NULL);
	p = service_params("with-max-jobs", 0, 10);
	p.max_jobs = 2;
	CHECK_ERR(EINVAL, rts_task_create(set, &p, service_body, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "max_jobs must be 0") != NULL);
	p = service_params("dl-service", 0, 0);
	p.policy = RTS_POLICY_DEADLINE;
	CHECK_ERR(EINVAL, rts_task_create(set, &p, service_body, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "policy fifo") != NULL);
	p = service_params("prio-0-service", 0, 0);
	CHECK_ERR(EINVAL, rts_task_create(set, &p, service_body, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "1..99") != NULL);
	p = service_params("odd-kind", 0, 10);
	p.kind = (enum rts_task_kind)7;
	CHECK_ERR(EINVAL, rts_task_create(set, &p, service_body, &r, NULL));
	CHECK(strstr(rts_taskset_error(set), "periodic, sporadic, service, self-paced or event") != NULL);
	CHECK_EQ(atomic_load(&r.calls), 0);
	rts_taskset_destroy(set);
}

/*
 * A service's body runs once, from the release call (long before t0 here),
 * at its priority on its CPU, with job number 0 and no deadline; rts_job_next
 * refuses it (EINVAL); nothing is counted as a job; join waits for it.
 */
static void test_service_runs_once_from_the_release(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct service_record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = service_params("server", rt_cpu, 41);
	rts_task_t *task;
	CHECK_OK(rts_task_create(set, &p, service_body, &r, &task));
	h_sleep_us(20 * 1000);
	CHECK_EQ(atomic_load(&r.calls), 0); /* not before the release */
	int64_t t0 = clock_ns(CLOCK_MONOTONIC) + 60 * 1000 * MS;
	CHECK_OK(rts_taskset_release(set, t0));
	WAIT_FOR(atomic_load(&r.calls) == 1, 5000);
	CHECK_LT(r.began_ns, t0);
	CHECK_EQ(r.job.number, 0u);
	CHECK_EQ(r.job.deadline_ns, INT64_MAX);
	CHECK_ERR(EINVAL, r.job_next_err);
	CHECK_EQ(r.attr.sched_policy, (uint32_t)SCHED_FIFO);
	CHECK_EQ(r.attr.sched_priority, 41u);
	CHECK_EQ(CPU_COUNT(&r.affinity), 1);
	CHECK(CPU_ISSET(rt_cpu, &r.affinity));
	CHECK_OK(rts_taskset_stop(set));
	atomic_store(&r.end, 1);
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.calls), 1);
	struct rts_task_stats stats;
	CHECK_OK(rts_task_stats(task, &stats));
	CHECK_EQ(stats.jobs_completed, 0u);
	rts_taskset_destroy(set);
}

static void test_service_stopped_before_release_never_runs(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct service_record r = { 0 };
	atomic_store(&r.end, 1);
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = service_params("unused", rt_cpu, 41);
	CHECK_OK(rts_task_create(set, &p, service_body, &r, NULL));
	CHECK_OK(rts_taskset_stop(set));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.calls), 0);
	rts_taskset_destroy(set);
}

static void run_burning(struct record *r, int64_t budget_ns, int64_t deadline_ns, int rt_cpu,
			struct rts_task_stats *stats)
{
	rts_taskset_t *set;
	rts_task_t *task;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("burner", rt_cpu, 10);
	p.period_ns = 20 * MS;
	p.deadline_ns = deadline_ns;
	p.budget_ns = budget_ns;
	p.max_jobs = 3;
	CHECK_OK(rts_task_create(set, &p, record_job, r, &task));
	CHECK_OK(rts_taskset_release(set, soon()));
	CHECK_OK(rts_taskset_join(set));
	CHECK_OK(rts_task_stats(task, stats));
	rts_taskset_destroy(set);
}

static void test_budget_overruns_are_counted(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	struct rts_task_stats stats;
	struct record over = { .burn_cpu_ns = 4 * MS };
	run_burning(&over, 1 * MS, 20 * MS, rt_cpu, &stats);
	CHECK_EQ(stats.jobs_completed, 3u);
	CHECK_EQ(stats.budget_overruns, 3u);

	struct record under = { .burn_cpu_ns = 1 * MS };
	run_burning(&under, 15 * MS, 20 * MS, rt_cpu, &stats);
	CHECK_EQ(stats.jobs_completed, 3u);
	CHECK_EQ(stats.budget_overruns, 0u);
}

static void test_deadline_misses_are_counted(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	struct rts_task_stats stats;
	/* 4 ms of CPU time cannot complete within a 1 ms deadline. */
	struct record r = { .burn_cpu_ns = 4 * MS };
	run_burning(&r, 0, 1 * MS, rt_cpu, &stats);
	CHECK_EQ(stats.jobs_completed, 3u);
	CHECK_EQ(stats.deadline_misses, 3u);
	CHECK_GE(stats.max_tardiness_ns, 3 * MS);
	CHECK_GE(stats.max_response_ns, 4 * MS);
}

static void sporadic_releases(uint64_t seed, int64_t *gaps, int n_gaps)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("sporadic", rt_cpu, 10);
	p.kind = RTS_TASK_SPORADIC;
	p.period_ns = 2 * MS;
	p.sporadic_max_extra_ns = 3 * MS;
	p.seed = seed;
	p.max_jobs = (uint32_t)n_gaps + 1;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, NULL));
	CHECK_OK(rts_taskset_release(set, soon()));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.jobs), n_gaps + 1);
	for (int k = 0; k < n_gaps; k++) {
		gaps[k] = r.seen[k + 1].release_ns - r.seen[k].release_ns;
		CHECK_GE(gaps[k], p.period_ns);
		CHECK_LE(gaps[k], p.period_ns + p.sporadic_max_extra_ns);
	}
	rts_taskset_destroy(set);
}

static void test_sporadic_gaps_are_bounded_and_reproducible(void)
{
	enum { N = 20 };
	int64_t first[N], second[N];
	sporadic_releases(42, first, N);
	sporadic_releases(42, second, N);
	bool varied = false;
	for (int k = 0; k < N; k++) {
		CHECK_EQ(first[k], second[k]);
		varied = varied || first[k] != first[0];
	}
	CHECK_MSG(varied, "sporadic gaps never varied");
}

static void test_offsets_share_one_t0(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	struct record a = { 0 }, b = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params pa = fifo_params("a", rt_cpu, 20);
	struct rts_task_params pb = fifo_params("b", rt_cpu, 10);
	pa.max_jobs = pb.max_jobs = 2;
	pb.offset_ns = 5 * MS;
	CHECK_OK(rts_task_create(set, &pa, record_job, &a, NULL));
	CHECK_OK(rts_task_create(set, &pb, record_job, &b, NULL));
	int64_t t0 = soon();
	CHECK_OK(rts_taskset_release(set, t0));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(a.seen[0].release_ns, t0);
	CHECK_EQ(b.seen[0].release_ns, t0 + 5 * MS);
	rts_taskset_destroy(set);
}

/* Without privilege, SCHED_FIFO is refused and the error says what to change. */
static void test_no_privilege_is_explained(void)
{
	if (geteuid() != 0)
		SKIP("needs root to drop privileges in a child");
	struct rlimit none = { 0, 0 };
	CHECK_SYS(setrlimit(RLIMIT_RTPRIO, &none));
	CHECK_SYS(setresgid(65534, 65534, 65534));
	CHECK_SYS(setresuid(65534, 65534, 65534));
	rts_taskset_t *set;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = fifo_params("unprivileged", 0, 50);
	p.cpus = NULL;
	CHECK_ERR(EPERM, rts_task_create(set, &p, record_job, &r, NULL));
	const char *why = rts_taskset_error(set);
	CHECK_MSG(strstr(why, "unprivileged") && strstr(why, "RLIMIT_RTPRIO"), "error text: %s", why);
	rts_taskset_destroy(set);
}

static const struct h_case cases[] = {
	H_CASE(test_bad_params_are_explained, 5000),
	H_CASE(test_backend_is_chosen_by_name, 5000),
	H_CASE(test_jobs_follow_the_release_grid, 10000),
	H_CASE(test_fifo_policy_is_applied, 5000),
	H_CASE(test_deadline_policy_is_applied, 5000),
	H_CASE(test_deadline_admission_refusal_is_explained, 5000),
	H_CASE(test_stop_wakes_a_sleeping_task, 5000),
	H_CASE(test_stop_before_release_ends_tasks, 5000),
	H_CASE(test_budget_overruns_are_counted, 10000),
	H_CASE(test_deadline_misses_are_counted, 10000),
	H_CASE(test_sporadic_gaps_are_bounded_and_reproducible, 10000),
	H_CASE(test_offsets_share_one_t0, 5000),
	H_CASE(test_no_privilege_is_explained, 5000),
	H_CASE(test_service_params_are_explained, 5000),
	H_CASE(test_service_runs_once_from_the_release, 10000),
	H_CASE(test_service_stopped_before_release_never_runs, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
