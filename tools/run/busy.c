/* SPDX-License-Identifier: MIT */
#include <rtsched/task.h>

#include "busy.h"

void run_busy_ns(int64_t ns)
{
	int64_t end = rts_task_cputime_ns() + ns;
	while (rts_task_cputime_ns() < end)
		for (volatile int spin = 0; spin < 200; spin++)
			;
}
