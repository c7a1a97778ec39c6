/* SPDX-License-Identifier: MIT */
#include "busy.h"

int64_t run_clock_ns(clockid_t clock)
{
	struct timespec now;
	clock_gettime(clock, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

void run_busy_ns(int64_t ns)
{
	int64_t end = run_clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	while (run_clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (volatile int spin = 0; spin < 200; spin++)
			;
}
