/* SPDX-License-Identifier: MIT */
/*
 * A LITMUS^RT program in the manner of liblitmus's tests/ (SYSCALL /
 * SYSCALL_FAILS on -1 + errno), unchanged: only <litmus.h>, -llitmus.
 * Run with RTSCHED_LITMUS_PLUGIN=P-FP; exit 77 where SCHED_FIFO is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <litmus.h>

#define fail(what)                                                                     \
	do {                                                                           \
		fprintf(stderr, "TEST FAILURE %s at %s:%d: %m\n", what, __FILE__, __LINE__); \
		exit(200);                                                             \
	} while (0)
#define SYSCALL(call)                                                                  \
	do {                                                                           \
		if ((call) < 0)                                                        \
			fail(#call);                                                   \
	} while (0)
#define SYSCALL_FAILS(expected, call)                                                  \
	do {                                                                           \
		if ((call) >= 0 || errno != (expected))                                \
			fail(#call " (expected " #expected ")");                       \
	} while (0)
#define ASSERT(pred)                                                                   \
	do {                                                                           \
		if (!(pred))                                                           \
			fail(#pred);                                                   \
	} while (0)

static void job_control_non_rt(void)
{
	unsigned int job_no;
	SYSCALL_FAILS(EINVAL, sleep_next_period());
	SYSCALL_FAILS(EINVAL, wait_for_job_release(0));
	SYSCALL_FAILS(EPERM, get_job_no(&job_no));
}

static void lock_pcp(int cpu)
{
	int fd, od;
	char name[] = "/tmp/litmus-app-locks.XXXXXX";
	SYSCALL(fd = mkstemp(name));
	SYSCALL(sporadic_partitioned(ms2ns(1), ms2ns(10), cpu));
	SYSCALL(task_mode(LITMUS_RT_TASK));
	SYSCALL(od = open_pcp_sem(fd, 0, cpu));
	SYSCALL(litmus_lock(od));
	SYSCALL(litmus_unlock(od));
	SYSCALL_FAILS(EINVAL, litmus_unlock(od));
	unsigned int before, after;
	SYSCALL(get_job_no(&before));
	SYSCALL(sleep_next_period());
	SYSCALL(get_job_no(&after));
	ASSERT(after == before + 1);
	SYSCALL(od_close(od));
	SYSCALL(task_mode(BACKGROUND_TASK));
	SYSCALL(close(fd));
	SYSCALL(remove(name));
}

int main(void)
{
	job_control_non_rt();
	SYSCALL(init_litmus());
	int cpu = num_online_cpus() - 1;
	if (sporadic_partitioned(ms2ns(1), ms2ns(10), cpu) == 0 && task_mode(LITMUS_RT_TASK) < 0 &&
	    errno == EPERM) {
		printf("SKIP: %s\n", litmus_last_error());
		return 77;
	}
	SYSCALL(task_mode(BACKGROUND_TASK));
	lock_pcp(cpu);
	exit_litmus();
	printf("litmus app ok\n");
	return 0;
}
