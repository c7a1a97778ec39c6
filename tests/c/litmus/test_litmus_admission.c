/* SPDX-License-Identifier: MIT */
/*
 * A thread of another process made a LITMUS task, as liblitmus's
 * core_api.c tests do it (suspended_admission, running_admission):
 * set_rt_task_param(child), sched_setscheduler(child, SCHED_LITMUS); the
 * parent sees SCHED_LITMUS at once, the child at its next
 * sched_getscheduler or sleep_next_period, and runs jobs. Requests the
 * child cannot take up fail in the child with the reason, never hang (each
 * wait here is bounded). Orders and outcomes only, never times.
 */
#include "litmus_helpers.h"


#define CHILD_BOUND_MS 5000

static struct rt_task params_on(int cpu, unsigned prio)
{
	struct rt_task p;
	init_rt_task_param(&p);
	p.cpu = (unsigned)cpu;
	p.exec_cost = ms2ns(1);
	p.period = ms2ns(10);
	p.priority = prio;
	return p;
}

static void admit(pid_t child, const struct rt_task *p)
{
	struct rt_task mine = *p, back;
	LCHECK_OK(set_rt_task_param(child, &mine));
	LCHECK_OK(get_rt_task_param(child, &back));
	CHECK(memcmp(&back, p, sizeof(back)) == 0);
	CHECK(sched_getscheduler(child) != SCHED_LITMUS); /* parameters alone */
	struct sched_param sp = { .sched_priority = 0 };
	LCHECK_OK(sched_setscheduler(child, SCHED_LITMUS, &sp));
	CHECK_EQ(sched_getscheduler(child), SCHED_LITMUS);
}

/* The child's part, after it is told: a LITMUS task that runs two jobs. */
static void child_runs_jobs(void)
{
	unsigned int job;
	LCHECK_OK(sleep_next_period());
	LCHECK_OK(get_job_no(&job));
	CHECK_EQ(job, 2u);
	LCHECK_OK(sleep_next_period());
	exit(0);
}

/* suspended_admission: the child blocks in read() while it is admitted. */
static void test_suspended_child_admitted(void)
{
	int rt_cpu, pipefd[2], token = 0;
	char ts[64];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	use_private_ts(ts, sizeof(ts));
	CHECK_SYS(pipe(pipefd));
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		CHECK(read(pipefd[0], &token, sizeof(token)) == (ssize_t)sizeof(token));
		CHECK_EQ(sched_getscheduler(0), SCHED_LITMUS);
		CHECK_EQ(sched_getscheduler(gettid()), SCHED_LITMUS);
		child_runs_jobs();
	}
	struct rt_task p = params_on(rt_cpu, 10);
	admit(child, &p);
	token = 1234;
	CHECK(write(pipefd[1], &token, sizeof(token)) == (ssize_t)sizeof(token));
	expect_exit_0_within(child, CHILD_BOUND_MS, "the admitted child");
	unlink_ts(ts);
}

/* running_admission: the child polls sched_getscheduler until it is a task (bounded here). */
static void test_running_child_admitted(void)
{
	int rt_cpu;
	char ts[64];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	use_private_ts(ts, sizeof(ts));
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		int polls = 0;
		while (sched_getscheduler(0) != SCHED_LITMUS) {
			if (++polls > CHILD_BOUND_MS)
				FAIL("not a task after %d polls", polls);
			usleep(1000);
		}
		child_runs_jobs();
	}
	struct rt_task p = params_on(rt_cpu, 10);
	admit(child, &p);
	expect_exit_0_within(child, CHILD_BOUND_MS, "the polling child");
	unlink_ts(ts);
}

/* A child that never asks: its sleep_next_period takes the request up. */
static void test_sleep_next_period_takes_it_up(void)
{
	int rt_cpu, pipefd[2], token = 0;
	char ts[64];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	use_private_ts(ts, sizeof(ts));
	CHECK_SYS(pipe(pipefd));
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		CHECK(read(pipefd[0], &token, sizeof(token)) == (ssize_t)sizeof(token));
		child_runs_jobs();
	}
	struct rt_task p = params_on(rt_cpu, 10);
	admit(child, &p);
	CHECK(write(pipefd[1], &token, sizeof(token)) == (ssize_t)sizeof(token));
	expect_exit_0_within(child, CHILD_BOUND_MS, "the child");
	unlink_ts(ts);
}

/*
 * Refusals: no parameters, the Linux plugin, another thread of this
 * process, and parameters the child's task_mode refuses (a P-FP priority
 * without a SCHED_FIFO level): the child's sched_getscheduler fails with
 * the reason instead of answering SCHED_LITMUS. Other policies pass through.
 */
static void test_refusals(void)
{
	int rt_cpu, pipefd[2], token = 0;
	char ts[64];
	h_require_rt(&rt_cpu, NULL);
	use_private_ts(ts, sizeof(ts));
	struct sched_param sp = { .sched_priority = 0 };
	CHECK_OK(sched_setscheduler(0, SCHED_OTHER, &sp)); /* the kernel's, as glibc's */
	CHECK_EQ(sched_getscheduler(0), SCHED_OTHER);
	use_plugin("P-FP"); /* the child's, where task_mode runs */
	CHECK_SYS(pipe(pipefd));
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		CHECK(read(pipefd[0], &token, sizeof(token)) == (ssize_t)sizeof(token));
		LCHECK_FAILS(EINVAL, sched_getscheduler(0));
		CHECK(strstr(litmus_last_error(), "priority") != NULL);
		CHECK_EQ(sched_getscheduler(0), SCHED_OTHER); /* refused once: back to its parameters */
		exit(0);
	}
	LCHECK_FAILS(EINVAL, sched_setscheduler(child, SCHED_LITMUS, &sp)); /* no parameters */
	use_plugin("Linux");
	struct rt_task p = params_on(rt_cpu, 98); /* valid for LITMUS; no SCHED_FIFO level here */
	LCHECK_OK(set_rt_task_param(child, &p));
	LCHECK_FAILS(EINVAL, sched_setscheduler(child, SCHED_LITMUS, &sp));
	use_plugin("P-FP");
	LCHECK_OK(sched_setscheduler(child, SCHED_LITMUS, &sp));
	CHECK(write(pipefd[1], &token, sizeof(token)) == (ssize_t)sizeof(token));
	expect_exit_0_within(child, CHILD_BOUND_MS, "the refused child");
	LCHECK_FAILS(ESRCH, sched_setscheduler(child, SCHED_LITMUS, &sp)); /* gone */
	unlink_ts(ts);
}

static const struct h_case cases[] = {
	H_CASE(test_suspended_child_admitted, 10000),
	H_CASE(test_running_child_admitted, 10000),
	H_CASE(test_sleep_next_period_takes_it_up, 10000),
	H_CASE(test_refusals, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
