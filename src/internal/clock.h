/* SPDX-License-Identifier: MIT */
/*
 * The clocks the library reads, in ns: inline, so that every layer (the
 * task loop, the ult backend's reservations) reads them without calling
 * into another layer's file (src/layers.txt).
 */
#ifndef RTS_INTERNAL_CLOCK_H
#define RTS_INTERNAL_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "internal/timespec.h"

static inline int64_t rts_monotonic_now_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return rts_timespec_to_ns(&now);
}

/* The calling kernel thread's CPU time. */
static inline int64_t rts_thread_cputime_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return rts_timespec_to_ns(&now);
}

#endif
