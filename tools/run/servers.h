/* SPDX-License-Identifier: MIT */
/*
 * The run's RPC servers (docs/runner-input.md `servers`, the `call` action):
 * one SCHED_FIFO thread per server, at its own base priority on its CPUs,
 * serving an rts_rpc_server_t (<rtsched/rpc.h>): requests ordered by caller
 * priority, each caller waiting for its reply on a condition variable whose
 * helper is the server thread, so that (PI-CV on) a waiting caller lends the
 * server its priority. A request asks for `service_ns` of CPU time, which the
 * server consumes with the same busy loop as the compute action.
 */
#ifndef RTSCHED_RUN_SERVERS_H
#define RTSCHED_RUN_SERVERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rtsched/rpc.h>
#include <rtsched/trace.h>

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
	struct rts_trace_stream *stream; /* NULL without a trace */
	pthread_t thread;
	bool initialised; /* rpc is initialised */
	bool started;     /* thread runs (and must be joined) */
};

/*
 * Initialise every server of spec (PI-CV as spec->picv) and add its trace
 * stream (task id -1, the server's name) when trace is not NULL: before
 * rts_trace_start. 0, or a positive errno with a message in error.
 */
int run_servers_init(struct run_server_state *servers, const struct run_spec *spec,
		     struct rts_trace *trace, char *error, size_t error_len);
/*
 * Start every server thread and wait until each runs at its priority on its
 * CPUs and has bound its server. 0, or a positive errno (the kernel refused
 * the priority or the affinity, ...) with a message in error.
 */
int run_servers_start(struct run_server_state *servers, size_t n, char *error, size_t error_len);
/* Shut every server down: calls not yet received return ESHUTDOWN (idempotent). */
void run_servers_shutdown(struct run_server_state *servers, size_t n);
/* After run_servers_shutdown and once no task calls any more: join and destroy. */
void run_servers_destroy(struct run_server_state *servers, size_t n);

/* A call action: 0, or the error of rts_rpc_call (ESHUTDOWN when the run ends). */
int run_server_call(struct run_server_state *server, const struct run_call *call);

#endif
