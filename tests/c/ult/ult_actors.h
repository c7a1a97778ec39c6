/* SPDX-License-Identifier: MIT */
/*
 * Actors for the ult backend's lock tests: each actor is a task with one
 * job (its `play` function), released `offset_ms` after the set, on a named
 * ult form. What the actors do is recorded in one log of tags, in the order
 * it happened (an atomic counter), so a test asserts the order of events;
 * priorities are read from the scheduler itself (the ULT's key), never
 * from timings. Every wait inside a play is bounded.
 */
#ifndef RTSCHED_TESTS_ULT_ACTORS_H
#define RTSCHED_TESTS_ULT_ACTORS_H

#include <rtsched/cond.h>
#include <rtsched/mutex.h>
#include <rtsched/task.h>

#include "harness.h"
#include "internal/backend.h"
#include "internal/ult.h"
#include "ult_arch.h"

#define MS (1000 * 1000LL)
#define MAX_ACTORS 24
#define MAX_LOG 4096

struct actor {
	const char *name;
	int priority;       /* FP forms: SCHED_FIFO priority; EDF forms: ignored */
	int64_t offset_ms;
	int64_t deadline_ms; /* EDF forms; 0: 100 ms */
	int cpu;            /* index into the allowed CPUs; -1: none given */
	uint32_t jobs;      /* 0: one */
	int64_t period_ms;  /* 0: 1000 */
	bool service;       /* a service (RTS_TASK_SERVICE): played once, from the release call */
	void (*play)(struct actor *a);
	void *scene;        /* the test's shared state */
	/* Filled by the run. */
	_Atomic uint32_t id; /* the ULT's identity (self_id) */
	atomic_int step;     /* the actor's own progress, for the others to wait on */
	int result;          /* what the play wants the test to check */
	int64_t release_ns, start_ns; /* of its (last) job: a test checks its premise with them */
	struct rts_task_stats stats;
};

static atomic_int log_next;
static int log_tags[MAX_LOG];

__attribute__((unused)) static void log_tag(int tag)
{
	int i = atomic_fetch_add(&log_next, 1);
	if (i < MAX_LOG)
		log_tags[i] = tag;
}

/* The tags in the log, in order, equal `want` (n of them). */
__attribute__((unused)) static void check_log(const int *want, int n)
{
	int have = atomic_load(&log_next);
	bool same = have == n;
	for (int i = 0; same && i < n; i++)
		same = log_tags[i] == want[i];
	if (!same) {
		fprintf(stderr, "log:");
		for (int i = 0; i < have && i < MAX_LOG; i++)
			fprintf(stderr, " %d", log_tags[i]);
		fprintf(stderr, "\nwant:");
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %d", want[i]);
		fprintf(stderr, "\n");
	}
	CHECK(same);
}

static int64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Busy for `us` of wall-clock time (preempted or not): order, not timing, is asserted. */
__attribute__((unused)) static void busy_us(int64_t us)
{
	int64_t end = now_ns() + us * 1000;
	while (now_ns() < end)
		;
}

/* Busy until *flag >= value (bounded: 2 s); false if it never came. */
__attribute__((unused)) static bool busy_until(atomic_int *flag, int value)
{
	int64_t give_up = now_ns() + 2000 * MS;
	while (atomic_load(flag) < value)
		if (now_ns() > give_up)
			return false;
	return true;
}

/* A ULT's effective priority as its scheduler orders it (FP: 100 - key); 0 for the caller. */
__attribute__((unused)) static int effective_priority(uint32_t id)
{
	struct rts_ult *self = rts_ult_self();
	struct rts_ult *u = id ? rts_ult_runtime_find_id(self->cluster->runtime, id) : self;
	rts_ult_hold_switches();
	pthread_mutex_lock(&u->cluster->lock);
	int64_t key = u->key;
	pthread_mutex_unlock(&u->cluster->lock);
	rts_ult_allow_switches();
	return (int)(100 - key);
}

/* Whether actor `other` has started and now waits, blocked (on a lock or a condition variable). */
static bool actor_blocked(struct actor *other)
{
	uint32_t id = atomic_load(&other->id);
	if (id == 0)
		return false;
	struct rts_ult *self = rts_ult_self();
	struct rts_ult *u = rts_ult_runtime_find_id(self->cluster->runtime, id);
	rts_ult_hold_switches();
	pthread_mutex_lock(&u->cluster->lock);
	bool blocked = u->state == RTS_ULT_BLOCKED;
	pthread_mutex_unlock(&u->cluster->lock);
	rts_ult_allow_switches();
	return blocked;
}

/*
 * Sleep in 0.2 ms steps until each of `n` actors waits, blocked (bounded: 2 s; false if not).
 * A scene where actors must ask one after another uses it instead of release offsets alone:
 * a machine that delays releases (the fair server giving other work its share, a VM's host,
 * qemu) releases several at once, and they would then ask in priority order.
 */
