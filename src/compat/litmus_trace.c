/* SPDX-License-Identifier: MIT */
/*
 * rtsched traces of LITMUS tasks (RTSCHED_LITMUS_TRACE=DIR), the events that
 * rtsched's own tasks record (docs/trace-format.md), so that rtsched's job
 * table and its st-job-stats CSV read them (python -m rtsched.litmus.jobstats).
 *
 * One session per task, opened by task_mode and closed when the task leaves
 * real-time mode: LITMUS tasks appear one by one, in any process, while a
 * session's streams are fixed when it starts. Its stream is task 0, named
 * "PROGRAM/TID", with the task's period and relative deadline; a MARKER
 * (LITMUS_TRACE_COST_MARKER) carries exec_cost. Per job: RELEASE at the
 * nominal release (arg1: absolute deadline), START once it may run,
 * COMPLETE at its end (arg1: CPU time), DEADLINE_MISS if late.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtsched/trace.h>

#include "litmus_internal.h"

static int64_t relative_deadline_ns(const struct rt_task *p)
{
	return (int64_t)(p->relative_deadline ? p->relative_deadline : p->period);
}

int litmus_trace_open(struct litmus_thread *self)
{
	const char *dir = getenv("RTSCHED_LITMUS_TRACE");
	if (!dir || !*dir)
		return 0;
	char path[512], name[64], why[256] = "";
	snprintf(path, sizeof(path), "%s/litmus-%d-%d.rtst", dir, (int)getpid(), (int)gettid());
	snprintf(name, sizeof(name), "%.20s/%d", program_invocation_short_name, (int)gettid());
	struct rts_trace_config config = { .path = path, .name = name, .buffer_events = 4096,
					   .error_buf = why, .error_buf_size = sizeof(why) };
	int err = rts_trace_open(&self->trace, &config);
	if (!err)
		err = rts_trace_stream_add(self->trace, 0, name, (int64_t)self->params.period,
					   relative_deadline_ns(&self->params), &self->stream);
	/* Bound before the start writes the stream table: the file names the
	 * thread even if the program is killed before task_mode(BACKGROUND_TASK). */
	if (!err)
		rts_trace_stream_bind(self->stream);
	if (!err)
		err = rts_trace_start(self->trace, 0, 0);
	if (err) {
		if (self->trace)
			rts_trace_close(self->trace);
		self->trace = NULL;
		self->stream = NULL;
		rts_trace_stream_bind(NULL);
		return litmus_fail(err, "RTSCHED_LITMUS_TRACE: %s: %s", path,
				   why[0] ? why : strerror(err));
	}
	rts_trace_event(self->stream, RTS_EV_MARKER, 0, LITMUS_TRACE_COST_MARKER,
			(int64_t)self->params.exec_cost);
	return 0;
}

/* Once per job: wait_for_ts_release ends the job when the wait begins, so
 * the wait for the release is no job's response; litmus_job_begin then
 * finds it ended. */
void litmus_trace_job_end(struct litmus_thread *self)
{
	if (!self->stream || self->job_no == 0 || self->trace_ended_job == self->job_no)
		return;
	self->trace_ended_job = self->job_no;
	int64_t now = litmus_now_ns(), deadline = self->release_ns + relative_deadline_ns(&self->params);
	rts_trace_event(self->stream, RTS_EV_COMPLETE, self->job_no, 0,
			litmus_thread_cpu_ns() - self->job_cpu_start_ns);
	if (now > deadline)
		rts_trace_event(self->stream, RTS_EV_DEADLINE_MISS, self->job_no, 0, now - deadline);
}

void litmus_trace_job_release(struct litmus_thread *self)
{
	if (self->stream)
		rts_trace_event_at(self->stream, self->release_ns, RTS_EV_RELEASE, self->job_no, 0,
				   self->release_ns + relative_deadline_ns(&self->params));
}

void litmus_trace_job_start(struct litmus_thread *self)
{
	if (self->stream)
		rts_trace_event(self->stream, RTS_EV_START, self->job_no, 0, 0);
}

void litmus_trace_close(struct litmus_thread *self)
{
	if (!self->trace)
		return;
	rts_trace_event(self->stream, RTS_EV_TASK_EXIT, self->job_no, 0,
			self->job_no > 0 ? self->job_no - 1 : 0);
	rts_trace_stream_bind(NULL);
	rts_trace_close(self->trace);
	self->trace = NULL;
	self->stream = NULL;
}
