/* SPDX-License-Identifier: MIT */
/*
 * <rtsched/blocking.h>: a task's blocking system calls. In a ULT they go to
 * its proxy thread (ult/proxy.c); anywhere else they are made in place.
 */
#include <poll.h>
#include <unistd.h>

#include <rtsched/blocking.h>

#include "internal/export.h"
#include "internal/ult.h"
#include "internal/ult_proxy.h"

RTS_EXPORT long rts_blocking_call(long (*fn)(void *arg), void *arg)
{
	struct rts_ult *self = rts_ult_self();
	return self ? rts_ult_proxy_call(self->proxy, fn, arg) : fn(arg);
}

/* The arguments of a file-descriptor call, for the wrappers below. */
struct io_call {
	int fd;
	void *buf;
	size_t count;
	off_t offset;
};

static long call_read(void *arg)
{
	struct io_call *c = arg;
	return read(c->fd, c->buf, c->count);
}

static long call_write(void *arg)
{
	struct io_call *c = arg;
	return write(c->fd, c->buf, c->count);
}

static long call_pread(void *arg)
{
	struct io_call *c = arg;
	return pread(c->fd, c->buf, c->count, c->offset);
}

static long call_pwrite(void *arg)
{
	struct io_call *c = arg;
	return pwrite(c->fd, c->buf, c->count, c->offset);
}

static long call_fsync(void *arg)
{
	struct io_call *c = arg;
	return fsync(c->fd);
}

RTS_EXPORT ssize_t rts_blocking_read(int fd, void *buf, size_t count)
{
	struct io_call c = {.fd = fd, .buf = buf, .count = count};
	return rts_blocking_call(call_read, &c);
}

RTS_EXPORT ssize_t rts_blocking_write(int fd, const void *buf, size_t count)
{
	struct io_call c = {.fd = fd, .buf = (void *)buf, .count = count};
	return rts_blocking_call(call_write, &c);
}

RTS_EXPORT ssize_t rts_blocking_pread(int fd, void *buf, size_t count, off_t offset)
{
	struct io_call c = {.fd = fd, .buf = buf, .count = count, .offset = offset};
	return rts_blocking_call(call_pread, &c);
}

RTS_EXPORT ssize_t rts_blocking_pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	struct io_call c = {.fd = fd, .buf = (void *)buf, .count = count, .offset = offset};
	return rts_blocking_call(call_pwrite, &c);
}

RTS_EXPORT int rts_blocking_fsync(int fd)
{
	struct io_call c = {.fd = fd};
	return (int)rts_blocking_call(call_fsync, &c);
}

struct poll_call {
	struct pollfd *fds;
	nfds_t nfds;
	int timeout_ms;
};

static long call_poll(void *arg)
{
	struct poll_call *c = arg;
	return poll(c->fds, c->nfds, c->timeout_ms);
}

RTS_EXPORT int rts_blocking_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	struct poll_call c = {.fds = fds, .nfds = nfds, .timeout_ms = timeout_ms};
	return (int)rts_blocking_call(call_poll, &c);
}
