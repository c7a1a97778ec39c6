/* SPDX-License-Identifier: MIT */
/*
 * The default budget controller (include/rtsched/budget_controller.h): the
 * same integers as python/rtsched/model/budget_control.py. Products of ns
 * and ppb are taken in 128 bits.
 *
 * Invariant: free (ppb) never goes below 0 after the floors, since a grant g
 * is at most floor(free * P / PPB), so ceil(g * PPB / P) <= free.
 */
#include <rtsched/budget_controller.h>

#include "internal/export.h"

static int64_t ceil_div(__int128 a, __int128 b)
{
	return (int64_t)((a + b - 1) / b); /* a >= 0, b > 0 */
}

static int64_t ppb_ceil(int64_t budget_ns, int64_t period_ns)
{
	return ceil_div((__int128)budget_ns * RTS_BUDGET_PPB, period_ns);
}

RTS_EXPORT int64_t rts_budget_request_ns(const struct rts_budget_observation *o)
{
	int64_t demand = ceil_div((__int128)o->used_ns * (100 + o->headroom_percent), (__int128)100 * o->periods) +
			 ceil_div((__int128)o->late_ns * o->budget_ns, (__int128)o->period_ns * o->periods);
	if (demand < o->min_budget_ns)
		demand = o->min_budget_ns;
	return demand > o->max_budget_ns ? o->max_budget_ns : demand;
}

static void grant(const struct rts_budget_observation *o, int64_t *free_ppb, int64_t *budget_ns)
{
	int64_t offered = *free_ppb > 0 ? (int64_t)((__int128)*free_ppb * o->period_ns / RTS_BUDGET_PPB) : 0;
	int64_t more = rts_budget_request_ns(o) - o->min_budget_ns;
	if (more > offered)
		more = offered;
	*budget_ns += more;
	*free_ppb -= ppb_ceil(more, o->period_ns);
}

RTS_EXPORT void rts_budget_control(const struct rts_budget_observation *obs, size_t n,
				   int64_t capacity_ppb, int64_t *budgets_ns)
{
	int64_t free_ppb = capacity_ppb;
	for (size_t i = 0; i < n; i++) {
		budgets_ns[i] = obs[i].min_budget_ns;
		free_ppb -= ppb_ceil(obs[i].min_budget_ns, obs[i].period_ns);
	}
	/* by importance, largest first; within one importance in the order given */
	int64_t above = INT64_MAX;
	for (;;) {
		int64_t level = INT64_MIN;
		for (size_t i = 0; i < n; i++)
			if (obs[i].importance < above && obs[i].importance > level)
				level = obs[i].importance;
		if (level == INT64_MIN)
			return;
		for (size_t i = 0; i < n; i++)
			if (obs[i].importance == level)
				grant(&obs[i], &free_ppb, &budgets_ns[i]);
		above = level;
	}
}
