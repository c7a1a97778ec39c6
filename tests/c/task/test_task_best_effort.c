/* SPDX-License-Identifier: MIT */
/*
 * Best-effort tasks (<rtsched/task.h>, <rtsched/sched.h>): policies other,
 * batch and idle with a nice, of every activation kind, as the kernel sees
 * their threads (sched_getattr and /proc/PID/task/TID/stat, read by each
 * job of itself); nice refused with a reason where it means nothing, and
 * a nice below the thread's own refused with what it needs when the
 * process may not lower it (a child without CAP_SYS_NICE, RLIMIT_NICE 0).
 * No real-time thread runs here.
 */
#include <linux/capability.h>
#include <sys/resource.h>

#include <rtsched/task.h>

#include "harness.h"
#include "refusal.h"
#include "internal/sched_attr.h"

#define MS (1000 * 1000LL)

struct seen {
	atomic_int jobs;
	int policy; /* sched_getattr */
	int nice;
	int stat_policy; /* /proc/self/task/TID/stat fields 41 and 19 */
	int stat_nice;
	rts_task_t *activate; /* activated by each job, if set */
};

/* Fields 19 (nice) and 41 (policy) of the calling thread's stat line. */
static void read_stat(int *nice, int *policy)
{
	char path[64], line[1024];
	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", (long)syscall(SYS_gettid));
	FILE *f = fopen(path, "re");
	*nice = *policy = -100;
	if (!f)
		return;
	size_t n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	char *p = strrchr(line, ')'); /* the command may hold spaces */
	int field = 2;
	char *rest = NULL; /* strtok_r: the tasks' threads read their stat lines at once */
	for (char *tok = p ? strtok_r(p + 1, " ", &rest) : NULL; tok; tok = strtok_r(NULL, " ", &rest)) {
		field++;
		if (field == 19)
			*nice = atoi(tok);
		if (field == 41)
			*policy = atoi(tok);
	}
}

static void observe(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	struct seen *s = arg;
	if (job->number == 1) {
		struct rts_sched_attr attr = { .size = sizeof(attr) };
		if (rts_sched_getattr(0, &attr) == 0) {
			s->policy = (int)attr.sched_policy;
			s->nice = attr.sched_nice;
		}
		read_stat(&s->stat_nice, &s->stat_policy);
	}
	if (s->activate)
		rts_task_activate(s->activate);
	atomic_fetch_add(&s->jobs, 1);
}

static struct rts_task_params best_effort(const char *name, enum rts_task_kind kind,
					  enum rts_policy policy, int nice)
{
	struct rts_task_params p = {
		.name = name,
		.kind = kind,
		.period_ns = 5 * MS,
		.deadline_ns = 5 * MS,
		.max_jobs = 3,
		.policy = policy,
		.nice = nice,
	};
	return p;
}

static void check_seen(const struct seen *s, int policy, int nice, const char *name)
{
	CHECK_MSG(atomic_load(&s->jobs) >= 1, "%s ran no job", name);
	CHECK_MSG(s->policy == policy && s->stat_policy == policy,
		  "%s: policy %d (sched_getattr), %d (stat), expected %d", name, s->policy,
		  s->stat_policy, policy);
	/* SCHED_IDLE keeps the nice the thread had (the kernel ignores it there). */
	if (policy != SCHED_IDLE)
		CHECK_MSG(s->nice == nice && s->stat_nice == nice,
			  "%s: nice %d (sched_getattr), %d (stat), expected %d", name, s->nice,
			  s->stat_nice, nice);
}

