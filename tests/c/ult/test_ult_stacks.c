/* SPDX-License-Identifier: MIT */
/*
 * A task's stack size (rts_task_params.stack_bytes) on both backends. A job
 * that recurses through DEPTH_BYTES of frames completes on a stack larger
 * than that, and on the backend's default stack; on a smaller one it runs
 * into the guard page below the stack and its process dies of SIGSEGV (each
 * run is a fork()ed child, so the fault ends the child, never the test).
 * Under ult the stack is the ULT's own mmap'd one; under threads the kernel
 * thread's (pthread_attr_setstacksize). The ult cases need real-time
 * privilege (the workers are SCHED_FIFO) and skip without it.
 */
#include <rtsched/task.h>

#include "harness.h"

#define MS (1000 * 1000LL)
#define KIB ((size_t)1024)
/* What the job's recursion uses: between the small and the large stack below. */
#define DEPTH_BYTES (96 * KIB)
#define SMALL_STACK_BYTES (64 * KIB)
#define LARGE_STACK_BYTES (192 * KIB)
#define FRAME_BYTES 1024
/* Exit codes of the child other than a clean 0. */
#define CHILD_SKIP 77
#define CHILD_FAILED 3

__attribute__((noinline)) static int recurse(int frames)
{
	volatile char pad[FRAME_BYTES];
	pad[0] = (char)frames;
	pad[FRAME_BYTES - 1] = (char)frames;
	return frames <= 0 ? pad[0] : recurse(frames - 1) + pad[FRAME_BYTES - 1];
}

static atomic_int job_sum;

static void deep_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job, (void)arg;
	atomic_store(&job_sum, recurse((int)(DEPTH_BYTES / FRAME_BYTES)));
}

/*
 * In a child: one task with a stack of stack_bytes (0: the default) runs one
 * deep job under backend, then the child exits 0. Returns the child's
 * wait status; SKIPs when the child could not get real-time privilege.
 */
static int run_deep_job(const char *backend, size_t stack_bytes)
{
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		rts_taskset_t *set;
		if (rts_taskset_create(&set, NULL) != 0 || rts_taskset_set_backend(set, backend) != 0)
			_exit(CHILD_FAILED);
		cpu_set_t cpus;
		CPU_ZERO(&cpus);
		CPU_SET(sched_getcpu(), &cpus);
		struct rts_task_params p = {.name = "deep", .kind = RTS_TASK_PERIODIC,
					    .period_ns = 10 * MS, .deadline_ns = 10 * MS,
					    .policy = RTS_POLICY_OTHER, .cpus = &cpus, .max_jobs = 1,
					    .stack_bytes = stack_bytes};
		int err = rts_task_create(set, &p, deep_job, NULL, NULL);
		if (err) {
			fprintf(stderr, "%s\n", rts_taskset_error(set));
			_exit(err == EPERM ? CHILD_SKIP : CHILD_FAILED);
		}
		if (rts_taskset_release(set, clock_ns(CLOCK_MONOTONIC) + MS) != 0 ||
		    rts_taskset_join(set) != 0)
			_exit(CHILD_FAILED);
		rts_taskset_destroy(set);
		_exit(atomic_load(&job_sum) != 0 ? 0 : CHILD_FAILED);
	}
	int status;
	CHECK_EQ(waitpid(child, &status, 0), child);
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_SKIP)
		SKIP("the ult backend's workers need SCHED_FIFO (EPERM)");
	return status;
}

static void expect_completes(const char *backend, size_t stack_bytes)
{
	int status = run_deep_job(backend, stack_bytes);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "%s, stack %zu: a %zu-byte recursion should complete (status 0x%x)", backend,
		  stack_bytes, DEPTH_BYTES, status);
}

static void expect_guard_page_fault(const char *backend, size_t stack_bytes)
{
	int status = run_deep_job(backend, stack_bytes);
	CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
		  "%s, stack %zu: a %zu-byte recursion should die of SIGSEGV (status 0x%x)", backend,
		  stack_bytes, DEPTH_BYTES, status);
}

static void skip_under_sanitizers(void)
{
#if defined(__SANITIZE_ADDRESS__)
	SKIP("ASan catches the overflow itself");
#endif
	if (H_TSAN)
		SKIP("TSan catches the overflow itself");
}

static void test_ult_small_stack_hits_its_guard_page(void)
{
	skip_under_sanitizers();
	expect_completes("ult:pedf", 0); /* 256 KiB */
	expect_completes("ult:pedf", LARGE_STACK_BYTES);
	expect_guard_page_fault("ult:pedf", SMALL_STACK_BYTES);
}

static void test_threads_small_stack_hits_its_guard_page(void)
{
	skip_under_sanitizers();
	expect_completes("threads", 0); /* glibc's default, 8 MiB here */
	expect_completes("threads", LARGE_STACK_BYTES);
	expect_guard_page_fault("threads", SMALL_STACK_BYTES);
}

static const struct h_case cases[] = {
	H_CASE(test_ult_small_stack_hits_its_guard_page, 20000),
	H_CASE(test_threads_small_stack_hits_its_guard_page, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
