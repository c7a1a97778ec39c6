/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's refusals, each with its error number and words: names
 * that are no ult form, cluster sizes the CPUs cannot be split into, and
 * tasks it cannot run (a cpuset, FP without a priority, a task
 * without CPUs among several clusters or with CPUs in two), and stack sizes
 * out of range on either backend. None of them starts a worker, so none
 * needs real-time privilege.
 */
#include <rtsched/task.h>

#include "harness.h"
#include "ult_arch.h"

#define MS (1000 * 1000LL)

static void noop_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job, (void)arg;
}

static int allowed_cpus(void)
{
	cpu_set_t set;
	CHECK_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set);
}

static void expect_backend_error(const char *name, int error, const char *words)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	CHECK_ERR(error, rts_taskset_set_backend(set, name));
	CHECK_MSG(strstr(rts_taskset_error(set), words), "%s: \"%s\" lacks \"%s\"", name,
		  rts_taskset_error(set), words);
	rts_taskset_destroy(set);
}

static void test_names(void)
{
	expect_backend_error("ult:xedf", EINVAL, "not an ult form");
	expect_backend_error("ult:", EINVAL, "not an ult form");
	expect_backend_error("ult:cedf", EINVAL, "needs a cluster size");
	expect_backend_error("ult:cedf:0", EINVAL, "not a whole number");
	expect_backend_error("ult:cedf:2x", EINVAL, "not a whole number");
	expect_backend_error("ult:gedf:2", EINVAL, "only the clustered forms");
	expect_backend_error("ultra", ENOENT, "no execution backend called");
	char name[32];
	snprintf(name, sizeof(name), "ult:cedf:%d", allowed_cpus() + 1);
	expect_backend_error(name, EINVAL, "cannot be split into clusters");
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	const char *good[] = {"ult", "ult:gedf", "ult:pedf", "ult:cedf:1", "ult:gfp", "ult:pfp",
			      "ult:cfp:1", "threads"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		bool migrates = !strstr(good[i], "pedf") && !strstr(good[i], "pfp") &&
				!strstr(good[i], ":1") && strcmp(good[i], "threads") != 0;
		bool set_here = ult_set_backend_here(set, good[i]);
		CHECK_MSG(set_here || (migrates && allowed_cpus() > 1), "%s refused", good[i]);
	}
	rts_taskset_destroy(set);
}

static void expect_task_error(const char *backend, const struct rts_task_params *p, int error,
			      const char *words)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	if (!ult_set_backend_here(set, backend)) { /* refused on this architecture, as documented */
		rts_taskset_destroy(set);
		return;
	}
	CHECK_ERR(error, rts_task_create(set, p, noop_job, NULL, NULL));
	CHECK_MSG(strstr(rts_taskset_error(set), words), "\"%s\" lacks \"%s\"",
		  rts_taskset_error(set), words);
	CHECK_MSG(strstr(rts_taskset_error(set), p->name), "\"%s\" does not name the task",
		  rts_taskset_error(set));
	rts_taskset_destroy(set);
}

static void test_tasks(void)
{
	const struct rts_task_params base = {
		.name = "t1", .kind = RTS_TASK_PERIODIC, .period_ns = 10 * MS,
		.deadline_ns = 10 * MS, .policy = RTS_POLICY_OTHER,
	};
	struct rts_task_params p = base;
	p.cpuset = "/sys/fs/cgroup/none";
	expect_task_error("ult", &p, EINVAL, "cpuset");
	p = base; /* policy other is background under FP; SCHED_DEADLINE has no FP priority */
	p.policy = RTS_POLICY_DEADLINE;
	p.dl_runtime_ns = MS;
	expect_task_error("ult:gfp", &p, EINVAL, "SCHED_FIFO priority");
	if (allowed_cpus() < 2)
		SKIP("the cluster cases need 2 CPUs");
	p = base;
	expect_task_error("ult:pedf", &p, EINVAL, "needs the task's CPUs");
	cpu_set_t both, none;
	CHECK_EQ(sched_getaffinity(0, sizeof(both), &both), 0);
	CPU_ZERO(&none);
	p.cpus = &both;
	expect_task_error("ult:cedf:1", &p, EINVAL, "different clusters");
	p.cpus = &none;
	expect_task_error("ult:pedf", &p, EINVAL, "empty");
}

/* A stack size outside RTS_TASK_STACK_MIN_BYTES..MAX_BYTES, on either backend, before any thread. */
static void test_stack_sizes(void)
{
	struct rts_task_params p = {
		.name = "t1", .kind = RTS_TASK_PERIODIC, .period_ns = 10 * MS,
		.deadline_ns = 10 * MS, .policy = RTS_POLICY_OTHER,
	};
	const char *backends[] = {"ult", "threads"};
	for (size_t i = 0; i < 2; i++) {
		p.stack_bytes = RTS_TASK_STACK_MIN_BYTES - 1;
		expect_task_error(backends[i], &p, EINVAL, "stack of 16383 bytes is not in 16384..");
		p.stack_bytes = RTS_TASK_STACK_MAX_BYTES + 1;
		expect_task_error(backends[i], &p, EINVAL, "stack of 268435457 bytes");
	}
}

static const struct h_case cases[] = {
	H_CASE(test_names, 10000),
	H_CASE(test_tasks, 10000),
	H_CASE(test_stack_sizes, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
