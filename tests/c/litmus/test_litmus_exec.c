/* SPDX-License-Identifier: MIT */
/*
 * A task that execs stays the task, as liblitmus's rt_launch relies on:
 * the new image (this program again, with --exec-image) is SCHED_LITMUS,
 * has the parameters, continues the job numbers and runs on the task's
 * CPU; after task_mode(BACKGROUND_TASK), or in a forked child, an exec'd
 * image is no task. A process that used the release word and a lock file
 * and execs a program without -llitmus leaves nothing in /dev/shm. Outcomes only,
 * never times.
 */
#include "litmus_helpers.h"

#include <sys/syscall.h>

#define CHILD_BOUND_MS 5000
#define COST_NS ms2ns(1)
#define PERIOD_NS ms2ns(10)
#define PRIORITY 30

static void exec_image(const char *mode, int cpu)
{
	char cpu_arg[16];
	snprintf(cpu_arg, sizeof(cpu_arg), "%d", cpu);
	execl("/proc/self/exe", "test_litmus_exec", "--exec-image", mode, cpu_arg, (char *)NULL);
	_exit(98);
}

/* The images' checks: exit 0, or the number of the first that failed (on stderr). */
#define IMAGE_CHECK(n, cond)                                                              \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "exec image: %s failed (%s: %s)\n", #cond,         \
				strerror(errno), litmus_last_error());                     \
			return n;                                                         \
		}                                                                         \
	} while (0)

/* Exec'd by a task that ran job 1 and began job 2: it is that task. */
static int image_task(int cpu)
{
	unsigned int job = 0;
	struct rt_task p;
	IMAGE_CHECK(10, sched_getscheduler(0) == SCHED_LITMUS);
	IMAGE_CHECK(11, get_job_no(&job) == 0 && job == 2);
	IMAGE_CHECK(12, get_rt_task_param(0, &p) == 0);
	IMAGE_CHECK(13, p.exec_cost == COST_NS && p.period == PERIOD_NS && p.priority == PRIORITY);
	IMAGE_CHECK(14, sleep_next_period() == 0 && get_job_no(&job) == 0 && job == 3);
	IMAGE_CHECK(15, cpu < 0 || sched_getcpu() == cpu);
	IMAGE_CHECK(16, task_mode(BACKGROUND_TASK) == 0);
	IMAGE_CHECK(17, syscall(SYS_sched_getscheduler, 0) == SCHED_OTHER);
	exec_image("none", -1);
	return 18;
}

/* Exec'd by a process that is no task: nothing carried. */
static int image_none(void)
{
	unsigned int job;
	IMAGE_CHECK(20, getenv("RTSCHED_LITMUS_EXEC") == NULL);
	IMAGE_CHECK(21, get_job_no(&job) == -1 && errno == EPERM);
	IMAGE_CHECK(22, sleep_next_period() == -1 && errno == EINVAL);
	IMAGE_CHECK(23, sched_getscheduler(0) == SCHED_OTHER);
	return 0;
}

static void become_task(int cpu)
{
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = COST_NS;
	p.period = PERIOD_NS;
	p.priority = PRIORITY;
	p.cpu = (unsigned)cpu;
	if (set_rt_task_param(gettid(), &p) != 0 || task_mode(LITMUS_RT_TASK) != 0) {
		fprintf(stderr, "task_mode: %s\n", litmus_last_error());
		_exit(97);
	}
}

/* A task execs itself, after job 1; the image then leaves real-time mode and execs again. */
static void exec_keeps_task(const char *plugin, bool pinned)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	use_plugin(plugin);
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		become_task(rt_cpu);
		if (sleep_next_period() != 0)
			_exit(96);
		exec_image("task", pinned ? rt_cpu : -1);
	}
	expect_exit_0_within(child, CHILD_BOUND_MS, "the exec'd task");
}

static void test_exec_keeps_pfp_task(void)
{
	exec_keeps_task("P-FP", true);
}

static void test_exec_keeps_gsn_edf_task(void)
{
	exec_keeps_task("GSN-EDF", false);
}

/* LITMUS^RT: a task's child is no task, nor is what it execs. */
static void test_exec_in_forked_child_is_no_task(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		become_task(rt_cpu);
		pid_t grandchild = fork();
		if (grandchild == 0)
			exec_image("none", -1);
		int status;
		waitpid(grandchild, &status, 0);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 95);
	}
	expect_exit_0_within(child, CHILD_BOUND_MS, "the task's forked child's image");
}

/*
 * The last user of the release word and of a lock file's table execs a
 * program without -llitmus: both objects go, as at its exit.
 */
static void test_exec_leaves_shared_objects(void)
{
	char ts[96], shm[128], path[64], table[128];
	use_plugin("P-FP");
	use_private_ts(ts, sizeof(ts));
	snprintf(shm, sizeof(shm), "/dev/shm/%s", ts);
	int fd = make_namespace(path, sizeof(path));
	struct stat st;
	CHECK_SYS(fstat(fd, &st));
	snprintf(table, sizeof(table), "/dev/shm/rtsched-litmus-lk.%llx.%llx",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		lt_t now = litmus_clock();
		if (release_ts(&now) != 0 || open_fmlp_sem(fd, 0) < 0)
			exit(94); /* exit, not _exit: what it opened goes */
		if (access(shm, F_OK) != 0 || access(table, F_OK) != 0)
			exit(93); /* they exist while the process uses them */
		execl("/bin/true", "true", (char *)NULL);
		_exit(92);
	}
	expect_exit_0_within(child, CHILD_BOUND_MS, "the objects' user");
	bool ts_left = access(shm, F_OK) == 0, table_left = access(table, F_OK) == 0;
	unlink_ts(ts);
	unlink_namespace(path, fd);
	CHECK_MSG(!ts_left, "%s outlived its only user's exec", shm);
	CHECK_MSG(!table_left, "%s outlived its only user's exec", table);
}

static const struct h_case cases[] = {
	H_CASE(test_exec_keeps_pfp_task, 10000),
	H_CASE(test_exec_keeps_gsn_edf_task, 10000),
	H_CASE(test_exec_in_forked_child_is_no_task, 10000),
	H_CASE(test_exec_leaves_shared_objects, 10000),
};

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--exec-image") == 0)
		return strcmp(argv[2], "task") == 0 ? image_task(atoi(argv[3])) : image_none();
	return h_main(argc, argv, cases, H_NCASES(cases));
}
