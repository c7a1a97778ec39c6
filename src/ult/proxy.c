/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's proxy threads (internal/ult_proxy.h has the hand-off,
 * docs/ult.md "Blocking system calls" the design).
 *
 * Locking order: a proxy takes the runtime's wait_lock, then (inside
 * rts_ult_wait_wake) its ULT's cluster lock: the order ULTs use. It is a
 * kernel thread, never switched out by the library, so it never holds
 * either across a switch; a worker whose ULT holds wait_lock while the
 * proxy wants it (both are futex-based mutexes) sleeps or is slept on, and
 * nothing spins.
 *
 * Signals: a proxy runs with every signal blocked but the wake signal
 * (internal/wake_signal.h), so process-directed signals and the workers'
 * RTS_ULT_SIGNAL never land in it; the wake signal is how an interrupted
 * ULT interrupts its call (EINTR, as under the threads backend).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rtsched/sched.h>

#include "internal/futex.h"
#include "internal/timespec.h"
#include "internal/ult.h"
#include "internal/ult_proxy.h"
#include "internal/wake_signal.h"

/* After an interrupt, how often the ULT sends the wake signal again until
 * its call returns: a signal that reaches the proxy just before it enters
 * the call is lost, the next one is not. */
#define RESEND_NS (1000 * 1000)

struct rts_ult_proxy {
	struct rts_ult_runtime *runtime;
	pthread_t thread;
	_Atomic pid_t tid;
	rts_futex_word posted; /* bumped by the ULT for each call, and once to stop */
	rts_futex_word done;   /* 0 while a call is in flight, then 1 */
	atomic_bool stopping;
	/* The call: written by the ULT before posted, read by the proxy after. */
	long (*fn)(void *arg);
	void *arg;
	int errno_in;
	/* Its outcome: written by the proxy before done = 1, read by the ULT after. */
	long result;
	int errno_out;
	/* Start-up: 0 pending, 1 running, 2 failed (start_error, why). */
	rts_futex_word started;
	int start_error;
	char why[300];
};

/* ---- the proxy thread ---------------------------------------------------- */

/* The ULT waiting for p's call (if it waits yet) is made ready: the wait
 * table's wake, as a lock's unlock would. */
static void wake_caller(struct rts_ult_proxy *p)
{
	struct rts_ult_runtime *rt = p->runtime;
	pthread_mutex_lock(&rt->wait_lock);
	struct rts_ult *waiter = rts_ult_wait_top(rt, &p->done, RTS_ULT_WAIT_PLAIN);
	if (waiter)
		rts_ult_wait_wake(rt, waiter);
	pthread_mutex_unlock(&rt->wait_lock);
}

/* Pinned to the cluster, SCHED_FIFO above the workers. */
static int set_up(struct rts_ult_proxy *p, const struct rts_ult_cluster *c)
{
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	for (int i = 0; i < c->n_workers; i++)
		CPU_SET(c->workers[i].cpu, &cpus);
	const struct rts_sched_params fifo = {.policy = RTS_POLICY_FIFO,
					      .priority = RTS_ULT_PROXY_PRIORITY};
	char reason[240];
	int err = rts_affinity_set_self(&cpus, reason, sizeof(reason));
	if (!err)
		err = rts_sched_apply_self(&fifo, reason, sizeof(reason));
	if (err)
		snprintf(p->why, sizeof(p->why), "%s", reason);
	return err;
}

static void serve(struct rts_ult_proxy *p)
{
	uint32_t handled = atomic_load_explicit(&p->posted, memory_order_acquire);
	for (;;) {
		uint32_t seen = atomic_load_explicit(&p->posted, memory_order_acquire);
		if (seen == handled) {
			rts_futex_wait_until(&p->posted, seen, NULL, CLOCK_MONOTONIC, false);
			continue;
		}
		handled = seen;
		if (atomic_load(&p->stopping))
			return;
		errno = p->errno_in;
		p->result = p->fn(p->arg);
		p->errno_out = errno;
		atomic_store_explicit(&p->done, 1, memory_order_release);
		wake_caller(p);
	}
}

