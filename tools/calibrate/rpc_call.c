/* SPDX-License-Identifier: MIT */
#include "measures.h"
#include "clock_ns.h"
#include "pinned.h"
#include "pinned_thread.h"

#include <rtsched/rpc.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

/* The server's service of the request being answered: set by the server, read by the client after its reply. */
struct rpc_rig {
	rts_rpc_server_t server;
	_Atomic uint64_t service_ns;
	atomic_int server_err;
};

static void *server_main(void *arg)
{
	struct rpc_rig *rig = arg;
	int err = rts_rpc_server_bind(&rig->server);
	while (!err) {
		rts_rpc_request_t *req;
		if ((err = rts_rpc_receive(&rig->server, &req)))
			break;
		uint64_t start = (uint64_t)clock_ns(CLOCK_MONOTONIC);
		atomic_store(&rig->service_ns, (uint64_t)clock_ns(CLOCK_MONOTONIC) - start); /* zero service: only the clock */
		err = rts_rpc_reply(&rig->server, req, NULL);
	}
	atomic_store(&rig->server_err, err == ESHUTDOWN ? 0 : err);
	return NULL;
}

/* Median cost of reading the thread CPU-time clock twice in a row. */
static uint64_t cpu_clock_pair_ns(void)
{
	struct cal_samples pairs;
	if (cal_samples_init(&pairs, 1001))
		return 0;
	for (int i = 0; i < 1001; i++) {
		uint64_t a = (uint64_t)clock_ns(CLOCK_THREAD_CPUTIME_ID);
		cal_samples_add(&pairs, (uint64_t)clock_ns(CLOCK_THREAD_CPUTIME_ID) - a);
	}
	uint64_t median = cal_samples_median(&pairs);
	cal_samples_free(&pairs);
	return median;
}

/* One call: 0 or an error number of rts_rpc_call. */
static int one_call(struct rpc_rig *rig, uint64_t clock_pair_ns, struct cal_samples *round_trip_ns,
		    struct cal_samples *client_cpu_ns)
{
	uint64_t cpu0 = (uint64_t)clock_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t t0 = (uint64_t)clock_ns(CLOCK_MONOTONIC);
	int err = rts_rpc_call(&rig->server, NULL, NULL);
	uint64_t t1 = (uint64_t)clock_ns(CLOCK_MONOTONIC);
	uint64_t cpu1 = (uint64_t)clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (err || !round_trip_ns)
		return err;
	uint64_t wall = t1 - t0, service = atomic_load(&rig->service_ns);
	uint64_t cpu = cpu1 - cpu0;
	cal_samples_add(round_trip_ns, wall > service ? wall - service : 0);
	cal_samples_add(client_cpu_ns, cpu > clock_pair_ns ? cpu - clock_pair_ns : 0);
	return 0;
}

int cal_rpc_call(const struct cal_options *o, struct cal_samples *round_trip_ns,
		 struct cal_samples *client_cpu_ns, char *why, size_t why_len)
{
	struct rpc_rig rig = {0};
	rts_rpc_attr_t attr;
	rts_rpc_attr_init(&attr);
	rts_rpc_attr_setpicv(&attr, 1);
	int err = rts_rpc_server_init(&rig.server, &attr);
	rts_rpc_attr_destroy(&attr);
	if (err) {
		snprintf(why, why_len, "rts_rpc_server_init");
		return err;
	}
	pthread_t server;
	if ((err = pinned_thread_start(&server, server_main, &rig, o->priority - 1, o->cpu))) {
		snprintf(why, why_len, "starting the server thread (SCHED_FIFO %d, CPU %d)", o->priority - 1, o->cpu);
		rts_rpc_server_destroy(&rig.server);
		return err;
	}
	uint64_t pair = cpu_clock_pair_ns();
	for (unsigned i = 0; i < CAL_BATCH && !err; i++) /* warm-up; the first call waits for the bind */
		err = one_call(&rig, pair, NULL, NULL);
	while (!err && round_trip_ns->n < round_trip_ns->capacity) {
		cal_pause_ns(CAL_PAUSE_NS);
		for (unsigned i = 0; i < CAL_BATCH && !err && round_trip_ns->n < round_trip_ns->capacity; i++)
			err = one_call(&rig, pair, round_trip_ns, client_cpu_ns);
	}
	if (err)
		snprintf(why, why_len, "rts_rpc_call");
	rts_rpc_server_shutdown(&rig.server);
	pthread_join(server, NULL);
	int server_err = atomic_load(&rig.server_err);
	if (!err && server_err) {
		err = server_err;
		snprintf(why, why_len, "the server thread (bind, receive or reply)");
	}
	rts_rpc_server_destroy(&rig.server);
	return err;
}
