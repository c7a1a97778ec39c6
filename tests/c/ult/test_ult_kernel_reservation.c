/* SPDX-License-Identifier: MIT */
/*
 * A top-level reservation enforced by the kernel (RTS_RESERVATION_BY_KERNEL,
 * src/ult/kernel_reservation.c): where the library refuses it, each refusal
 * with its error number and words; and the explanation when the kernel
 * refuses its worker SCHED_DEADLINE because the CPU is not a root domain of
 * its own (no cpuset given). Its live behaviour (the worker's attributes,
 * the kernel holding the subtree to its budget) is tested through the runner,
 * which makes the exclusive cpuset: tests/python/test_run_kernel_reservation_live.py.
 */
#include <rtsched/reservation.h>
#include <rtsched/task.h>

#include <sched.h>
#include <string.h>

#include "harness.h"

#define MS (1000 * 1000LL)

static struct rts_reservation_params params(const char *name, int cpu,
					    enum rts_reservation_enforcement enforcement)
{
	return (struct rts_reservation_params){.name = name, .period_ns = 10 * MS,
					       .budget_ns = 3 * MS, .order = RTS_RESERVATION_FP,
					       .priority = 10, .cpu = cpu, .enforcement = enforcement};
}

static void noop_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job, (void)arg;
}

static void expect_words(rts_taskset_t *set, const char *words)
{
	CHECK_MSG(strstr(rts_taskset_error(set), words), "\"%s\" lacks \"%s\"", rts_taskset_error(set),
		  words);
}

/* The CPUs this process may use: the first two (second -1 if only one). */
static void two_cpus(int *first, int *second)
{
	cpu_set_t set;
	CHECK_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
	*first = *second = -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (*first < 0)
			*first = cpu;
		else if (*second < 0)
			*second = cpu;
	}
}

static struct rts_task_params task_in(rts_reservation_t *r, int cpu, cpu_set_t *cpus)
{
	CPU_ZERO(cpus);
	CPU_SET(cpu, cpus);
	return (struct rts_task_params){.name = "t", .period_ns = 10 * MS, .deadline_ns = 10 * MS,
					.policy = RTS_POLICY_FIFO, .priority = 3, .cpus = cpus,
					.reservation = r};
}

