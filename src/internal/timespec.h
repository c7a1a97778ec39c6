/* SPDX-License-Identifier: MIT */
#ifndef RTS_INTERNAL_TIMESPEC_H
#define RTS_INTERNAL_TIMESPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define RTS_NSEC_PER_SEC 1000000000L

/* A deadline the kernel accepts: tv_nsec in [0, 1e9), tv_sec >= 0. */
static inline bool rts_timespec_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < RTS_NSEC_PER_SEC;
}

static inline int64_t rts_timespec_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * RTS_NSEC_PER_SEC + ts->tv_nsec;
}

static inline struct timespec rts_ns_to_timespec(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / RTS_NSEC_PER_SEC, .tv_nsec = ns % RTS_NSEC_PER_SEC };
	return ts;
}

/*
 * An absolute deadline on clock `from` as the same instant on clock `to`
 * (CLOCK_MONOTONIC / CLOCK_REALTIME): for kernels without FUTEX_LOCK_PI2, and
 * for futexes that only take monotonic deadlines. A past deadline stays past.
 */
static inline struct timespec rts_timespec_convert(const struct timespec *deadline, clockid_t from,
						   clockid_t to)
{
	struct timespec now_from, now_to;
	clock_gettime(from, &now_from);
	clock_gettime(to, &now_to);
	int64_t left_ns = rts_timespec_to_ns(deadline) - rts_timespec_to_ns(&now_from);
	if (left_ns < 0)
		left_ns = 0;
	return rts_ns_to_timespec(rts_timespec_to_ns(&now_to) + left_ns);
}

#endif
