/* SPDX-License-Identifier: MIT */
/* The simulated trace file (trace_file.h). */
#include "trace_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CLOCK_FIELD_MONOTONIC 1u /* the header's clock field: trace_writer.py's _CLOCK_MONOTONIC */

static size_t cut(size_t len, size_t field_size)
{
	return len < field_size - 1 ? len : field_size - 1; /* a NUL always ends the field */
}

/* Returns 0, or an errno value. */
static int write_all(FILE *f, const struct sim_spec *spec, const struct sim_result *result)
{
	struct rts_trace_file_header header = {
		.version = RTS_TRACE_VERSION,
		.header_size = sizeof(struct rts_trace_file_header),
		.stream_record_size = sizeof(struct rts_trace_stream_record),
		.event_size = sizeof(struct rts_trace_event_rec),
		.clock = CLOCK_FIELD_MONOTONIC,
		.n_streams = (uint32_t)spec->n_tasks,
		.t0_ns = 0,
		.duration_ns = spec->duration_ns,
	};
	memcpy(header.magic, RTS_TRACE_MAGIC, sizeof(header.magic));
	memcpy(header.name, spec->name, cut(spec->name_len, sizeof(header.name)));
	if (fwrite(&header, sizeof(header), 1, f) != 1)
		return errno ? errno : EIO;
	for (size_t i = 0; i < spec->n_tasks; i++) {
		const struct sim_spec_task *task = &spec->tasks[i];
		struct rts_trace_stream_record stream = {
			.stream_id = (uint32_t)i,
			.task_id = (int32_t)i,
			.tid = task->tid,
			.capacity = (uint32_t)result->traces[i].n,
			.period_ns = task->period_ns,
			.deadline_ns = task->deadline_ns,
		};
		memcpy(stream.name, task->name, cut(task->name_len, sizeof(stream.name)));
		if (fwrite(&stream, sizeof(stream), 1, f) != 1)
			return errno ? errno : EIO;
	}
	for (size_t i = 0; i < spec->n_tasks; i++) {
		const struct sim_trace *trace = &result->traces[i];
		struct rts_trace_chunk_header chunk = {
			.magic = RTS_TRACE_CHUNK_MAGIC, .stream_id = (uint32_t)i, .n_events = (uint32_t)trace->n};
		if (fwrite(&chunk, sizeof(chunk), 1, f) != 1)
			return errno ? errno : EIO;
		int error = sim_trace_copy_out(trace, f);
		if (error)
			return error;
	}
	return 0;
}

int sim_trace_write(const char *path, const struct sim_spec *spec, const struct sim_result *result)
{
	for (size_t i = 0; i < spec->n_tasks; i++)
		if (result->traces[i].n > UINT32_MAX)
			return EOVERFLOW; /* a chunk counts its events in 32 bits */
	FILE *f = fopen(path, "wb");
	if (!f)
		return errno;
	errno = 0;
	int error = write_all(f, spec, result);
	if (fclose(f) && !error)
		error = errno ? errno : EIO;
	return error;
}
