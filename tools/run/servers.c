/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include <rtsched/sched.h>

#include "busy.h"
#include "servers.h"
#include "clock_ns.h"

/* Hand-over between run_servers_start and a starting server thread. */
struct server_start {
	struct run_server_state *server;
	sem_t ready; /* posted once err / why are set */
	int err;
	char why[256];
};

static void serve(struct run_server_state *server)
{
	for (;;) {
		rts_rpc_request_t *request;
		if (rts_rpc_receive(&server->rpc, &request) != 0)
			return; /* ESHUTDOWN: the run is ending */
		const struct run_call *call = request->arg;
		rts_trace(server->stream, RTS_EV_RPC_SERVE_START, call->job, call->client,
			  call->service_ns);
		int64_t began_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		run_busy_ns(call->service_ns);
		rts_trace(server->stream, RTS_EV_RPC_SERVE_END, call->job, call->client,
			  clock_ns(CLOCK_THREAD_CPUTIME_ID) - began_ns);
		rts_rpc_reply(&server->rpc, request, NULL);
	}
}

static void *server_thread(void *arg)
{
	struct server_start *start = arg;
	struct run_server_state *server = start->server;
	const struct run_server *spec = server->spec;
	struct rts_sched_params params = { .policy = RTS_POLICY_FIFO, .priority = spec->priority };
	/* Affinity first: the thread never runs at its real-time priority elsewhere. */
	start->err = rts_affinity_set_self(&spec->cpus, start->why, sizeof(start->why));
	if (!start->err)
		start->err = rts_sched_apply_self(&params, start->why, sizeof(start->why));
	if (!start->err) {
		if (server->stream)
			rts_trace_stream_bind(server->stream);
		start->err = rts_rpc_server_bind(&server->rpc);
		if (start->err)
			snprintf(start->why, sizeof(start->why), "rts_rpc_server_bind: %s",
				 strerror(start->err));
	}
	bool ok = start->err == 0;
	sem_post(&start->ready); /* `start` is the starter's: not touched after this */
	if (ok)
		serve(server);
	return NULL;
}

int run_servers_init(struct run_server_state *servers, const struct run_spec *spec,
		     struct rts_trace *trace, char *error, size_t error_len)
{
	for (size_t i = 0; i < spec->n_servers; i++) {
		struct run_server_state *server = &servers[i];
		const struct run_server *s = &spec->servers[i];
		server->spec = s;
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
		if (trace) {
			err = rts_trace_stream_add(trace, -1, s->name, 0, 0, &server->stream);
			if (err) {
				snprintf(error, error_len, "servers[%zu] (%s): trace stream: %s", i,
					 s->name, strerror(err));
				return err;
			}
		}
	}
	return 0;
}

int run_servers_start(struct run_server_state *servers, size_t n, char *error, size_t error_len)
{
	for (size_t i = 0; i < n; i++) {
		struct server_start start = { .server = &servers[i] };
		if (sem_init(&start.ready, 0, 0) != 0)
			return errno;
		int err = pthread_create(&servers[i].thread, NULL, server_thread, &start);
		if (err) {
			snprintf(error, error_len, "server %s: cannot start its thread: %s",
				 servers[i].spec->name, strerror(err));
			sem_destroy(&start.ready);
			return err;
		}
		servers[i].started = true;
		while (sem_wait(&start.ready) != 0 && errno == EINTR)
			;
		sem_destroy(&start.ready);
		if (start.err) {
			snprintf(error, error_len, "server %s (SCHED_FIFO priority %d): %s",
				 servers[i].spec->name, servers[i].spec->priority,
				 start.why[0] ? start.why : strerror(start.err));
			return start.err;
		}
	}
	return 0;
}

void run_servers_shutdown(struct run_server_state *servers, size_t n)
{
	for (size_t i = 0; servers && i < n; i++)
		if (servers[i].initialised)
			rts_rpc_server_shutdown(&servers[i].rpc);
}

void run_servers_destroy(struct run_server_state *servers, size_t n)
{
	run_servers_shutdown(servers, n);
	for (size_t i = 0; servers && i < n; i++) {
		if (servers[i].started)
			pthread_join(servers[i].thread, NULL);
		servers[i].started = false;
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
