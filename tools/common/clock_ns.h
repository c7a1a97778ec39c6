/* SPDX-License-Identifier: MIT */
/*
 * Clocks as integer nanoseconds, for the tools, benchmarks and tests (the
 * library has its own, private: src/internal/timespec.h). Header only, so
 * that benchmarks and tests use it without linking the tools' library.
 */
#ifndef RTSCHED_TOOLS_CLOCK_NS_H
#define RTSCHED_TOOLS_CLOCK_NS_H

#include <stdint.h>
#include <time.h>

#define CLOCK_NS_PER_S 1000000000LL

/* The clock's time in ns (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...). */
static inline int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * CLOCK_NS_PER_S + ts.tv_nsec;
}

/* A timespec as ns. */
static inline int64_t timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * CLOCK_NS_PER_S + ts->tv_nsec;
}

/* ns (>= 0) as a timespec. */
static inline struct timespec ns_timespec(int64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / CLOCK_NS_PER_S), .tv_nsec = (long)(ns % CLOCK_NS_PER_S) };
}

#endif
