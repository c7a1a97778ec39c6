/* SPDX-License-Identifier: MIT */
#include "pinned.h"

#include <errno.h>
#include <time.h>

#include "clock_ns.h"

void cal_pause_ns(uint64_t ns)
{
	struct timespec ts = ns_timespec((int64_t)ns);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
