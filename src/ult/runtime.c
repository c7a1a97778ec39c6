/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's runtime for one task set: what its backend name asks
 * for, the clusters of CPUs and their workers, and the ULTs (one per task).
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/kernel_reservation.h"
#include "internal/task.h"
#include "internal/ult.h"

#define SPEC_FORMS "ult, ult:gedf, ult:pedf, ult:cedf:C, ult:gfp, ult:pfp, ult:cfp:C"

/* g: one cluster of every CPU; p: one CPU per cluster; c: C CPUs per cluster. */
static const struct {
	const char *form;
	enum rts_ult_policy policy;
	char scope;
} forms[] = {
	{"gedf", RTS_ULT_EDF, 'g'}, {"pedf", RTS_ULT_EDF, 'p'}, {"cedf", RTS_ULT_EDF, 'c'},
	{"gfp", RTS_ULT_FP, 'g'},   {"pfp", RTS_ULT_FP, 'p'},   {"cfp", RTS_ULT_FP, 'c'},
};

static int parse_cluster_cpus(const char *text, const char *name, int *cpus, char *why,
			      size_t why_len)
{
	char *end;
	errno = 0;
	long value = strtol(text, &end, 10);
	if (errno || end == text || *end || value < 1 || value > RTS_ULT_MAX_CPUS) {
		snprintf(why, why_len,
			 "backend \"%s\": the cluster size \"%s\" is not a whole number of CPUs in 1..%d",
			 name, text, RTS_ULT_MAX_CPUS);
		return EINVAL;
	}
	*cpus = (int)value;
	return 0;
}

int rts_ult_spec_parse(const char *name, struct rts_ult_spec *spec, char *why, size_t why_len)
{
	*spec = (struct rts_ult_spec){.policy = RTS_ULT_EDF, .cluster_cpus = 0};
	if (strcmp(name, "ult") == 0)
		return 0;
	const char *form = strncmp(name, "ult:", 4) == 0 ? name + 4 : "";
	const char *size = strchr(form, ':');
	size_t form_len = size ? (size_t)(size - form) : strlen(form);
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (strlen(forms[i].form) != form_len || strncmp(forms[i].form, form, form_len) != 0)
			continue;
		spec->policy = forms[i].policy;
		if (forms[i].scope != 'c') {
			if (size) {
				snprintf(why, why_len,
					 "backend \"%s\": only the clustered forms (cedf, cfp) take a "
					 "cluster size",
					 name);
				return EINVAL;
			}
			spec->cluster_cpus = forms[i].scope == 'p' ? 1 : 0;
			return 0;
		}
		if (!size) {
			snprintf(why, why_len,
				 "backend \"%s\": clustered scheduling needs a cluster size, as in \"%s:2\"",
				 name, name);
			return EINVAL;
		}
		return parse_cluster_cpus(size + 1, name, &spec->cluster_cpus, why, why_len);
	}
	snprintf(why, why_len, "backend \"%s\": not an ult form (%s)", name, SPEC_FORMS);
	return EINVAL;
}

/* The CPUs the calling thread may use, ascending. */
static int allowed_cpus(struct rts_ult_runtime *rt, char *why, size_t why_len)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		int err = errno;
		snprintf(why, why_len, "ult backend: cannot read the CPU affinity: %s", strerror(err));
		return err;
	}
	rt->n_cpus = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE && rt->n_cpus < RTS_ULT_MAX_CPUS; cpu++)
		if (CPU_ISSET(cpu, &set))
			rt->cpus[rt->n_cpus++] = cpu;
	return 0;
}

static int make_clusters(struct rts_ult_runtime *rt, char *why, size_t why_len)
{
	int per_cluster = rt->spec.cluster_cpus ? rt->spec.cluster_cpus : rt->n_cpus;
	if (per_cluster > rt->n_cpus || rt->n_cpus % per_cluster != 0) {
		snprintf(why, why_len,
			 "ult backend: the %d CPUs this process may use cannot be split into clusters "
			 "of %d",
			 rt->n_cpus, per_cluster);
		return EINVAL;
	}
#if defined(__aarch64__)
	/*
	 * A ULT must not change kernel thread here: compilers for AArch64 keep
	 * the thread pointer (tpidr_el0) in a register across calls, and a
	 * preemption may come between its read and its use, so a ULT resumed
	 * on another worker would read and write the first worker's
	 * thread-local data (task_local.c swaps it per ULT). x86-64 reads
	 * thread-local data through %fs in the accessing instruction itself.
	 */
	if (per_cluster > 1) {
		snprintf(why, why_len,
			 "ult backend on AArch64: clusters of one CPU only (partitioned "
			 "scheduling), not %d: a ULT that moved to another worker would use the "
			 "first worker's thread-local data (docs/ult.md, \"AArch64\")",
			 per_cluster);
		return ENOTSUP;
	}
#endif
	int n_clusters = rt->n_cpus / per_cluster;
	rt->clusters = calloc((size_t)n_clusters, sizeof(*rt->clusters));
	if (!rt->clusters)
		return ENOMEM;
	rt->n_clusters = n_clusters;
	for (int k = 0; k < rt->n_clusters; k++) {
		struct rts_ult_cluster *c = &rt->clusters[k];
		c->runtime = rt;
		c->index = k;
		pthread_mutex_init(&c->lock, NULL);
		c->workers = calloc((size_t)per_cluster, sizeof(*c->workers));
		if (!c->workers)
			return ENOMEM;
		c->n_workers = per_cluster;
		for (int i = 0; i < per_cluster; i++) {
			c->workers[i].cluster = c;
			c->workers[i].cpu = rt->cpus[k * per_cluster + i];
			c->workers[i].cpu_clock = RTS_WORKER_CPU_CLOCK_NONE; /* opened by its thread */
		}
	}
	return 0;
}