struct proxy_start {
	struct rts_ult_proxy *proxy;
	const struct rts_ult_cluster *cluster;
};

static void *proxy_main(void *arg)
{
	struct proxy_start *start = arg;
	struct rts_ult_proxy *p = start->proxy;
	atomic_store(&p->tid, gettid());
	int err = set_up(p, start->cluster);
	p->start_error = err;
	atomic_store_explicit(&p->started, err ? 2 : 1, memory_order_release);
	rts_futex_wake(&p->started, 1, false);
	if (!err) /* `start` is gone from here on */
		serve(p);
	return NULL;
}

/* ---- start and stop ------------------------------------------------------- */

int rts_ult_proxy_create(struct rts_ult_proxy **out, struct rts_ult_cluster *c,
			 const char *task_name, char *why, size_t why_len)
{
	struct rts_ult_proxy *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, why_len, "task %s: no memory for its proxy thread", task_name);
		return ENOMEM;
	}
	p->runtime = c->runtime;
	p->done = 1; /* no call in flight */
	struct proxy_start start = {.proxy = p, .cluster = c};
	/* Every signal blocked but the wake signal, from its first instruction. */
	sigset_t signals;
	sigfillset(&signals);
	sigdelset(&signals, RTS_WAKE_SIGNAL);
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);
	if (!err)
		err = pthread_attr_setstacksize(&attr, RTS_ULT_PROXY_STACK_BYTES);
	if (!err)
		err = pthread_attr_setsigmask_np(&attr, &signals);
	if (!err)
		err = pthread_create(&p->thread, &attr, proxy_main, &start);
	pthread_attr_destroy(&attr);
	if (err) {
		snprintf(why, why_len, "task %s: cannot create its proxy thread: %s", task_name,
			 strerror(err));
		free(p);
		return err;
	}
	while (atomic_load_explicit(&p->started, memory_order_acquire) == 0)
		rts_futex_wait_until(&p->started, 0, NULL, CLOCK_MONOTONIC, false);
	if (p->start_error) {
		err = p->start_error;
		snprintf(why, why_len, "task %s: its proxy thread for blocking calls: %s", task_name,
			 p->why);
		pthread_join(p->thread, NULL);
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

void rts_ult_proxy_destroy(struct rts_ult_proxy *p)
{
	if (!p)
		return;
	atomic_store(&p->stopping, true);
	atomic_fetch_add_explicit(&p->posted, 1, memory_order_release);
	rts_futex_wake(&p->posted, 1, false);
	pthread_join(p->thread, NULL);
	free(p);
}

/* ---- the ULT's side ------------------------------------------------------ */

/* Interrupt p's call (EINTR if it is one the signal ends), unless it is done. */
static void interrupt_call(struct rts_ult_proxy *p)
{
	if (atomic_load_explicit(&p->done, memory_order_acquire) == 0)
		syscall(SYS_tgkill, getpid(), atomic_load(&p->tid), RTS_WAKE_SIGNAL);
}

long rts_ult_proxy_call(struct rts_ult_proxy *p, long (*fn)(void *arg), void *arg)
{
	p->fn = fn;
	p->arg = arg;
	p->errno_in = rts_ult_errno_get();
	atomic_store_explicit(&p->done, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->posted, 1, memory_order_release);
	rts_futex_wake(&p->posted, 1, false);
	/* Wait as for a lock. An interrupt of the ULT (the set stopping, say)
	 * interrupts the call, and the ULT waits on until the call returns: the
	 * proxy is still using fn's arguments. */
	bool interrupted = false;
	while (atomic_load_explicit(&p->done, memory_order_acquire) == 0) {
		struct timespec resend;
		if (interrupted) {
			clock_gettime(CLOCK_MONOTONIC, &resend);
			resend = rts_ns_to_timespec(rts_timespec_to_ns(&resend) + RESEND_NS);
		}
		int ret = rts_ult_block(&p->done, 0, interrupted ? &resend : NULL, CLOCK_MONOTONIC, false);
		if (ret == -EINTR || ret == -ETIMEDOUT) {
			interrupted = true;
			interrupt_call(p);
		}
	}
	rts_ult_errno_set(p->errno_out);
	return p->result;
}
