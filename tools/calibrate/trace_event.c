/* SPDX-License-Identifier: MIT */
#include "measures.h"
#include "clock_ns.h"
#include "pinned.h"
#include "pinned_thread.h"

#include <rtsched/trace.h>

#include <errno.h>
#include <stdio.h>

#define WARMUP_EVENTS 1024u

/* Median cost of two CLOCK_MONOTONIC reads in a row. */
static uint64_t clock_pair_ns(void)
{
	struct cal_samples pairs;
	if (cal_samples_init(&pairs, 10001))
		return 0;
	for (int i = 0; i < 10001; i++) {
		uint64_t a = (uint64_t)clock_ns(CLOCK_MONOTONIC);
		cal_samples_add(&pairs, (uint64_t)clock_ns(CLOCK_MONOTONIC) - a);
	}
	uint64_t median = cal_samples_median(&pairs);
	cal_samples_free(&pairs);
	return median;
}

int cal_trace_event(const struct cal_options *o, struct cal_samples *event_ns, uint64_t *lost,
		    char *why, size_t why_len)
{
	(void)o; /* the caller is already on the CPU at the priority */
	uint32_t ring = 1;
	while (ring < event_ns->capacity + WARMUP_EVENTS && ring < RTS_TRACE_MAX_BUFFER_EVENTS)
		ring <<= 1;
	char reason[256] = "";
	struct rts_trace_config cfg = {
		.path = "/dev/null",
		.name = "calibrate",
		.buffer_events = ring,
		.drain_period_ns = 10000000, /* 10 ms */
		.error_buf = reason,
		.error_buf_size = sizeof(reason),
	};
	struct rts_trace *trace;
	struct rts_trace_stream *stream;
	int err = rts_trace_open(&trace, &cfg);
	if (err) {
		snprintf(why, why_len, "rts_trace_open: %s", reason);
		return err;
	}
	if ((err = rts_trace_stream_add(trace, -1, "calibrate", 0, 0, &stream))) {
		snprintf(why, why_len, "rts_trace_stream_add");
		rts_trace_close(trace);
		return err;
	}
	rts_trace_stream_bind(stream);
	if ((err = rts_trace_start(trace, 0, 0))) {
		snprintf(why, why_len, "rts_trace_start");
		rts_trace_close(trace);
		return err;
	}
	uint64_t pair = clock_pair_ns();
	for (uint32_t i = 0; i < WARMUP_EVENTS; i++)
		rts_trace_event(stream, RTS_EV_MARKER, i, 0, 0);
	cal_pause_ns(20000000); /* drained once */
	for (uint32_t i = 0; event_ns->n < event_ns->capacity; i++) {
		uint64_t t0 = (uint64_t)clock_ns(CLOCK_MONOTONIC);
		rts_trace_event(stream, RTS_EV_MARKER, i, 1, 2);
		uint64_t t = (uint64_t)clock_ns(CLOCK_MONOTONIC) - t0;
		cal_samples_add(event_ns, t > pair ? t - pair : 0);
		if (i % 65536 == 65535)
			cal_pause_ns(CAL_PAUSE_NS); /* RT throttling */
	}
	*lost = rts_trace_lost_events(trace);
	rts_trace_stream_bind(NULL);
	if ((err = rts_trace_close(trace)))
		snprintf(why, why_len, "rts_trace_close: %s", reason);
	return err;
}