int rts_ult_runtime_create(struct rts_ult_runtime **out, const struct rts_ult_spec *spec,
			   const struct rts_backend *backend, rts_futex_word *released,
			   _Atomic int64_t *t0_ns, char *why, size_t why_len)
{
	struct rts_ult_runtime *rt = calloc(1, sizeof(*rt));
	if (!rt)
		return ENOMEM;
	rt->spec = *spec;
	rt->backend = backend;
	rt->released = released;
	rt->t0_ns = t0_ns;
	rt->cpu_clock_method = RTS_WORKER_CPU_CLOCK_PERF_MMAP; /* until a worker cannot */
	pthread_mutex_init(&rt->wait_lock, NULL);
	int err = allowed_cpus(rt, why, why_len);
	if (!err)
		err = make_clusters(rt, why, why_len);
	if (err) {
		rts_ult_runtime_destroy(rt);
		return err;
	}
	*out = rt;
	return 0;
}

int rts_ult_runtime_start(struct rts_ult_runtime *rt, char *why, size_t why_len)
{
	if (rt->workers_started)
		return 0;
	for (int k = 0; k < rt->n_clusters; k++) {
		for (int i = 0; i < rt->clusters[k].n_workers; i++) {
			int err = rts_ult_worker_start(&rt->clusters[k].workers[i], why, why_len);
			if (err) {
				rts_ult_workers_stop(rt);
				atomic_store(&rt->shutting_down, false);
				return err;
			}
		}
	}
	rt->workers_started = true;
	return 0;
}

/* The cluster of a task: the one every CPU of its affinity is in. */
static int place(const struct rts_ult_runtime *rt, const rts_task_t *task, char *why,
		 size_t why_len)
{
	const cpu_set_t *cpus = task->params.cpus;
	if (!cpus) {
		if (rt->n_clusters == 1)
			return 0;
		snprintf(why, why_len,
			 "task %s: with %d clusters of %d CPUs the ult backend needs the task's CPUs "
			 "(cpus), all in one cluster",
			 task->name, rt->n_clusters, rt->clusters[0].n_workers);
		return -1;
	}
	int cluster = -1, first_cpu = -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, cpus))
			continue;
		int k = rts_ult_runtime_cluster_of_cpu(rt, cpu);
		if (k < 0) {
			snprintf(why, why_len,
				 "task %s: CPU %d is not one this process may use (the ult backend's "
				 "workers run on the process's affinity)",
				 task->name, cpu);
			return -1;
		}
		if (cluster >= 0 && k != cluster) {
			snprintf(why, why_len,
				 "task %s: CPUs %d and %d are in different clusters (%d and %d); a "
				 "task belongs to one",
				 task->name, first_cpu, cpu, cluster, k);
			return -1;
		}
		if (cluster < 0)
			first_cpu = cpu;
		cluster = k;
	}
	if (cluster < 0)
		snprintf(why, why_len, "task %s: its CPU set is empty", task->name);
	return cluster;
}

static int append(struct rts_ult_runtime *rt, struct rts_ult *u)
{
	if (rt->n_ults == rt->ults_capacity) {
		size_t capacity = rt->ults_capacity ? 2 * rt->ults_capacity : 8;
		struct rts_ult **ults = realloc(rt->ults, capacity * sizeof(*ults));
		if (!ults)
			return ENOMEM;
		rt->ults = ults;
		rt->ults_capacity = capacity;
	}
	rt->ults[rt->n_ults++] = u;
	return 0;
}

struct rts_ult_cluster *rts_ult_runtime_cluster_for(const struct rts_ult_runtime *rt,
						    const rts_task_t *task, char *why, size_t why_len)
{
	int cluster = place(rt, task, why, why_len);
	return cluster < 0 ? NULL : &rt->clusters[cluster];
}

