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

/* The same instant on CLOCK_REALTIME (for kernels without FUTEX_LOCK_PI2). */
static inline struct timespec rts_timespec_monotonic_to_realtime(const struct timespec *mono)
{
	struct timespec now_mono, now_real;
	clock_gettime(CLOCK_MONOTONIC, &now_mono);
	clock_gettime(CLOCK_REALTIME, &now_real);
	int64_t left_ns = rts_timespec_to_ns(mono) - rts_timespec_to_ns(&now_mono);
	if (left_ns < 0)
		left_ns = 0;
	return rts_ns_to_timespec(rts_timespec_to_ns(&now_real) + left_ns);
}

/* The same instant on CLOCK_MONOTONIC (a CLOCK_REALTIME deadline, for futexes that only take monotonic ones). */
static inline struct timespec rts_timespec_realtime_to_monotonic(const struct timespec *real)
{
	struct timespec now_mono, now_real;
	clock_gettime(CLOCK_MONOTONIC, &now_mono);
	clock_gettime(CLOCK_REALTIME, &now_real);
	int64_t left_ns = rts_timespec_to_ns(real) - rts_timespec_to_ns(&now_real);
	if (left_ns < 0)
		left_ns = 0;
	return rts_ns_to_timespec(rts_timespec_to_ns(&now_mono) + left_ns);
}

#endif
