/* SPDX-License-Identifier: MIT */
/*
 * RPC servers under the ult backend (docs/ult.md, "RPC servers"): the server
 * is a service task (RTS_TASK_SERVICE), a ULT among its clients' on one CPU
 * under fixed priorities, where the order of events is the schedule's.
 * Requests are served highest client priority first; with PI-CV a waiting
 * client lends the server its priority, so that a medium-priority job
 * cannot preempt the service it waits for (without PI-CV it does); the
 * loan ends with the reply; a server shut down by its own ULT ends every
 * waiting call with ESHUTDOWN; the EDF forms refuse a service, which has no
 * deadline.
 */
#include <rtsched/rpc.h>

#include "ult_actors.h"

#define SERVER_PRIORITY 10

struct rpc_scene {
	rts_rpc_server_t rpc;
	int expected;         /* requests the server serves before it shuts down */
	int served_priority[8];
	int served;
	int boost_in_service; /* its effective priority while serving the first request */
	int own_in_service;   /* get_attr's: its own */
	int after_reply;      /* its effective priority after the last reply */
	int64_t service_us;   /* wall-clock busy time per request */
	atomic_int calls_failed_shutdown;
	/* The first request's service lasts at least until these callers wait (NULL: none): the
	 * scene's "released meanwhile" holds whatever the machine does to the releases' timing. */
	struct actor *queued_meanwhile;
	int n_queued_meanwhile;
	struct actor *first_caller; /* the others call once its service started (NULL: when released) */
	atomic_int services_started; /* the medium job runs once the first service has */
};

enum { C_CALLS = 1, S_STARTS, S_ENDS, C_RETURNS, M_RUNS };

static void rpc_scene_init(struct rpc_scene *s, int picv, unsigned capacity, int expected,
			   int64_t service_us)
{
	memset(s, 0, sizeof(*s));
	rts_rpc_attr_t attr;
	CHECK_OK(rts_rpc_attr_init(&attr));
	CHECK_OK(rts_rpc_attr_setpicv(&attr, picv));
	CHECK_OK(rts_rpc_attr_setcapacity(&attr, capacity));
	CHECK_OK(rts_rpc_server_init(&s->rpc, &attr));
	CHECK_OK(rts_rpc_attr_destroy(&attr));
	s->expected = expected;
	s->service_us = service_us;
}

/* The server: bind, serve `expected` requests, shut down (from its own ULT), return. */
static void server_play(struct actor *a)
{
	struct rpc_scene *s = a->scene;
	CHECK_OK(rts_rpc_server_bind(&s->rpc));
	while (s->served < s->expected) {
		rts_rpc_request_t *req;
		CHECK_OK(rts_rpc_receive(&s->rpc, &req));
		log_tag(S_STARTS);
		atomic_fetch_add(&s->services_started, 1);
		s->served_priority[s->served] = req->client_priority;
		if (s->served == 0) {
			s->boost_in_service = effective_priority(0);
			s->own_in_service = own_priority(0);
		}
		busy_us(s->service_us);
		if (s->served == 0) /* busy: the callers preempt the service as they come */
			for (int64_t give_up = now_ns() + 2000 * MS; now_ns() < give_up;) {
				int waiting = 0;
				for (int i = 0; i < s->n_queued_meanwhile; i++)
					waiting += actor_blocked(&s->queued_meanwhile[i]);
				if (waiting == s->n_queued_meanwhile)
					break;
			}
		log_tag(S_ENDS);
		s->served++;
		CHECK_OK(rts_rpc_reply(&s->rpc, req, (void *)(intptr_t)(req->client_priority * 10)));
	}
	s->after_reply = effective_priority(0);
	CHECK_OK(rts_rpc_server_shutdown(&s->rpc));
}

