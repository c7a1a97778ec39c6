/* SPDX-License-Identifier: MIT */
#include "busy.h"
#include "clock_ns.h"

void run_busy_ns(int64_t ns)
{
	int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (volatile int spin = 0; spin < 200; spin++)
			;
}
