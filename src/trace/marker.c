/* SPDX-License-Identifier: MIT */
/*
 * Mirroring events to ftrace's trace_marker, so that they line up with the
 * kernel's own events (sched_switch, ...) in `trace-cmd` / tracefs output.
 *
 * tracefs is looked up at run time (as rtla does), never at configure time,
 * and never mounted by the library.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal/trace.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

int rts_tracefs_marker_open(char *why, size_t why_size)
{
	int first_err = 0;
	char path[64];
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/trace_marker", tracefs_dirs[i]);
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		int err = errno;
		if (err != ENOENT) {
			/* tracefs is there but refuses us: say so rather than look further. */
			snprintf(why, why_size, "cannot open %s for ftrace markers: %s", path,
				 strerror(err));
			return -err;
		}
		if (!first_err)
			first_err = err;
	}
	snprintf(why, why_size,
		 "ftrace markers requested but tracefs is not mounted (no "
		 "/sys/kernel/tracing/trace_marker nor /sys/kernel/debug/tracing/trace_marker); "
		 "mount it with `mount -t tracefs nodev /sys/kernel/tracing`");
	return -ENOENT;
}

static const char *const type_names[] = {
	[1] = "RELEASE",        [2] = "START",          [3] = "COMPLETE",
	[4] = "DEADLINE_MISS",  [5] = "BUDGET_OVERRUN", [6] = "LOCK_REQUEST",
	[7] = "LOCK_ACQUIRE",   [8] = "LOCK_RELEASE",   [9] = "COND_WAIT",
	[10] = "COND_WAKE",     [11] = "COND_SIGNAL",   [12] = "COND_BROADCAST",
	[13] = "SLEEP",         [14] = "TASK_EXIT",     [15] = "MARKER",
	[16] = "LOCK_BLOCKED",  [17] = "BOOST",         [18] = "UNBOOST",
	[19] = "RPC_CALL",      [20] = "RPC_SERVE_START", [21] = "RPC_SERVE_END",
	[22] = "RPC_REPLY",     [23] = "PREEMPT",       [24] = "RESUME",
	[25] = "MIGRATE",       [26] = "PRIORITY",      [27] = "FREQ_CHANGE",
	[28] = "PREM_MEMORY",   [29] = "PREM_EXEC",     [30] = "PREM_END",
	[31] = "GATE_RUN",      [32] = "GATE_HOLD",
	[33] = "RESERVATION_REPLENISH", [34] = "RESERVATION_DEPLETE",
	[35] = "RESERVATION_BUDGET",
};

const char *rts_trace_type_name(uint16_t type)
{
	if (type < sizeof(type_names) / sizeof(type_names[0]))
		return type_names[type];
	return NULL;
}

/* Small formatters: snprintf is avoided on this path (locale, possible
 * allocation in some libcs). Each returns the new end of the buffer. */
static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

void rts_trace_marker_write(const struct rts_trace_stream *stream,
			    const struct rts_trace_event_rec *ev)
{
	/* "rtsched: stream=S task=T ev=NAME job=J arg0=A arg1=B time=N\n": under
	 * 60 fixed characters, 3 numbers of at most 11, 2 of at most 20 and a
	 * name of at most 14 (or a number of at most 5). */
	char line[256];
	char *p = line;
	p = put_str(p, "rtsched: stream=");
	p = put_u64(p, stream->id);
	p = put_str(p, " task=");
	p = put_i64(p, stream->task_id);
	p = put_str(p, " ev=");
	const char *name = rts_trace_type_name(ev->type);
	p = name ? put_str(p, name) : put_u64(p, ev->type);
	p = put_str(p, " job=");
	p = put_u64(p, ev->job);
	p = put_str(p, " arg0=");
	p = put_u64(p, ev->arg0);
	p = put_str(p, " arg1=");
	p = put_i64(p, ev->arg1);
	p = put_str(p, " time=");
	p = put_i64(p, ev->time_ns);
	*p++ = '\n';
	ssize_t ret = write(stream->marker_fd, line, (size_t)(p - line));
	(void)ret; /* a lost marker is not worth failing the traced thread */
}
