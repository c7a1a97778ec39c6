/* SPDX-License-Identifier: MIT */
/* Clocks: LITMUS^RT's time is CLOCK_MONOTONIC in nanoseconds. */
#include <errno.h>
#include <time.h>

#include "litmus_internal.h"

static int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t litmus_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

int64_t litmus_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void litmus_sleep_until_ns(int64_t when_ns)
{
	struct timespec ts = { .tv_sec = when_ns / 1000000000, .tv_nsec = when_ns % 1000000000 };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

LITMUS_EXPORT lt_t litmus_clock(void)
{
	return (lt_t)litmus_now_ns();
}

LITMUS_EXPORT int lt_sleep(lt_t timeout)
{
	litmus_sleep_until_ns(litmus_now_ns() + (int64_t)timeout);
	return 0;
}

LITMUS_EXPORT void lt_sleep_until(lt_t wake_up_time)
{
	litmus_sleep_until_ns((int64_t)wake_up_time);
}

LITMUS_EXPORT double cputime(void)
{
	return 1e-9 * (double)clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

LITMUS_EXPORT double wctime(void)
{
	return 1e-9 * (double)clock_ns(CLOCK_REALTIME);
}

LITMUS_EXPORT double monotime(void)
{
	return 1e-9 * (double)clock_ns(CLOCK_MONOTONIC);
}

static void sleep_until_s(clockid_t clock, double when_s)
{
	if (when_s <= 0)
		return;
	struct timespec ts = { .tv_sec = (time_t)when_s };
	ts.tv_nsec = (long)((when_s - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(clock, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

LITMUS_EXPORT void sleep_until_mono(double wake_up_time)
{
	sleep_until_s(CLOCK_MONOTONIC, wake_up_time);
}

LITMUS_EXPORT void sleep_until_wc(double wake_up_time)
{
	sleep_until_s(CLOCK_REALTIME, wake_up_time);
}