__attribute__((unused)) static bool sleep_until_blocked(struct actor *others, int n)
{
	int64_t give_up = now_ns() + 2000 * MS;
	for (int i = 0; i < n; i++)
		while (!actor_blocked(&others[i])) {
			if (now_ns() > give_up)
				return false;
			CHECK_OK(rts_task_sleep_until(now_ns() + 200 * 1000));
		}
	return true;
}

/* A ULT's own priority as get_attr reads it (SCHED_FIFO); 0 for the caller. */
__attribute__((unused)) static int own_priority(uint32_t id)
{
	struct rts_sched_attr attr = {.size = sizeof(attr)};
	CHECK_OK(-rts_backend()->get_attr(id, &attr));
	CHECK_EQ(attr.sched_policy, (uint32_t)SCHED_FIFO);
	return (int)attr.sched_priority;
}

static void actor_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	struct actor *a = arg;
	atomic_store(&a->id, rts_backend()->self_id());
	a->release_ns = job->release_ns;
	a->start_ns = job->start_ns;
	a->play(a);
}

/* The allowed CPUs, ascending; SKIP if fewer than `need`. */
static int allowed_cpus(int need, int *cpus, int max)
{
	cpu_set_t set;
	CHECK_OK(sched_getaffinity(0, sizeof(set), &set) == 0 ? 0 : errno);
	int n = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	if (n < need)
		SKIP("needs %d CPUs, this process may use %d", need, n);
	return n;
}

/* Run the actors on backend `form` until every one has played (a service until its play
 * returns); SKIP without RT privilege. */
static void run_actors(const char *form, struct actor *actors, int n)
{
	int cpus_allowed[8];
	int n_cpus = allowed_cpus(1, cpus_allowed, 8);
	atomic_store(&log_next, 0);
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	ult_set_backend_or_skip(set, form);
	static cpu_set_t cpus[MAX_ACTORS];
	rts_task_t *made[MAX_ACTORS];
	bool fp = strstr(form, "fp") != NULL;
	for (int i = 0; i < n; i++) {
		struct actor *a = &actors[i];
		CPU_ZERO(&cpus[i]);
		if (a->cpu >= 0) {
			if (a->cpu >= n_cpus)
				SKIP("needs %d CPUs, this process may use %d", a->cpu + 1, n_cpus);
			CPU_SET(cpus_allowed[a->cpu], &cpus[i]);
		}
		int64_t period_ms = a->period_ms ? a->period_ms : 1000;
		struct rts_task_params p = {
			.name = a->name,
			.kind = a->service ? RTS_TASK_SERVICE : RTS_TASK_PERIODIC,
			.period_ns = a->service ? 0 : period_ms * MS,
			.deadline_ns = a->service ? 0 : (a->deadline_ms ? a->deadline_ms : 100) * MS,
			.offset_ns = a->service ? 0 : a->offset_ms * MS,
			.max_jobs = a->service ? 0 : a->jobs ? a->jobs : 1,
			.policy = fp ? RTS_POLICY_FIFO : RTS_POLICY_OTHER,
			.priority = fp ? a->priority : 0,
			.cpus = a->cpu >= 0 ? &cpus[i] : NULL,
			.trace_task_id = i,
		};
		int err = rts_task_create(set, &p, actor_job, a, &made[i]);
		if (err == EPERM)
			SKIP("%s", rts_taskset_error(set));
		CHECK_MSG(err == 0, "actor %s: %s: %s", a->name, h_errname(err), rts_taskset_error(set));
	}
	CHECK_OK(rts_taskset_release(set, now_ns() + 20 * MS));
	CHECK_OK(rts_taskset_join(set));
	for (int i = 0; i < n; i++)
		CHECK_OK(rts_task_stats(made[i], &actors[i].stats));
	rts_taskset_destroy(set);
}

/* A mutex of `protocol`; ceiling protocols: its ceiling, variant, and partition (CPU index, local ones). */
__attribute__((unused)) static rts_mutex_t *mutex_of(rts_mutex_t *m, int protocol, int ceiling, int variant, int partition)
{
	rts_mutexattr_t attr;
	CHECK_OK(rts_mutexattr_init(&attr));
	CHECK_OK(rts_mutexattr_setprotocol(&attr, protocol));
	if (partition >= 0) {
		int cpus[8];
		allowed_cpus(partition + 1, cpus, 8);
		CHECK_OK(rts_mutexattr_setpartition(&attr, cpus[partition]));
	}
	if (ceiling)
		CHECK_OK(rts_mutexattr_setceiling(&attr, ceiling));
	if (variant)
		CHECK_OK(rts_mutexattr_setvariant(&attr, variant));
	CHECK_OK(rts_mutex_init(m, &attr));
	CHECK_OK(rts_mutexattr_destroy(&attr));
	return m;
}

#endif