static void client_play(struct actor *a)
{
	struct rpc_scene *s = a->scene;
	if (s->first_caller && a != s->first_caller) /* once the first call is in service */
		for (int64_t give_up = now_ns() + 2000 * MS; !atomic_load(&s->services_started) && now_ns() < give_up;)
			CHECK_OK(rts_task_sleep_until(now_ns() + 200 * 1000));
	log_tag(C_CALLS);
	void *result = NULL;
	int err = rts_rpc_call(&s->rpc, NULL, &result);
	if (err == ESHUTDOWN) {
		atomic_fetch_add(&s->calls_failed_shutdown, 1);
		return;
	}
	CHECK_OK(err);
	CHECK_EQ((intptr_t)result, (intptr_t)a->priority * 10); /* its own reply */
	log_tag(C_RETURNS);
}

/* Released 2 ms into the service; a machine that delays the releases must not release it first. */
static void medium_play(struct actor *a)
{
	struct rpc_scene *s = a->scene;
	for (int64_t give_up = now_ns() + 2000 * MS; !atomic_load(&s->services_started) && now_ns() < give_up;)
		CHECK_OK(rts_task_sleep_until(now_ns() + 200 * 1000));
	log_tag(M_RUNS);
}

/*
 * A client of priority 50 calls the server (priority 10), whose service is
 * busy for 6 ms; a job of priority 30 is released 2 ms into it. With PI-CV
 * the server runs at 50 until its reply, and the medium job waits; without
 * it the medium job preempts the service, and the client with it.
 */
static void run_loan(int picv)
{
	static struct rpc_scene s;
	rpc_scene_init(&s, picv, 4, 1, 6000);
	struct actor actors[] = {
		{.name = "server", .priority = SERVER_PRIORITY, .cpu = 0, .service = true,
		 .play = server_play, .scene = &s},
		{.name = "client", .priority = 50, .offset_ms = 2, .cpu = 0, .play = client_play, .scene = &s},
		{.name = "medium", .priority = 30, .offset_ms = 4, .cpu = 0, .play = medium_play, .scene = &s},
	};
	run_actors("ult:pfp", actors, 3);
	if (picv) {
		const int want[] = {C_CALLS, S_STARTS, S_ENDS, C_RETURNS, M_RUNS};
		check_log(want, 5);
		CHECK_EQ(s.boost_in_service, 50);
	} else {
		const int want[] = {C_CALLS, S_STARTS, M_RUNS, S_ENDS, C_RETURNS};
		check_log(want, 5);
		CHECK_EQ(s.boost_in_service, SERVER_PRIORITY);
	}
	CHECK_EQ(s.own_in_service, SERVER_PRIORITY); /* get_attr: its own, not the loan */
	CHECK_EQ(s.after_reply, SERVER_PRIORITY);    /* the loan ends with the reply */
	CHECK_EQ(actors[1].stats.jobs_completed, 1u);
	CHECK_OK(rts_rpc_server_destroy(&s.rpc));
}

static void test_waiting_client_lends_the_server_its_priority(void) { run_loan(1); }
static void test_without_picv_a_medium_job_preempts_the_service(void) { run_loan(0); }

/*
 * A client of priority 20 calls first; while it is served (8 ms), clients of
 * 30, 40 and 50 are released together and queue their calls: they are
 * served 50, 40, 30, each getting its own reply.
 */
static void run_order(int picv)
{
	static struct rpc_scene s;
	rpc_scene_init(&s, picv, 8, 4, 8000);
	struct actor actors[] = {
		{.name = "server", .priority = SERVER_PRIORITY, .cpu = 0, .service = true,
		 .play = server_play, .scene = &s},
		{.name = "first", .priority = 20, .offset_ms = 2, .cpu = 0, .play = client_play, .scene = &s},
		{.name = "c30", .priority = 30, .offset_ms = 4, .cpu = 0, .play = client_play, .scene = &s},
		{.name = "c50", .priority = 50, .offset_ms = 4, .cpu = 0, .play = client_play, .scene = &s},
		{.name = "c40", .priority = 40, .offset_ms = 4, .cpu = 0, .play = client_play, .scene = &s},
	};
	s.queued_meanwhile = &actors[2];
	s.n_queued_meanwhile = 3;
	s.first_caller = &actors[1];
	run_actors("ult:pfp", actors, 5);
	CHECK_EQ(s.served, 4);
	const int want[] = {20, 50, 40, 30};
	for (int i = 0; i < 4; i++)
		CHECK_EQ(s.served_priority[i], want[i]);
	for (int i = 1; i < 5; i++)
		CHECK_EQ(actors[i].stats.jobs_completed, 1u);
	CHECK_OK(rts_rpc_server_destroy(&s.rpc));
}

