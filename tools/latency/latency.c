/* SPDX-License-Identifier: MIT */
#include "latency.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "clock_ns.h"

#define THREAD_STACK_SIZE (256u * 1024u)

static atomic_bool stop_requested;

void lat_request_stop(void)
{
	atomic_store_explicit(&stop_requested, true, memory_order_relaxed);
}

static bool stopping(void)
{
	return atomic_load_explicit(&stop_requested, memory_order_relaxed);
}

/* Shared by the threads of one run. */
struct lat_shared {
	struct lat_run *run;
	atomic_int ready;           /* threads set up (or failed) */
	atomic_bool go;             /* set by the main thread once all are ready */
	atomic_bool setup_failed;
	uint64_t end_ns;            /* no deadline after this; 0: none */
	cpu_set_t process_affinity; /* for SCHED_DEADLINE that refuses one CPU */
};

static struct lat_shared shared;

static void fail(struct lat_thread *t, const char *what, int error)
{
	t->error = error;
	t->error_what = what;
	atomic_store_explicit(&shared.setup_failed, true, memory_order_relaxed);
}

static int set_policy(struct lat_thread *t, const struct lat_options *o)
{
	struct rts_sched_params p = {.policy = o->policy, .priority = o->priority};
	if (o->policy == RTS_POLICY_DEADLINE) {
		uint64_t runtime_us = o->dl_runtime_us;
		if (!runtime_us) {
			runtime_us = t->interval_ns / 1000u / 10u;
			if (runtime_us < 10)
				runtime_us = 10;
		}
		p.dl_runtime_ns = runtime_us * 1000u;
		p.dl_deadline_ns = t->interval_ns;
		p.dl_period_ns = t->interval_ns;
	}
	int e = rts_sched_apply_self(&p, NULL, 0);
	if (e == EPERM && o->policy == RTS_POLICY_DEADLINE && geteuid() == 0) {
		/*
		 * SCHED_DEADLINE needs an affinity that spans its root domain:
		 * a one-CPU affinity works only inside an exclusive cpuset (see
		 * `rtsched shield`). Otherwise run unpinned, and say so.
		 */
		if (rts_affinity_set_self(&shared.process_affinity, NULL, 0) == 0) {
			e = rts_sched_apply_self(&p, NULL, 0);
			if (!e)
				t->pinned = false;
		}
	}
	return e;
}

static void *measure(void *arg)
{
	struct lat_thread *t = arg;
	const struct lat_options *o = shared.run->opts;
	int e;
	bool has_cpu;

	t->tid = (long)syscall(SYS_gettid);
	for (int i = 0; i < o->ncpusets; i++) {
		if (rts_cpuset_has_cpu(o->cpusets[i], t->cpu, &has_cpu) == 0 && has_cpu) {
			e = rts_cpuset_join_self(o->cpusets[i], NULL, 0);
			if (e) {
				fail(t, "joining the cpuset", e);
				goto ready;
			}
			t->cpuset = o->cpusets[i];
			break;
		}
	}
	cpu_set_t one_cpu;
	CPU_ZERO(&one_cpu);
	CPU_SET(t->cpu, &one_cpu);
	e = rts_affinity_set_self(&one_cpu, NULL, 0);
	if (e) {
		fail(t, "pinning to the CPU (sched_setaffinity)", e);
		goto ready;
	}
	t->pinned = true;
	if (o->timerslack_ns >= 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)o->timerslack_ns, 0, 0, 0)) {
		fail(t, "PR_SET_TIMERSLACK", errno);
		goto ready;
	}
	t->timerslack_ns = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	e = set_policy(t, o);
	if (e)
		fail(t, o->policy == RTS_POLICY_DEADLINE ? "setting SCHED_DEADLINE (sched_setattr)"
			: o->policy == RTS_POLICY_FIFO ? "setting SCHED_FIFO (sched_setattr)"
			: "setting SCHED_OTHER (sched_setattr)", e);
