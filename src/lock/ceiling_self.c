/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's level for the ceiling protocols, and its SCHED_FIFO
 * priority for their eager forms, cached per thread so that lock fast paths
 * make no system call (the invariant is in internal/ceiling.h).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>

#include <rtsched/mutex.h>

#include "internal/backend.h"
#include "internal/ceiling.h"
#include "internal/export.h"
#include "internal/sched_attr.h"

int rts_ceiling_self_read(void)
{
	struct rts_sched_attr attr = {.size = sizeof(attr)};
	int err = rts_backend()->get_attr(0, &attr);
	if (err)
		return -err;
	bool fifo = attr.sched_policy == SCHED_FIFO || attr.sched_policy == SCHED_RR;
	rts_ceiling_self.fifo_prio = fifo ? (int)attr.sched_priority : 0;
	rts_ceiling_self.deadline = attr.sched_policy == SCHED_DEADLINE;
	rts_ceiling_self.known = true;
	rts_ceiling_self.seen_changes = rts_sched_self_changes;
	return 0;
}

int rts_ceiling_self_set_fifo_prio(int prio)
{
	struct rts_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = prio > 0 ? SCHED_FIFO : SCHED_OTHER,
		.sched_priority = (uint32_t)prio,
	};
	int err = rts_backend()->set_attr(0, &attr);
	if (err)
		return -err;
	rts_ceiling_self.fifo_prio = prio;
	return 0;
}

RTS_EXPORT int rts_lock_set_self_level(int level)
{
	if (level < 0 || level > RTS_LOCK_MAX_LEVEL)
		return EINVAL;
	rts_ceiling_self.declared_level = level;
	return rts_ceiling_self_read();
}
