/* SPDX-License-Identifier: MIT */
/* What the measurements share: pauses between batches (clocks and pinned SCHED_FIFO threads:
 * tools/common/clock_ns.h, pinned_thread.h). */
#ifndef CALIBRATE_PINNED_H
#define CALIBRATE_PINNED_H

#include <stdint.h>

/*
 * Sleep ns. The measurements pause between batches so that a SCHED_FIFO
 * thread never runs long enough to meet the kernel's RT throttling
 * (sched_rt_runtime_us, 95% of each second by default).
 */
void cal_pause_ns(uint64_t ns);

/* Round trips (or calls) timed back to back before a pause. */
#define CAL_BATCH 256u
#define CAL_PAUSE_NS 1000000u

#endif
