/* SPDX-License-Identifier: MIT */
/*
 * The run's RPC servers (docs/runner-input.md `servers`, the `call` action):
 * each a service task of the run's set (RTS_TASK_SERVICE, <rtsched/task.h>)
 * at its own base priority on its CPUs, under the set's backend (a kernel
 * thread, or a ULT among its clients'), serving an rts_rpc_server_t
 * (<rtsched/rpc.h>): requests ordered by caller priority, each caller waiting
 * for its reply on a condition variable whose helper is the server, so that
 * (PI-CV on) a waiting caller lends the server its priority. A request asks
 * for `service_ns` of CPU time, which the server consumes with the same busy
 * loop as the compute action.
 *
 * The end of the run: under the threads backend the main thread shuts every
 * server down (run_servers_shutdown); under the ult backend a kernel thread
 * cannot wake ULTs (docs/ult.md), so each server polls the run's stop flag
 * and shuts itself down.
 */
#ifndef RTSCHED_RUN_SERVERS_H
#define RTSCHED_RUN_SERVERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rtsched/rpc.h>
#include <rtsched/task.h>

#include "spec.h"

/* What a call carries (on the caller's stack until the reply). */
struct run_call {
	int64_t service_ns; /* CPU time to serve */
	uint32_t client;    /* the caller's task index */
	uint32_t job;       /* the caller's job number */
};

struct run_server_state {
	const struct run_server *spec;
	rts_rpc_server_t rpc;
	const atomic_bool *stopping; /* the run's; polled when poll_for_stop */
	bool poll_for_stop;          /* its clients are ULTs: it shuts itself down */
	rts_task_t *task;            /* its service task */
	bool initialised;            /* rpc is initialised */
};

/*
 * Initialise every server of spec (PI-CV as spec->picv). stopping is the
 * run's stop flag, polled by the servers when poll_for_stop. 0, or a
 * positive errno with a message in error.
 */
int run_servers_init(struct run_server_state *servers, const struct run_spec *spec,
		     const atomic_bool *stopping, bool poll_for_stop, char *error, size_t error_len);
/*
 * Make every server's service task in set (its trace stream: task id -1, the
 * server's name); it binds its server when the set is released. 0, or a
 * positive errno (the kernel refused the priority or the affinity, ...) with
 * a message in error.
 */
int run_servers_create(struct run_server_state *servers, size_t n, rts_taskset_t *set,
		       char *error, size_t error_len);
/* Shut every server down: calls not yet received return ESHUTDOWN (idempotent;
 * the threads backend only: see above). */
void run_servers_shutdown(struct run_server_state *servers, size_t n);
/* Once the set is joined (every server task has ended): destroy. */
void run_servers_destroy(struct run_server_state *servers, size_t n);

/* A call action: 0, or the error of rts_rpc_call (ESHUTDOWN when the run ends). */
int run_server_call(struct run_server_state *server, const struct run_call *call);

#endif
