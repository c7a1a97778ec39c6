/* SPDX-License-Identifier: MIT */
/*
 * Immediate ceiling (RTS_PROTO_IPCP, PTHREAD_PRIO_PROTECT semantics), on one
 * CPU: while a lock is held, a job whose priority is at or below the ceiling
 * does not run its body (deferred: it waits in the gate and the holder runs
 * at its priority; eager: the holder runs at the ceiling, so the job is never
 * scheduled), and a job above the ceiling does run. The eager holder shows
 * the ceiling in sched_getattr while it holds the lock, and its own priority
 * after; the deferred holder never changes its own priority.
 */
#include "gate_scenario.h"

#define LOW 10
#define MID 20
#define CEILING 25
#define HIGH 30

static const struct gate_params gate_table[] = {
	/* name, proto, variant, ceiling, holder prio/level, job prio/level, uses, gated */
	{ "ipcp_job_at_ceiling_waits", RTS_PROTO_IPCP, RTS_CEILING_DEFERRED, CEILING, LOW, 0,
	  CEILING, 0, true, true },
	{ "ipcp_job_below_ceiling_waits", RTS_PROTO_IPCP, RTS_CEILING_DEFERRED, CEILING, LOW, 0, MID,
	  0, true, true },
	{ "ipcp_job_above_ceiling_preempts", RTS_PROTO_IPCP, RTS_CEILING_DEFERRED, CEILING, LOW, 0,
	  HIGH, 0, false, false },
	{ "ipcp_eager_job_at_ceiling_waits", RTS_PROTO_IPCP, RTS_CEILING_EAGER, CEILING, LOW, 0,
	  CEILING, 0, true, true },
	{ "ipcp_eager_job_below_ceiling_waits", RTS_PROTO_IPCP, RTS_CEILING_EAGER, CEILING, LOW, 0,
	  MID, 0, true, true },
	{ "ipcp_eager_job_above_ceiling_preempts", RTS_PROTO_IPCP, RTS_CEILING_EAGER, CEILING, LOW,
	  0, HIGH, 0, false, false },
};

static void test_ipcp_gate(int i)
{
	gate_scenario(&gate_table[i]);
}

/* Eager: raised at lock, restored at unlock, also when locks nest. */
static void test_ipcp_eager_nested_restores_each_level(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	h_pin_cpu(rt_cpu);
	h_set_fifo(LOW);
	rts_mutex_t outer, inner;
	ceil_mutex_init(&outer, RTS_PROTO_IPCP, MID, rt_cpu, RTS_CEILING_EAGER);
	ceil_mutex_init(&inner, RTS_PROTO_IPCP, CEILING, rt_cpu, RTS_CEILING_EAGER);
	pid_t me = h_gettid();
	CHECK_OK(rts_mutex_lock(&outer));
	int in_outer = base_fifo_prio(me);
	CHECK_OK(rts_mutex_lock(&inner));
	int in_inner = base_fifo_prio(me);
	int eff_inner = effective_fifo_prio(me);
	CHECK_OK(rts_mutex_unlock(&inner));
	int back_in_outer = base_fifo_prio(me);
	CHECK_OK(rts_mutex_unlock(&outer));
	int after = base_fifo_prio(me);
	int eff_after = effective_fifo_prio(me);
	h_set_fifo(0);
	h_pin_cpu(free_cpu);
	CHECK_EQ(in_outer, MID);
	CHECK_EQ(in_inner, CEILING);
	CHECK_EQ(eff_inner, CEILING);
	CHECK_EQ(back_in_outer, MID);
	CHECK_EQ(after, LOW);
	CHECK_EQ(eff_after, LOW);
}

static const struct h_case cases[] = {
	{ "ipcp_job_at_ceiling_waits", NULL, 15000, test_ipcp_gate, 0 },
	{ "ipcp_job_below_ceiling_waits", NULL, 15000, test_ipcp_gate, 1 },
	{ "ipcp_job_above_ceiling_preempts", NULL, 15000, test_ipcp_gate, 2 },
	{ "ipcp_eager_job_at_ceiling_waits", NULL, 15000, test_ipcp_gate, 3 },
	{ "ipcp_eager_job_below_ceiling_waits", NULL, 15000, test_ipcp_gate, 4 },
	{ "ipcp_eager_job_above_ceiling_preempts", NULL, 15000, test_ipcp_gate, 5 },
	H_CASE(test_ipcp_eager_nested_restores_each_level, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
