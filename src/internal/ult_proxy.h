/* SPDX-License-Identifier: MIT */
/*
 * Proxy threads of the ult backend (seed 003 §3.4; docs/ult.md "Blocking
 * system calls"): a ULT hands a call that may block in the kernel to a
 * kernel thread of its own, and waits for it as for a lock, so that its
 * worker runs the other ULTs of its cluster meanwhile.
 *
 * One proxy per ULT, made with it (rts_task_create, before the release; no
 * thread is made on the path of a call), SCHED_FIFO one level above the
 * workers and pinned to the ULT's cluster, as seed 003 has them. One per
 * ULT, not a shared pool: a ULT has at most one call in flight (it waits
 * for it), so a call never waits for a free proxy, and calls that depend on
 * each other (a reader blocked until a writer's write) cannot deadlock on a
 * pool that the blocked ones fill.
 *
 * The hand-off (no lock between the ULT and its proxy):
 *   ULT:   fn, arg, errno_in; done = 0; posted++ (release); futex wake;
 *          then the backend's block on `done` while it is 0 (a library
 *          wait: its worker runs other ULTs or sleeps in a futex).
 *   proxy: sees posted change (acquire); errno = errno_in; result = fn(arg);
 *          errno_out = errno; done = 1 (release); then, under the runtime's
 *          wait_lock, makes the ULT waiting on `done` ready through the
 *          wait table (the normal wake path).
 * The compare of `done` and the ULT's queueing are one step under
 * wait_lock, so the wake is never lost; a wake that arrives after the ULT
 * saw done = 1 and posted its next call is spurious and the ULT waits again.
 */
#ifndef RTS_INTERNAL_ULT_PROXY_H
#define RTS_INTERNAL_ULT_PROXY_H

#include <stddef.h>

struct rts_ult_cluster;
struct rts_ult_proxy;

/* SCHED_FIFO priority of every proxy: just above the workers (seed 003). */
#define RTS_ULT_PROXY_PRIORITY 51
/* A proxy's stack: the call's own frames (a system call wrapper needs little). */
#define RTS_ULT_PROXY_STACK_BYTES (256u * 1024u)

/* A proxy thread for task `task_name` of cluster c (made before the ULT,
 * which then holds it: rts_ult.proxy); 0, or an error with why (which task,
 * what was refused). */
int rts_ult_proxy_create(struct rts_ult_proxy **out, struct rts_ult_cluster *c,
			 const char *task_name, char *why, size_t why_len);
/* End and join a proxy (no call in flight: its ULT has ended or never ran); NULL: nothing. */
void rts_ult_proxy_destroy(struct rts_ult_proxy *p);
/* From the ULT that holds p: fn(arg) in p; its result, with errno set as fn left it. */
long rts_ult_proxy_call(struct rts_ult_proxy *p, long (*fn)(void *arg), void *arg);

#endif