ready:
	atomic_fetch_add(&shared.ready, 1);
	while (!atomic_load(&shared.go)) {
		struct timespec pause = {.tv_nsec = 200000};
		nanosleep(&pause, NULL);
	}
	if (atomic_load_explicit(&shared.setup_failed, memory_order_relaxed))
		goto out;

	uint64_t next = (uint64_t)clock_ns(CLOCK_MONOTONIC) + t->interval_ns;
	while (!stopping()) {
		if (shared.end_ns && next > shared.end_ns)
			break;
		struct timespec ts = ns_timespec((int64_t)next);
		e = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (e && e != EINTR) {
			t->error = e;
			t->error_what = "clock_nanosleep";
			break;
		}
		uint64_t now = (uint64_t)clock_ns(CLOCK_MONOTONIC);
		if (e == EINTR && now < next)
			continue;
		uint64_t latency = now - next;
		lat_histogram_add(&t->hist, latency);
		atomic_store_explicit(&t->progress_samples, t->hist.samples, memory_order_relaxed);
		if (latency > atomic_load_explicit(&t->progress_max_ns, memory_order_relaxed))
			atomic_store_explicit(&t->progress_max_ns, latency, memory_order_relaxed);
		if (o->loops && t->hist.samples >= o->loops)
			break;
		next += t->interval_ns;
		while (next <= now) { /* woke a whole interval late: skip the missed deadlines */
			next += t->interval_ns;
			t->overruns++;
		}
	}
out:
	rts_sched_reset_self(); /* back to SCHED_OTHER before exiting, as cyclictest does */
	atomic_store_explicit(&t->done, true, memory_order_release);
	return NULL;
}

static void hold_dma_latency(struct lat_run *run, int value)
{
	if (value < 0)
		return;
	/* Held open until the process exits; the kernel drops the request then. */
	int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	int32_t v = value;
	if (write(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		run->dma_latency_held = true;
	else
		close(fd);
}

int lat_run(const struct lat_options *opts, struct lat_run *run,
	    void (*progress)(const struct lat_run *run, void *arg), void *arg)
{
	int cpus[LAT_MAX_THREADS];
	int e = 0;
	run->opts = opts;
	run->nthreads = rts_cpulist_to_array(&opts->cpus, cpus, LAT_MAX_THREADS);
	memset(&shared, 0, sizeof(shared));
	shared.run = run;
	sched_getaffinity(0, sizeof(shared.process_affinity), &shared.process_affinity);

	for (int i = 0; i < run->nthreads; i++) {
		struct lat_thread *t = &run->threads[i];
		t->index = i;
		t->cpu = cpus[i];
		t->interval_ns = lat_thread_interval_ns(opts, i);
		t->timerslack_ns = -1;
		e = lat_histogram_init(&t->hist, opts->histogram_us);
		if (e)
			return e;
	}
	hold_dma_latency(run, opts->dma_latency_us);
	if (opts->mlock && mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
		run->mlocked = true;

	/* Only the main thread takes SIGINT/SIGTERM; the measurement threads block them. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK_SIZE);
	pthread_t handles[LAT_MAX_THREADS];
	int started = 0;
	for (; started < run->nthreads; started++) {
		e = pthread_create(&handles[started], &attr, measure, &run->threads[started]);
		if (e) {
			run->threads[started].error = e;
			run->threads[started].error_what = "pthread_create";
			atomic_store(&shared.setup_failed, true);
			break;
		}
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (atomic_load(&shared.ready) < started) {
		struct timespec pause = {.tv_nsec = 200000};
		nanosleep(&pause, NULL);
	}
	run->start_ns = (uint64_t)clock_ns(CLOCK_MONOTONIC);
	if (opts->duration_s > 0)
		shared.end_ns = run->start_ns + (uint64_t)(opts->duration_s * 1e9);
	atomic_store(&shared.go, true);
	if (e) {
		for (int i = 0; i < started; i++)
			pthread_join(handles[i], NULL);
		return e;
	}

	uint64_t period_ns = (uint64_t)(opts->progress_period_s * 1e9);
	uint64_t wake = run->start_ns;
	for (;;) {
		bool all_done = true;
		for (int i = 0; i < run->nthreads; i++)
			all_done &= atomic_load_explicit(&run->threads[i].done, memory_order_acquire);
		if (all_done)
			break;
		if (progress && !atomic_load(&shared.setup_failed))
			progress(run, arg);
		wake += period_ns;
		uint64_t now = (uint64_t)clock_ns(CLOCK_MONOTONIC);
		if (wake < now)
			wake = now + period_ns;
		if (shared.end_ns && wake > shared.end_ns + period_ns)
			wake = shared.end_ns + period_ns;
		struct timespec ts = ns_timespec((int64_t)wake);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL); /* EINTR: a stop request */
	}
	for (int i = 0; i < run->nthreads; i++)
		pthread_join(handles[i], NULL);
	run->elapsed_ns = (uint64_t)clock_ns(CLOCK_MONOTONIC) - run->start_ns;
	if (run->mlocked)
		munlockall();

	for (int i = 0; i < run->nthreads; i++)
		if (run->threads[i].error)
			return run->threads[i].error;
	return 0;
}

void lat_run_free(struct lat_run *run)
{
	for (int i = 0; i < run->nthreads; i++)
		lat_histogram_free(&run->threads[i].hist);
}
