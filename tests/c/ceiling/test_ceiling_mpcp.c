/* SPDX-License-Identifier: MIT */
/*
 * MPCP (RTS_PROTO_MPCP), a global lock on partitioned fixed priority:
 *  - the waiters of a global lock are served in priority order (not in the
 *    order they asked);
 *  - while a holder holds, a local job of higher base priority released
 *    meanwhile does not run its body: deferred, it waits in the gate and the
 *    holder runs at its priority; eager, the holder runs at the ceiling
 *    (above every local base priority).
 */
#include "gate_scenario.h"
#include "waiter_order.h"

#define LOW 10
#define HIGH_LOCAL 30
#define GCS_PRIO 25
#define EAGER_CEILING 40

static const struct gate_params gate_table[] = {
	/* name, proto, variant, ceiling, holder prio/level, job prio/level, uses, gated */
	{ "mpcp_local_higher_job_waits", RTS_PROTO_MPCP, RTS_CEILING_DEFERRED, GCS_PRIO, LOW, 0,
	  HIGH_LOCAL, 0, false, true },
	{ "mpcp_eager_local_higher_job_waits", RTS_PROTO_MPCP, RTS_CEILING_EAGER, EAGER_CEILING, LOW,
	  0, HIGH_LOCAL, 0, false, true },
};

static void test_mpcp_gate(int i)
{
	gate_scenario(&gate_table[i]);
}

static void test_mpcp_waiters_in_priority_order(void)
{
	/* Asked in the order 15, 25, 20, 12; served 25, 20, 15, 12. */
	static const int prio[] = { 15, GCS_PRIO, 20, 12 };
	static const int order[] = { 1, 2, 0, 3 };
	waiter_order_scenario(RTS_PROTO_MPCP, GCS_PRIO, LOW, prio, 4, order);
}

static const struct h_case cases[] = {
	{ "mpcp_local_higher_job_waits", NULL, 15000, test_mpcp_gate, 0 },
	{ "mpcp_eager_local_higher_job_waits", NULL, 15000, test_mpcp_gate, 1 },
	H_CASE(test_mpcp_waiters_in_priority_order, 15000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