int rts_ult_runtime_check(const struct rts_ult_runtime *rt, const rts_task_t *task, char *why,
			  size_t why_len)
{
	int cluster = place(rt, task, why, why_len);
	if (cluster < 0)
		return EINVAL;
	if (task->params.reservation)
		return rts_ult_reservation_check(rt, cluster, task, why, why_len);
	const struct rts_reservation *kernel = rts_ult_kernel_reservation_of(&rt->clusters[cluster]);
	if (kernel) {
		snprintf(why, why_len, "task %s: CPU %d's top level is reservation %s, enforced by the "
			 "kernel: attach the task to it or to a reservation inside it", task->name,
			 rt->clusters[cluster].workers[0].cpu, kernel->name);
		return EINVAL;
	}
	if (task->params.kind == RTS_TASK_SERVICE && rt->spec.policy != RTS_ULT_FP) {
		snprintf(why, why_len,
			 "task %s: a service has no deadline, by which the ult backend's EDF forms "
			 "order every task: run it under a fixed-priority form (ult:gfp, ult:pfp, "
			 "ult:cfp:C)",
			 task->name);
		return EINVAL;
	}
	if (rt->spec.policy == RTS_ULT_FP && task->params.policy != RTS_POLICY_FIFO &&
	    task->params.policy != RTS_POLICY_OTHER) {
		snprintf(why, why_len,
			 "task %s: fixed-priority ult scheduling orders tasks by their SCHED_FIFO "
			 "priority: give it policy fifo and a priority in 1..99 (or policy other: "
			 "background)",
			 task->name);
		return EINVAL;
	}
	return 0;
}

int rts_ult_runtime_add(struct rts_ult_runtime *rt, rts_task_t *task,
			void (*body)(rts_task_t *task), struct rts_ult **out, char *why,
			size_t why_len)
{
	int cluster = place(rt, task, why, why_len);
	if (cluster < 0)
		return EINVAL;
	struct rts_ult *u = calloc(1, sizeof(*u));
	if (!u)
		return ENOMEM;
	u->cluster = &rt->clusters[cluster];
	u->task = task;
	u->body = body;
	u->reservation = task->params.reservation;
	u->id = RTS_ULT_ID_BIT | (uint32_t)(rt->n_ults + 1);
	u->key = INT64_MIN; /* its first act is the sleep to its first release */
	u->base_key = INT64_MIN;
	u->boost_key = INT64_MAX;
	u->attr_priority = task->params.priority;
	u->attr_deadline_ns = task->params.deadline_ns;
	/* Under EDF forms every task is ordered by its deadline, whatever its
	 * policy (as before background tasks existed; docs/ult.md). */
	u->background = !u->reservation && rt->spec.policy == RTS_ULT_FP &&
			task->params.policy == RTS_POLICY_OTHER;
	/* A service never sleeps to a release: it runs at its own key from the start. */
	if (task->params.kind == RTS_TASK_SERVICE)
		u->key = u->base_key = rts_ult_release_key(u->cluster, u, 0);
	u->last_cpu = -1;
	u->trace.stream = task->stream;
	rts_task_local_init(&u->local, u->id, &u->cond_record, &u->fifo_cache);
	size_t stack_bytes = task->params.stack_bytes ? task->params.stack_bytes : RTS_ULT_STACK_BYTES;
	int err = -rts_ult_context_create(&u->context, stack_bytes, rts_ult_start, u);
	if (!err && (err = append(rt, u)) != 0)
		rts_ult_context_destroy(&u->context);
	if (err) {
		snprintf(why, why_len, "task %s: cannot make its user-level thread: %s", task->name,
			 strerror(err));
		free(u);
		return err;
	}
	pthread_mutex_lock(&u->cluster->lock);
	rts_ult_ready_insert(u->cluster, u);
	u->cluster->live_ults++;
	pthread_mutex_unlock(&u->cluster->lock);
	if (u->reservation)
		u->reservation->n_tasks++; /* the controlling thread, before the release */
	*out = u;
	return 0;
}

struct rts_ult *rts_ult_runtime_find_task(const struct rts_ult_runtime *rt, const rts_task_t *task)
{
	for (size_t i = 0; i < rt->n_ults; i++)
		if (rt->ults[i]->task == task)
			return rt->ults[i];
	return NULL;
}

struct rts_ult *rts_ult_runtime_find_id(const struct rts_ult_runtime *rt, uint32_t id)
{
	uint32_t index = (id & ~RTS_ULT_ID_BIT) - 1;
	if (!(id & RTS_ULT_ID_BIT) || index >= rt->n_ults)
		return NULL;
	return rt->ults[index];
}

void rts_ult_runtime_destroy(struct rts_ult_runtime *rt)
{
	if (!rt)
		return;
	rts_ult_workers_stop(rt);
	for (size_t i = 0; i < rt->n_ults; i++) {
		rts_ult_context_destroy(&rt->ults[i]->context);
		free(rt->ults[i]);
	}
	free(rt->ults);
	for (int k = 0; rt->clusters && k < rt->n_clusters; k++) {
		struct rts_ult_cluster *c = &rt->clusters[k];
		rts_ult_reservations_free(c);
		for (int i = 0; c->workers && i < c->n_workers; i++)
			if (c->workers[i].has_timer)
				timer_delete(c->workers[i].timer);
		pthread_mutex_destroy(&c->lock);
		free(c->workers);
	}
	free(rt->clusters);
	pthread_mutex_destroy(&rt->wait_lock);
	free(rt);
}
