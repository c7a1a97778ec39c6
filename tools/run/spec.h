/* SPDX-License-Identifier: MIT */
/*
 * The runner's input (docs/runner-input.md, format "rtsched-runner/14"), read
 * with jansson into plain structs. Every problem is reported with its JSON
 * path; unknown keys are errors.
 */
#ifndef RTSCHED_RUN_SPEC_H
#define RTSCHED_RUN_SPEC_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rtsched/mutex.h>
#include <rtsched/reservation.h>
#include <rtsched/task.h>

#define RUN_NAME_MAX 64
#define RUN_PATH_MAX 512

enum run_op {
	RUN_OP_COMPUTE,
	RUN_OP_LOCK,
	RUN_OP_UNLOCK,
	RUN_OP_WAIT,
	RUN_OP_SIGNAL,
	RUN_OP_BROADCAST,
	RUN_OP_SLEEP,
	RUN_OP_CALL,
	RUN_OP_PREM,
	RUN_OP_MEMWRITE,
	RUN_OP_IOWRITE,
	RUN_OP_ACTIVATE,
	RUN_OP_AFFINITY,
	RUN_OP_SCHED,
	RUN_OP_TASKGROUP,
};

#define RUN_PREM_BUFFERS_MAX 8
#define RUN_LINE_BYTES 64                  /* the memory phase's stride */
#define RUN_BUFFER_MAX_BYTES (256ll << 20) /* one buffer at most (rtsched.model.prem) */
/* Per-job durations of one compute at most (rtsched.model.demand MAX_JOB_DURATIONS). */
#define RUN_PER_JOB_MAX (1 << 20)

struct run_action {
	enum run_op op;
	int64_t ns;     /* compute, sleep; call: the service asked for */
	/* compute with a varying demand: job k (from 1) computes per_job_ns[(k - 1) % n_per_job],
	 * each in [0, ns]; NULL (n_per_job 0): every job computes ns */
	int64_t *per_job_ns;
	size_t n_per_job;
	uint32_t index; /* resource, condvar, server, or the task activate activates */
	/* prem: ns is the execution phase's compute; the interval lasts length_ns from its start */
	int64_t length_ns;
	uint64_t buffer_bytes[RUN_PREM_BUFFERS_MAX];
	uint32_t n_buffers;
	bool random_access;
	/* memwrite, iowrite (writes.h): write_bytes per job, in chunks of chunk_bytes; iowrite's device */
	uint64_t write_bytes;
	uint64_t chunk_bytes;
	char *device; /* malloc'd; NULL for other ops */
	/* affinity: the thread's CPUs from here on, a non-empty subset of run_spec.cpus */
	cpu_set_t cpus;
	/* sched: the thread's policy from here on (fifo, other, batch, idle) */
	struct rts_sched_params sched;
	/* taskgroup: the cpu cgroup the thread joins, "/a/b" under the cpu controller's mount
	 * (malloc'd; NULL for other ops); taskgroups.c makes it the folder's whole path */
	char *taskgroup;
};

struct run_task {
	char name[RUN_NAME_MAX];
	struct rts_task_params params; /* params.name / params.cpus point into this struct */
	cpu_set_t cpus;
	int cpuset;                    /* index into run_spec.cpusets, -1: none */
	char *taskgroup;               /* rt-app's taskgroup, as taskgroup ops have it; NULL: none */
	int lock_level;                /* SRP preemption level to declare; 0: none (the priority) */
	int prem_priority;             /* prem actions run at this SCHED_FIFO priority; 0: no prem action */
	uint64_t peripheral_buffer_bytes; /* a peripheral (gated by memory phases); 0: not one */
	int reservation;               /* index into run_spec.reservations, -1: none */
	struct run_action *body;
	size_t body_len;
};

struct run_cpuset {
	char name[RUN_NAME_MAX];
	cpu_set_t cpus;
};

struct run_resource {
	char name[RUN_NAME_MAX];
	enum rts_protocol protocol;
	enum rts_ceiling_variant variant; /* ceiling protocols */
	int ceiling;                      /* ceiling protocols; 0: none (FMLP+ deferred) */
	int partition_cpu;                /* local ceiling protocols (PCP, SRP, IPCP); -1: none */
};

struct run_condvar {
	char name[RUN_NAME_MAX];
	uint32_t mutex;
};

/* An RPC server: a SCHED_FIFO thread serving calls one at a time (servers.h). */
struct run_server {
	char name[RUN_NAME_MAX];
	int priority;
	cpu_set_t cpus;
	uint32_t queue_capacity;
};

/*
 * A reservation of the ult backend (<rtsched/reservation.h>): its parent
 * comes before it in the list (-1: the top level of CPU `cpu`'s cluster).
 * `handle` is set when the runner makes it (reservations.h).
 */
struct run_reservation {
	char name[RUN_NAME_MAX];
	int64_t period_ns;
	int64_t budget_ns;
	enum rts_reservation_kind kind;
	enum rts_reservation_order order;
	int priority; /* 1..99 under an FP parent; 0 otherwise */
	int cpu;
	int parent;
	struct rts_reservation_control control; /* period_ns 0: a fixed budget */
	enum rts_reservation_enforcement enforcement;
	int cpuset; /* kernel enforcement: index into run_spec.cpusets of its worker's; -1: none */
	rts_reservation_t *handle;
};

struct run_spec {
	char name[RUN_NAME_MAX];
	char scheduler[16];
	char backend[32]; /* rts_taskset_set_backend's name: "threads", "ult:pfp", ... */
	int64_t duration_ns;
	int64_t release_delay_ns;
	cpu_set_t cpus;
	struct run_cpuset *cpusets;
	size_t n_cpusets;
	struct run_resource *resources;
	size_t n_resources;
	struct run_condvar *condvars;
	size_t n_condvars;
	bool picv; /* callers lend their priority to the server they wait for */
	struct run_server *servers;
	size_t n_servers;
	struct run_reservation *reservations;
	size_t n_reservations;
	struct run_task *tasks;
	size_t n_tasks;
	char trace_path[RUN_PATH_MAX];
	uint32_t trace_buffer_events;
	bool trace_ftrace_markers;
};

/* 0, or -1 with `error` set to "path: what is wrong". */
int run_spec_load(const char *file, struct run_spec *spec, char *error, size_t error_len);
void run_spec_free(struct run_spec *spec);

#endif
