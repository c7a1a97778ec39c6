/* SPDX-License-Identifier: MIT */
/* A task's recorded events in bounded memory (spill.h). */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sim_trace_init(struct sim_trace *trace)
{
	memset(trace, 0, sizeof(*trace));
	trace->spill_fd = -1;
}

/* An unnamed file in dir: O_TMPFILE, or a named one unlinked at once where the file system has none. */
static int open_spill(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	size_t len = strlen(dir) + sizeof("/.rtsched-sim-spill.XXXXXX");
	char *path = malloc(len);
	if (!path)
		return -1;
	snprintf(path, len, "%s/.rtsched-sim-spill.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

static int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;
	while (size) {
		ssize_t n = write(fd, p, size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

/* The buffer is full: move its events to the spill file. */
static int spill(struct sim_trace *trace, const char *spill_dir)
{
	if (trace->spill_fd < 0 && (trace->spill_fd = open_spill(spill_dir)) < 0)
		return errno;
	int error = write_all(trace->spill_fd, trace->events, trace->buffered * sizeof(*trace->events));
	if (!error)
		trace->buffered = 0;
	return error;
}

int sim_trace_append(struct sim_trace *trace, const char *spill_dir, const struct rts_trace_event_rec *event)
{
	if (trace->buffered == trace->cap) {
		if (spill_dir && trace->cap == SIM_TRACE_BUFFER_EVENTS) {
			int error = spill(trace, spill_dir);
			if (error)
				return error;
		} else {
			size_t cap = trace->cap ? trace->cap * 2 : 256;
			struct rts_trace_event_rec *events = realloc(trace->events, cap * sizeof(*events));
			if (!events)
				return ENOMEM;
			trace->events = events;
			trace->cap = cap;
		}
	}
	trace->events[trace->buffered++] = *event;
	trace->n++;
	return 0;
}

const struct rts_trace_event_rec *sim_trace_at(const struct sim_trace *trace, size_t i,
					       struct rts_trace_event_rec *scratch)
{
	size_t spilled = trace->n - trace->buffered;
	if (i >= spilled)
		return &trace->events[i - spilled];
	off_t at = (off_t)(i * sizeof(*scratch));
	return pread(trace->spill_fd, scratch, sizeof(*scratch), at) == (ssize_t)sizeof(*scratch) ? scratch
												 : NULL;
}

int sim_trace_copy_out(const struct sim_trace *trace, FILE *f)
{
	size_t spilled_bytes = (trace->n - trace->buffered) * sizeof(*trace->events);
	if (spilled_bytes) {
		char *block = malloc(1 << 20);
		if (!block)
			return ENOMEM;
		int error = 0;
		for (off_t at = 0; !error && (size_t)at < spilled_bytes;) {
			size_t want = spilled_bytes - (size_t)at < (1u << 20) ? spilled_bytes - (size_t)at : 1u << 20;
			ssize_t got = pread(trace->spill_fd, block, want, at);
			if (got <= 0)
				error = got < 0 ? errno : EIO;
			else if (fwrite(block, 1, (size_t)got, f) != (size_t)got)
				error = errno ? errno : EIO;
			else
				at += got;
		}
		free(block);
		if (error)
			return error;
	}
	if (trace->buffered && fwrite(trace->events, sizeof(*trace->events), trace->buffered, f) != trace->buffered)
		return errno ? errno : EIO;
	return 0;
}

void sim_trace_free(struct sim_trace *trace)
{
	free(trace->events);
	if (trace->spill_fd >= 0)
		close(trace->spill_fd);
	sim_trace_init(trace);
}
