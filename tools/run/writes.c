/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtsched/blocking.h>

#include "writes.h"

static bool is_write(enum run_op op)
{
	return op == RUN_OP_MEMWRITE || op == RUN_OP_IOWRITE;
}

/*
 * O_NONBLOCK only for the open: a FIFO without a reader then fails at once
 * (ENXIO) instead of hanging the set-up; the writes themselves block.
 * O_APPEND: a regular file is added to, never overwritten (rt-app writes
 * over the start of its io_device).
 */
static int open_device(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
	if (fd < 0)
		return -errno;
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		int err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

int run_writes_init(struct run_writes *writes, const struct run_task *task, size_t task_index,
		    char *error, size_t error_len)
{
	memset(writes, 0, sizeof(*writes));
	for (size_t a = 0; a < task->body_len; a++)
		if (is_write(task->body[a].op) && task->body[a].chunk_bytes > writes->buffer_bytes)
			writes->buffer_bytes = task->body[a].chunk_bytes;
	if (writes->buffer_bytes == 0)
		return 0;
	writes->n_actions = task->body_len;
	writes->buffer = malloc(writes->buffer_bytes);
	writes->fds = malloc(task->body_len * sizeof(*writes->fds));
	writes->attempts = calloc(task->body_len, sizeof(*writes->attempts));
	writes->failures = calloc(task->body_len, sizeof(*writes->failures));
	for (size_t a = 0; writes->fds && a < task->body_len; a++)
		writes->fds[a] = -1; /* before any failure: run_writes_destroy closes what is open */
	if (!writes->buffer || !writes->fds || !writes->attempts || !writes->failures) {
		snprintf(error, error_len, "tasks[%zu] (%s): no memory for its %llu-byte write buffer",
			 task_index, task->name, (unsigned long long)writes->buffer_bytes);
		return ENOMEM;
	}
	memset(writes->buffer, 1, writes->buffer_bytes); /* the pages exist (and mlockall keeps them) */
	for (size_t a = 0; a < task->body_len; a++) {
		if (task->body[a].op != RUN_OP_IOWRITE)
			continue;
		int fd = open_device(task->body[a].device);
		if (fd < 0) {
			snprintf(error, error_len,
				 "tasks[%zu] (%s): body[%zu] iowrite: cannot open %s for writing: %s%s",
				 task_index, task->name, a, task->body[a].device, strerror(-fd),
				 fd == -ENXIO ? " (a FIFO needs its reader first)" : "");
			return -fd;
		}
		writes->fds[a] = fd;
	}
	return 0;
}

void run_writes_destroy(struct run_writes *writes)
{
	for (size_t a = 0; writes->fds && a < writes->n_actions; a++)
		if (writes->fds[a] >= 0)
			close(writes->fds[a]);
	free(writes->fds);
	free(writes->attempts);
	free(writes->failures);
	free(writes->buffer);
	memset(writes, 0, sizeof(*writes));
}

void run_memwrite(uint8_t *buffer, uint64_t chunk_bytes, uint64_t bytes, uint8_t value)
{
	while (bytes > 0) {
		uint64_t size = bytes < chunk_bytes ? bytes : chunk_bytes;
		memset(buffer, value, size);
		bytes -= size;
	}
	/* The stores are the action: the compiler must not drop them as dead. */
	__asm__ volatile("" : : "r"(buffer) : "memory");
}

int run_iowrite(int fd, const uint8_t *buffer, uint64_t chunk_bytes, uint64_t bytes,
		uint64_t *written_bytes)
{
	*written_bytes = 0;
	while (*written_bytes < bytes) {
		uint64_t left = bytes - *written_bytes;
		ssize_t done = rts_blocking_write(fd, buffer, left < chunk_bytes ? left : chunk_bytes);
		if (done < 0) {
			int err = errno;
			if (err == EINTR)
				continue;
			return err;
		}
		if (done == 0)
			return EIO; /* no progress and no errno: never loop on it */
		*written_bytes += (uint64_t)done;
	}
	return 0;
}

void run_iowrite_action(struct run_writes *writes, const struct run_task *task, size_t index)
{
	const struct run_action *action = &task->body[index];
	uint64_t written;
	writes->attempts[index]++;
	int err = run_iowrite(writes->fds[index], writes->buffer, action->chunk_bytes,
			      action->write_bytes, &written);
	if (err && writes->failures[index]++ == 0)
		fprintf(stderr,
			"rtsched-run: task %s: body[%zu] iowrite: write to %s failed after %llu of %llu "
			"bytes: %s (errno %d)\n",
			task->name, index, action->device, (unsigned long long)written,
			(unsigned long long)action->write_bytes, strerror(err), err);
}

void run_writes_report(const struct run_writes *writes, const struct run_task *task)
{
	for (size_t a = 0; writes->failures && a < writes->n_actions; a++)
		if (writes->failures[a])
			fprintf(stderr, "rtsched-run: task %s: body[%zu] iowrite to %s failed in %llu of %llu "
					"jobs\n",
				task->name, a, task->body[a].device,
				(unsigned long long)writes->failures[a],
				(unsigned long long)writes->attempts[a]);
}
