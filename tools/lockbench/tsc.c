/* SPDX-License-Identifier: MIT */
#include "tsc.h"

#include <cpuid.h>
#include <time.h>
#include "clock_ns.h"

bool lb_tsc_usable(const char **why_not)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007) {
		*why_not = "the CPU reports no extended CPUID leaves (rdtscp, invariant TSC)";
		return false;
	}
	__get_cpuid(0x80000001, &a, &b, &c, &d);
	if (!(d & (1u << 27))) {
		*why_not = "the CPU has no rdtscp instruction";
		return false;
	}
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	if (!(d & (1u << 8))) {
		*why_not = "the TSC is not invariant (constant_tsc/nonstop_tsc): cycles are not time";
		return false;
	}
	return true;
}

/* A (CLOCK_MONOTONIC ns, TSC) pair read as close together as possible. */
static void paired_read(int64_t *ns, uint64_t *tsc)
{
	int64_t best_gap = INT64_MAX;
	*ns = 0;
	*tsc = 0;
	for (int i = 0; i < 16; i++) {
		int64_t before = clock_ns(CLOCK_MONOTONIC);
		uint64_t t = lb_tsc();
		int64_t after = clock_ns(CLOCK_MONOTONIC);
		if (after - before < best_gap) {
			best_gap = after - before;
			*ns = before + (after - before) / 2;
			*tsc = t;
		}
	}
}

double lb_tsc_calibrate_hz(unsigned duration_ms)
{
	int64_t ns0, ns1;
	uint64_t tsc0, tsc1;
	paired_read(&ns0, &tsc0);
	struct timespec sleep = { .tv_sec = duration_ms / 1000,
				  .tv_nsec = (long)(duration_ms % 1000) * 1000000 };
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &sleep, &sleep) != 0)
		;
	paired_read(&ns1, &tsc1);
	return (double)(tsc1 - tsc0) * 1e9 / (double)(ns1 - ns0);
}