/* Nice values at or above any the test may be started with, so that no privilege is needed. */
static void test_policies_and_nice_are_the_kernel_threads(void)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct seen other = { 0 }, batch = { 0 }, idle = { 0 }, event = { 0 };
	rts_task_t *handler;
	struct rts_task_params p = best_effort("ev-other", RTS_TASK_EVENT, RTS_POLICY_OTHER, 18);
	p.max_jobs = 0;
	p.activation_queue = 3;
	CHECK_OK(rts_task_create(set, &p, observe, &event, &handler));
	other.activate = handler;
	p = best_effort("periodic-other", RTS_TASK_PERIODIC, RTS_POLICY_OTHER, 19);
	CHECK_OK(rts_task_create(set, &p, observe, &other, NULL));
	p = best_effort("paced-batch", RTS_TASK_SELF_PACED, RTS_POLICY_BATCH, 17);
	CHECK_OK(rts_task_create(set, &p, observe, &batch, NULL));
	p = best_effort("periodic-idle", RTS_TASK_PERIODIC, RTS_POLICY_IDLE, 0);
	CHECK_OK(rts_task_create(set, &p, observe, &idle, NULL));
	CHECK_OK(rts_taskset_release(set, clock_ns(CLOCK_MONOTONIC) + 20 * MS));
	while (atomic_load(&other.jobs) < 3 || atomic_load(&batch.jobs) < 3 ||
	       atomic_load(&idle.jobs) < 3 || atomic_load(&event.jobs) < 1)
		usleep(1000);
	CHECK_OK(rts_taskset_stop(set)); /* the event task waits for a fourth activation */
	CHECK_OK(rts_taskset_join(set));
	check_seen(&other, SCHED_OTHER, 19, "periodic-other");
	check_seen(&batch, SCHED_BATCH, 17, "paced-batch");
	check_seen(&idle, SCHED_IDLE, 0, "periodic-idle");
	check_seen(&event, SCHED_OTHER, 18, "ev-other");
	rts_taskset_destroy(set);
}

static void test_nice_where_it_means_nothing_is_refused(void)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = best_effort("fifo-nice", RTS_TASK_PERIODIC, RTS_POLICY_FIFO, 3);
	p.priority = 10;
	check_refused(set, &p, "real-time priority");
	p = best_effort("idle-nice", RTS_TASK_PERIODIC, RTS_POLICY_IDLE, 3);
	check_refused(set, &p, "least weight");
	p = best_effort("nice-30", RTS_TASK_PERIODIC, RTS_POLICY_OTHER, 30);
	check_refused(set, &p, "-20..19");
	rts_taskset_destroy(set);

	CHECK_OK(rts_taskset_create(&set, NULL));
	CHECK_OK(rts_taskset_set_backend(set, "ult:gfp"));
	p = best_effort("ult-batch", RTS_TASK_PERIODIC, RTS_POLICY_BATCH, 0);
	check_refused(set, &p, "ult backend");
	p = best_effort("ult-nice", RTS_TASK_PERIODIC, RTS_POLICY_OTHER, 5);
	check_refused(set, &p, "no kernel policy, nice, slice");
	rts_taskset_destroy(set);
}

/* Drop CAP_SYS_NICE from the calling process's effective set (no-op without it). */
static int drop_sys_nice(void)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &header, data))
		return -1;
	data[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
	return (int)syscall(SYS_capset, &header, data);
}

static void test_a_lower_nice_without_the_right_is_explained(void)
{
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		const struct rlimit none = { 0, 0 };
		if (setrlimit(RLIMIT_NICE, &none) || drop_sys_nice())
			_exit(2);
		rts_taskset_t *set;
		if (rts_taskset_create(&set, NULL))
			_exit(3);
		int me = getpriority(PRIO_PROCESS, 0);
		struct rts_task_params p = best_effort("greedy", RTS_TASK_PERIODIC,
							   RTS_POLICY_OTHER, me > -20 ? me - 1 : -20);
		struct seen s = { 0 };
		int err = rts_task_create(set, &p, observe, &s, NULL);
		const char *why = rts_taskset_error(set);
		int ok = err == EPERM && strstr(why, "greedy") && strstr(why, "CAP_SYS_NICE") &&
			 strstr(why, "RLIMIT_NICE");
		if (!ok)
			fprintf(stderr, "err %d: %s\n", err, why);
		_exit(ok ? 0 : 1);
	}
	int status = 0;
	CHECK(waitpid(child, &status, 0) == child);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

static const struct h_case cases[] = {
	H_CASE(test_policies_and_nice_are_the_kernel_threads, 10000),
	H_CASE(test_nice_where_it_means_nothing_is_refused, 5000),
	H_CASE(test_a_lower_nice_without_the_right_is_explained, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
