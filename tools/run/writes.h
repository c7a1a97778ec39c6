/* SPDX-License-Identifier: MIT */
/*
 * The memwrite and iowrite actions (docs/runner-input.md; rt-app's mem and
 * iorun). Each task with such actions has one write buffer, the size of the
 * largest `buffer_bytes` among them; an action uses its first buffer_bytes.
 *
 * memwrite stores `bytes` into the buffer in chunks of buffer_bytes, each
 * from the buffer's start (a write larger than the buffer wraps), as rt-app's
 * memload does. iowrite write(2)s `bytes` to its device in chunks of
 * buffer_bytes taken from the buffer, as rt-app's ioload does; a short write
 * continues with the rest. Each write(2) goes through rts_blocking_write
 * (<rtsched/blocking.h>): under the ult backend the task's proxy thread
 * makes it while the task's worker runs the other tasks. The devices are opened at set-up, so a path that
 * cannot be opened for writing fails the run before it starts; a write that
 * fails during the run is counted and reported with the path and errno
 * (never dropped silently), and the job goes on, as rt-app's does.
 */
#ifndef RTSCHED_RUN_WRITES_H
#define RTSCHED_RUN_WRITES_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

struct run_writes {
	uint8_t *buffer; /* NULL: the task has no memwrite or iowrite */
	uint64_t buffer_bytes;
	int *fds;           /* per body action: the iowrite's open device, -1 for other actions */
	uint64_t *attempts; /* per body action: iowrite jobs */
	uint64_t *failures; /* per body action: iowrite jobs whose write(2) failed */
	size_t n_actions;
};

/* 0, or a positive errno with `error` set to what failed (the device's path for an open). */
int run_writes_init(struct run_writes *writes, const struct run_task *task, size_t task_index,
		    char *error, size_t error_len);
void run_writes_destroy(struct run_writes *writes);

/* Store `bytes` of `value` into buffer[0, chunk_bytes), wrapping at chunk_bytes. */
void run_memwrite(uint8_t *buffer, uint64_t chunk_bytes, uint64_t bytes, uint8_t value);

/*
 * write(2) `bytes` to fd in chunks of at most chunk_bytes from buffer,
 * retrying after EINTR. 0, or the errno of the write that failed (EIO for a
 * write that wrote nothing without an error); *written_bytes is what was
 * written either way.
 */
int run_iowrite(int fd, const uint8_t *buffer, uint64_t chunk_bytes, uint64_t bytes,
		uint64_t *written_bytes);

/* The action body[index] (an iowrite) of the task's job; reports the first failure at once. */
void run_iowrite_action(struct run_writes *writes, const struct run_task *task, size_t index);

/* After the run: each iowrite whose writes failed, with its count, on stderr. */
void run_writes_report(const struct run_writes *writes, const struct run_task *task);

#endif
