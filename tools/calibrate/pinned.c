/* SPDX-License-Identifier: MIT */
#include "pinned.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

uint64_t cal_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t cal_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cal_pause_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int cal_start_fifo_thread(pthread_t *thread, void *(*fn)(void *), void *arg, int priority, int cpu)
{
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);
	if (err)
		return err;
	struct sched_param sp = {.sched_priority = priority};
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!(err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED)) &&
	    !(err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO)) &&
	    !(err = pthread_attr_setschedparam(&attr, &sp)) &&
	    !(err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set)))
		err = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return err;
}
