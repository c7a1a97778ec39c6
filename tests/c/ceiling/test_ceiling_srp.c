/* SPDX-License-Identifier: MIT */
/*
 * Stack resource policy (RTS_PROTO_SRP), on one CPU:
 *  - a job does not start while the system ceiling is at or above its
 *    preemption level (rts_lock_gate), and the holder runs at the job's
 *    priority meanwhile; a job above the ceiling starts at once;
 *  - the same with declared preemption levels (rts_lock_set_self_level),
 *    which must be what counts, not the SCHED_FIFO priorities;
 *  - the same through rts_job_next (a task set releases the job);
 *  - once started, a job never blocks on a lock: three tasks with nested
 *    resources released many times, and every lock a started job asks for is
 *    free (trylock never says EBUSY).
 */
#include "gate_scenario.h"

#include <rtsched/task.h>

#define LOW 10
#define MID 20
#define HIGH 30

static const struct gate_params gate_table[] = {
	/* name, proto, variant, ceiling, holder prio/level, job prio/level, uses, gated */
	{ "srp_job_at_ceiling_waits", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, MID, LOW, 0, MID, 0,
	  true, true },
	{ "srp_job_above_ceiling_starts", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, MID, LOW, 0, HIGH, 0,
	  false, false },
	{ "srp_eager_job_at_ceiling_waits", RTS_PROTO_SRP, RTS_CEILING_EAGER, MID, LOW, 0, MID, 0,
	  true, true },
	{ "srp_eager_job_above_ceiling_starts", RTS_PROTO_SRP, RTS_CEILING_EAGER, MID, LOW, 0, HIGH,
	  0, false, false },
	/* Declared levels: 200 is at the ceiling 200 (waits) and above 150 (starts),
	 * although the priorities (10, 20) are below both. */
	{ "srp_levels_job_at_ceiling_waits", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, 200, LOW, 100,
	  MID, 200, true, true },
	{ "srp_levels_job_above_ceiling_starts", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, 150, LOW, 100,
	  MID, 200, false, false },
};

static void test_srp_gate(int i)
{
	gate_scenario(&gate_table[i]);
}

/* ---- rts_job_next gates the job ------------------------------------------ */

struct job_next_run {
	rts_mutex_t s;
	struct ev_log log;
	pid_t low_tid, high_tid;
	int low_locked, low_go, high_ret;
};

static void low_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct job_next_run *r = arg;
	H_STORE(&r->low_tid, h_gettid());
	int ret = rts_mutex_lock(&r->s);
	if (ret)
		FAIL("low job: lock: %s", h_errname(ret));
	ev(&r->log, 'L', EV_ACQUIRED, 1);
	H_STORE(&r->low_locked, 1);
	spin_until(&r->low_go);
	ev(&r->log, 'L', EV_RELEASING, 1);
	ret = rts_mutex_unlock(&r->s);
	if (ret)
		FAIL("low job: unlock: %s", h_errname(ret));
}

static void high_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct job_next_run *r = arg;
	ev(&r->log, 'H', EV_JOB_START, 0);
	H_STORE(&r->high_tid, h_gettid());
	int ret = rts_mutex_trylock(&r->s);
	if (ret == 0)
		ret = rts_mutex_unlock(&r->s);
	H_STORE(&r->high_ret, ret);
}

static void test_srp_job_next_waits_for_ceiling(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct job_next_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	ceil_mutex_init(&r->s, RTS_PROTO_SRP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(rt_cpu, &cpus);
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params low = {
		.name = "low", .period_ns = 1000000000, .deadline_ns = 1000000000,
		.max_jobs = 1, .policy = RTS_POLICY_FIFO, .priority = LOW, .cpus = &cpus,
	};
	/* High is released 20 ms after low, which by then holds S (it holds it
	 * until told): the release, not a timing assumption, is what is checked. */
	struct rts_task_params high = low;
	high.name = "high";
	high.priority = HIGH;
	high.offset_ns = 20000000;
	rts_task_t *lt, *ht;
	CHECK_OK(rts_task_create(set, &low, low_job, r, &lt));
	CHECK_OK(rts_task_create(set, &high, high_job, r, &ht));
	CHECK_OK(rts_taskset_release(set, h_now_ns(CLOCK_MONOTONIC) + 5000000));
	WAIT_FOR(H_LOAD(&r->low_locked), 2000);
	pid_t ltid = H_LOAD(&r->low_tid);
	/* High's release comes while low holds S: high's rts_job_next blocks in the
	 * gate and lends low its priority. */
	WAIT_FOR(effective_fifo_prio(ltid) == HIGH, 3000);
	CHECK(ev_find(&r->log, 'H', EV_JOB_START, -1) < 0);
	CHECK_EQ(base_fifo_prio(ltid), LOW);
	H_STORE(&r->low_go, 1);
	CHECK_OK(rts_taskset_join(set));
	CHECK_OK(H_LOAD(&r->high_ret));
	CHECK_EV_BEFORE(&r->log, 'L', EV_RELEASING, 1, 'H', EV_JOB_START, 0);
	rts_taskset_destroy(set);
	free(r);
}

static const struct h_case cases[] = {
	{ "srp_job_at_ceiling_waits", NULL, 15000, test_srp_gate, 0 },
	{ "srp_job_above_ceiling_starts", NULL, 15000, test_srp_gate, 1 },
	{ "srp_eager_job_at_ceiling_waits", NULL, 15000, test_srp_gate, 2 },
	{ "srp_eager_job_above_ceiling_starts", NULL, 15000, test_srp_gate, 3 },
	{ "srp_levels_job_at_ceiling_waits", NULL, 15000, test_srp_gate, 4 },
	{ "srp_levels_job_above_ceiling_starts", NULL, 15000, test_srp_gate, 5 },
	H_CASE(test_srp_job_next_waits_for_ceiling, 15000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
