/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rtsched/trace.h>

#include "busy.h"
#include "servers.h"
#include "clock_ns.h"

/* How often a server that polls for the end of the run looks at the flag. */
#define STOP_POLL_NS (100 * 1000 * 1000)

/* The next request; ESHUTDOWN once the server is shut down. */
static int next_request(struct run_server_state *server, rts_rpc_request_t **request)
{
	if (!server->poll_for_stop)
		return rts_rpc_receive(&server->rpc, request);
	for (;;) {
		if (atomic_load(server->stopping))
			rts_rpc_server_shutdown(&server->rpc); /* by a ULT: reaches the ULTs waiting */
		int64_t deadline_ns = clock_ns(CLOCK_MONOTONIC) + STOP_POLL_NS;
		struct timespec deadline = { .tv_sec = deadline_ns / 1000000000,
					     .tv_nsec = deadline_ns % 1000000000 };
		int err = rts_rpc_receive_until(&server->rpc, request, &deadline);
		if (err != ETIMEDOUT)
			return err;
	}
}

/* The service task's body: bind, then serve until the server is shut down. */
static void serve(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)job;
	struct run_server_state *server = arg;
	struct rts_trace_stream *stream = rts_task_trace_stream(task);
	int err = rts_rpc_server_bind(&server->rpc);
	if (err) {
		fprintf(stderr, "rtsched-run: server %s: rts_rpc_server_bind: %s\n",
			server->spec->name, strerror(err));
		rts_rpc_server_shutdown(&server->rpc); /* its callers get ESHUTDOWN, not a hang */
		return;
	}
	for (;;) {
		rts_rpc_request_t *request;
		if (next_request(server, &request) != 0)
			return; /* ESHUTDOWN: the run is ending */
		const struct run_call *call = request->arg;
		rts_trace(stream, RTS_EV_RPC_SERVE_START, call->job, call->client, call->service_ns);
		int64_t began_ns = rts_task_cputime_ns();
		run_busy_ns(call->service_ns);
		rts_trace(stream, RTS_EV_RPC_SERVE_END, call->job, call->client,
			  rts_task_cputime_ns() - began_ns);
		rts_rpc_reply(&server->rpc, request, NULL);
	}
}

int run_servers_init(struct run_server_state *servers, const struct run_spec *spec,
		     const atomic_bool *stopping, bool poll_for_stop, char *error, size_t error_len)
{
	for (size_t i = 0; i < spec->n_servers; i++) {
		struct run_server_state *server = &servers[i];
		const struct run_server *s = &spec->servers[i];
		server->spec = s;
		server->stopping = stopping;
		server->poll_for_stop = poll_for_stop;
		rts_rpc_attr_t attr;
		int err = rts_rpc_attr_init(&attr);
		if (!err)
			err = rts_rpc_attr_setcapacity(&attr, s->queue_capacity);
		if (!err)
			err = rts_rpc_attr_setpicv(&attr, spec->picv ? 1 : 0);
		if (!err)
			err = rts_rpc_server_init(&server->rpc, &attr);
		rts_rpc_attr_destroy(&attr);
		if (err) {
			snprintf(error, error_len, "servers[%zu] (%s): %s", i, s->name, strerror(err));
			return err;
		}
		server->initialised = true;
	}
	return 0;
}

int run_servers_create(struct run_server_state *servers, size_t n, rts_taskset_t *set,
		       char *error, size_t error_len)
{
	for (size_t i = 0; i < n; i++) {
		const struct run_server *s = servers[i].spec;
		struct rts_task_params params = {
			.name = s->name,
			.kind = RTS_TASK_SERVICE,
			.policy = RTS_POLICY_FIFO,
			.priority = s->priority,
			.cpus = &s->cpus,
			.trace_task_id = -1,
		};
		int err = rts_task_create(set, &params, serve, &servers[i], &servers[i].task);
		if (err) {
			snprintf(error, error_len, "server %s (SCHED_FIFO priority %d): %s", s->name,
				 s->priority, rts_taskset_error(set));
			return err;
		}
	}
	return 0;
}

void run_servers_shutdown(struct run_server_state *servers, size_t n)
{
	for (size_t i = 0; servers && i < n; i++)
		if (servers[i].initialised && !servers[i].poll_for_stop)
			rts_rpc_server_shutdown(&servers[i].rpc);
}

void run_servers_destroy(struct run_server_state *servers, size_t n)
{
	for (size_t i = 0; servers && i < n; i++) {
		if (servers[i].initialised) {
			int err = rts_rpc_server_destroy(&servers[i].rpc);
			if (err)
				fprintf(stderr, "rtsched-run: server %s: destroy: %s\n",
					servers[i].spec->name, strerror(err));
		}
		servers[i].initialised = false;
	}
}

int run_server_call(struct run_server_state *server, const struct run_call *call)
{
	return rts_rpc_call(&server->rpc, (void *)call, NULL);
}
