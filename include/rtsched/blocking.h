/* SPDX-License-Identifier: MIT */
/*
 * System calls that may block in the kernel, made from a task's job so that
 * under the ult backend only the calling task waits (docs/ult.md,
 * "Blocking system calls"; seed 003 §3.4, proxy threads).
 *
 *     ssize_t n = rts_blocking_read(fd, buf, sizeof(buf)); // as read(2)
 *     long r = rts_blocking_call(my_call, &my_args);        // any call
 *
 * Under the ult backend a task is a user-level thread on a worker kernel
 * thread that runs other tasks too: a plain read() that waits for data
 * stops all of them. These functions hand the call to the task's proxy
 * thread (a kernel thread made with the task, SCHED_FIFO just above the
 * workers, pinned to the task's cluster) and wait for it as for a lock: the
 * worker runs the other tasks, or sleeps, until the call returns; then the
 * task is ready again and runs when its priority says. Anywhere else (the
 * threads backend, a thread that is no task) they simply make the call.
 *
 * Results are the system call's: its return value, and errno set as the
 * call left it (EBADF, EAGAIN, ...), also when it ran in the proxy. A task
 * interrupted while its call waits (the set stopping, say) interrupts the
 * call: it returns what the kernel returns for a signal (read on a pipe:
 * -1 with EINTR; a call the kernel restarts or does not interrupt returns
 * normally), and the task waits for that return in every case.
 *
 * CPU time: the call's time in the proxy is not the task's
 * (rts_task_cputime_ns does not advance while it waits; a `COMPLETE`
 * event's CPU time excludes it), and the proxy, above the workers, takes it
 * from whatever task runs on the CPU it uses (seed 003: a short
 * non-preemptive section for that task).
 *
 * Under ult, rts_blocking_call's `fn` runs on another kernel thread: it must
 * not use the task API, rtsched locks or condition variables, or the
 * caller's thread-local variables, and must not keep running long: it is a
 * system call's wrapper. At most one call per task is in flight (the task
 * waits for it).
 */
#ifndef RTSCHED_BLOCKING_H
#define RTSCHED_BLOCKING_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* fn(arg) where it may block (in the caller's proxy under ult); fn's result, errno as fn left it. */
long rts_blocking_call(long (*fn)(void *arg), void *arg);

/* As read(2), write(2), pread(2), pwrite(2), fsync(2), poll(2). */
ssize_t rts_blocking_read(int fd, void *buf, size_t count);
ssize_t rts_blocking_write(int fd, const void *buf, size_t count);
ssize_t rts_blocking_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t rts_blocking_pwrite(int fd, const void *buf, size_t count, off_t offset);
int rts_blocking_fsync(int fd);
int rts_blocking_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* RTSCHED_BLOCKING_H */