static void test_requests_are_served_by_client_priority(void) { run_order(1); }
static void test_requests_are_ordered_without_picv_too(void) { run_order(0); }

/*
 * The server serves one request (5 ms) and shuts down from its own ULT;
 * the two calls queued meanwhile return ESHUTDOWN, a ULT's wake reaching
 * ULTs (a kernel thread's would not: docs/ult.md).
 */
static void test_a_shutdown_by_the_server_ends_the_waiting_calls(void)
{
	static struct rpc_scene s;
	rpc_scene_init(&s, 1, 4, 1, 5000);
	struct actor actors[] = {
		{.name = "server", .priority = SERVER_PRIORITY, .cpu = 0, .service = true,
		 .play = server_play, .scene = &s},
		{.name = "first", .priority = 20, .offset_ms = 2, .cpu = 0, .play = client_play, .scene = &s},
		{.name = "late1", .priority = 30, .offset_ms = 4, .cpu = 0, .play = client_play, .scene = &s},
		{.name = "late2", .priority = 40, .offset_ms = 4, .cpu = 0, .play = client_play, .scene = &s},
	};
	s.queued_meanwhile = &actors[2];
	s.n_queued_meanwhile = 2;
	s.first_caller = &actors[1];
	run_actors("ult:pfp", actors, 4);
	CHECK_EQ(s.served, 1);
	CHECK_EQ(s.served_priority[0], 20);
	CHECK_EQ(atomic_load(&s.calls_failed_shutdown), 2);
	CHECK_OK(rts_rpc_server_destroy(&s.rpc));
}

static void never_played(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job, (void)arg;
	FAIL("a refused service ran");
}

/* The EDF forms order every ULT by a deadline: a service, which has none, is refused by name. */
static void test_edf_forms_refuse_a_service(void)
{
	const char *forms[] = {"ult:pedf", "ult:gedf"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		rts_taskset_t *set;
		CHECK_OK(rts_taskset_create(&set, NULL));
		if (!ult_set_backend_here(set, forms[i])) {
			rts_taskset_destroy(set);
			continue;
		}
		cpu_set_t cpus;
		CPU_ZERO(&cpus);
		int first[1];
		allowed_cpus(1, first, 1);
		CPU_SET(first[0], &cpus);
		struct rts_task_params p = {.name = "server", .kind = RTS_TASK_SERVICE,
					    .policy = RTS_POLICY_FIFO, .priority = 10, .cpus = &cpus};
		CHECK_ERR(EINVAL, rts_task_create(set, &p, never_played, NULL, NULL));
		CHECK_MSG(strstr(rts_taskset_error(set), "server: a service has no deadline") != NULL,
			  "%s", rts_taskset_error(set));
		CHECK(strstr(rts_taskset_error(set), "ult:pfp") != NULL);
		rts_taskset_destroy(set);
	}
}

static const struct h_case cases[] = {
	H_CASE(test_waiting_client_lends_the_server_its_priority, 20000),
	H_CASE(test_without_picv_a_medium_job_preempts_the_service, 20000),
	H_CASE(test_requests_are_served_by_client_priority, 20000),
	H_CASE(test_requests_are_ordered_without_picv_too, 20000),
	H_CASE(test_a_shutdown_by_the_server_ends_the_waiting_calls, 20000),
	H_CASE(test_edf_forms_refuse_a_service, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
