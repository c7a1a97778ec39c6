/* SPDX-License-Identifier: MIT */
/*
 * The measurements. Each is called from a thread already pinned to the
 * measured CPU and running SCHED_FIFO at the options' priority; it fills
 * its samples (ns) and returns 0, or an error number with the failed step in
 * why. Every thread it starts is joined before it returns.
 */
#ifndef CALIBRATE_MEASURES_H
#define CALIBRATE_MEASURES_H

#include "options.h"
#include "samples.h"

#include <stddef.h>
#include <stdint.h>

/*
 * A futex wake + wait between the caller and a thread of equal priority on
 * the same CPU (equal: the woken thread waits until the waker blocks, so
 * each half round trip is exactly one switch). One sample per round trip:
 * half of it, rounded up.
 */
int cal_context_switch(const struct cal_options *o, struct cal_samples *switch_ns,
		       char *why, size_t why_len);

/*
 * rts_rpc_call (PI-CV on) from the caller to a server thread one priority
 * lower on the same CPU that replies at once. Per call: round_trip_ns, the
 * call's wall time minus the server's service time (from rts_rpc_receive's
 * return to rts_rpc_reply); client_cpu_ns, the caller's own CPU time in the
 * call, less the median cost of reading that clock.
 */
int cal_rpc_call(const struct cal_options *o, struct cal_samples *round_trip_ns,
		 struct cal_samples *client_cpu_ns, char *why, size_t why_len);

/*
 * One rts_trace_event (a session writing to /dev/null, its ring large
 * enough never to drop, its drain thread running) timed alone, less the
 * median cost of an empty pair of clock reads. *lost: events the session
 * dropped (0 expected).
 */
int cal_trace_event(const struct cal_options *o, struct cal_samples *event_ns, uint64_t *lost,
		    char *why, size_t why_len);

#endif