static void test_where_it_may_sit(void)
{
	int cpu, other;
	two_cpus(&cpu, &other);
	rts_taskset_t *set;
	rts_reservation_t *k, *u, *child;
	CHECK_OK(rts_taskset_create(&set, NULL));
	CHECK_OK(rts_taskset_set_backend(set, "ult:pfp"));

	struct rts_reservation_params p = params("K", cpu, 7);
	CHECK_ERR(EINVAL, rts_reservation_create(set, &p, NULL, &k));
	expect_words(set, "unknown enforcement 7");
	p = params("K", cpu, RTS_RESERVATION_BY_KERNEL);
	p.control = (struct rts_reservation_control){.period_ns = 100 * MS, .min_budget_ns = MS,
						     .max_budget_ns = 5 * MS, .importance = 1};
	CHECK_ERR(EINVAL, rts_reservation_create(set, &p, NULL, &k));
	expect_words(set, "a budget controller adapts budgets the user-level scheduler enforces");

	p = params("K", cpu, RTS_RESERVATION_BY_KERNEL);
	CHECK_OK(rts_reservation_create(set, &p, NULL, &k));
	struct rts_reservation_params c = params("C", cpu, RTS_RESERVATION_BY_KERNEL);
	c.budget_ns = 2 * MS;
	CHECK_ERR(EINVAL, rts_reservation_create(set, &c, k, &child));
	expect_words(set, "only a top-level reservation is enforced by the kernel");
	struct rts_reservation_params beside = params("B", cpu, RTS_RESERVATION_BY_USER);
	CHECK_ERR(EINVAL, rts_reservation_create(set, &beside, NULL, &u));
	expect_words(set, "top level is reservation K, enforced by the kernel: nothing else may sit beside it");
	beside.enforcement = RTS_RESERVATION_BY_KERNEL;
	CHECK_ERR(EINVAL, rts_reservation_create(set, &beside, NULL, &u));
	expect_words(set, "it must be the only top level of CPU");
	c.enforcement = RTS_RESERVATION_BY_USER;
	CHECK_OK(rts_reservation_create(set, &c, k, &child)); /* inside it: the user level enforces */

	cpu_set_t cpus;
	struct rts_task_params outside = task_in(NULL, cpu, &cpus);
	rts_task_t *task;
	CHECK_ERR(EINVAL, rts_task_create(set, &outside, noop_job, NULL, &task));
	expect_words(set, "enforced by the kernel: attach the task to it or to a reservation inside it");
	rts_taskset_destroy(set);

	CHECK_OK(rts_taskset_create(&set, NULL)); /* a CBS is not enforced by the kernel */
	CHECK_OK(rts_taskset_set_backend(set, "ult:pedf"));
	p = params("Q", cpu, RTS_RESERVATION_BY_KERNEL);
	p.kind = RTS_RESERVATION_CBS;
	p.priority = 0;
	CHECK_ERR(EINVAL, rts_reservation_create(set, &p, NULL, &k));
	expect_words(set, "a CBS is not enforced by the kernel");
	rts_taskset_destroy(set);

	if (other < 0)
		SKIP("one CPU here: the refusal after the workers started needs a second");
	CHECK_OK(rts_taskset_create(&set, NULL)); /* made after the workers took their policy */
	CHECK_OK(rts_taskset_set_backend(set, "ult:pfp"));
	p = params("U", cpu, RTS_RESERVATION_BY_USER);
	CHECK_OK(rts_reservation_create(set, &p, NULL, &u));
	struct rts_task_params t = task_in(u, cpu, &cpus);
	int err = rts_task_create(set, &t, noop_job, NULL, &task); /* starts the workers */
	if (err == EPERM)
		SKIP("%s", rts_taskset_error(set));
	CHECK_OK(err);
	p = params("K", other, RTS_RESERVATION_BY_KERNEL);
	CHECK_ERR(EBUSY, rts_reservation_create(set, &p, NULL, &k));
	expect_words(set, "must be made before the set's first task");
	rts_taskset_destroy(set);
}

/*
 * Without a cpuset the worker pins itself, and the kernel refuses
 * SCHED_DEADLINE to a thread whose affinity does not span its root domain
 * (EPERM): the error says so, or (without the privilege) what is missing.
 */
static void test_no_cpuset_is_explained(void)
{
	int cpu, other;
	two_cpus(&cpu, &other);
	if (other < 0)
		SKIP("one CPU here: it may be a root domain of its own");
	rts_taskset_t *set;
	rts_reservation_t *k;
	CHECK_OK(rts_taskset_create(&set, NULL));
	CHECK_OK(rts_taskset_set_backend(set, "ult:pfp"));
	struct rts_reservation_params p = params("K", cpu, RTS_RESERVATION_BY_KERNEL);
	CHECK_OK(rts_reservation_create(set, &p, NULL, &k));
	cpu_set_t cpus;
	struct rts_task_params t = task_in(k, cpu, &cpus);
	rts_task_t *task;
	int err = rts_task_create(set, &t, noop_job, NULL, &task);
	if (err == 0)
		SKIP("CPU %d is a root domain of its own here (an exclusive cpuset holds it)", cpu);
	CHECK_EQ(err, EPERM);
	const char *why = rts_taskset_error(set);
	CHECK_MSG(strstr(why, "is not a root domain of its own") || strstr(why, "needs root or CAP_SYS_NICE"),
		  "unexplained: %s", why);
	expect_words(set, "reservation K, enforced by the kernel: SCHED_DEADLINE refused (EPERM)");
	rts_taskset_destroy(set);
}

static const struct h_case cases[] = {
	H_CASE(test_where_it_may_sit, 10000),
	H_CASE(test_no_cpuset_is_explained, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
