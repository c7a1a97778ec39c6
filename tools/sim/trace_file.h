/* SPDX-License-Identifier: MIT */
/*
 * The simulated trace as a `.rtst` file (docs/trace-format.md, version 1),
 * byte for byte what python/rtsched/sim/trace_writer.py writes for the same
 * streams: one stream per task (stream id and task_id its index), each
 * stream's events in one chunk in recorded order, nothing lost, the clock
 * CLOCK_MONOTONIC, t0 0, names cut to 63 and 31 bytes and NUL-padded.
 */
#ifndef RTS_SIM_TRACE_FILE_H
#define RTS_SIM_TRACE_FILE_H

#include "loop.h"
#include "spec.h"

/* Write spec's streams with result's events to path. Returns 0, or an errno value. */
int sim_trace_write(const char *path, const struct sim_spec *spec, const struct sim_result *result);

#endif
