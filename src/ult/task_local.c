/* SPDX-License-Identifier: MIT */
/* The per-task TLS a user-level scheduler swaps at each switch (internal/task_local.h). */
#include <string.h>

#include "internal/ceiling.h"
#include "internal/handover.h"
#include "internal/sched_self.h"
#include "internal/task_local.h"
#include "internal/tid.h"

_Static_assert(sizeof(struct rts_ceiling_self) <= sizeof(((struct rts_task_local *)0)->ceiling_self),
	       "the ceiling protocols' per-task cache fits its slot");

void rts_task_local_init(struct rts_task_local *local, uint32_t tid,
			 struct rts_task_cond_record *cond_record,
			 struct rts_task_fifo_cache *fifo_cache)
{
	memset(local, 0, sizeof(*local));
	local->tid = tid;
	local->cond_record = cond_record;
	memset(fifo_cache, 0, sizeof(*fifo_cache));
	local->fifo_cache = fifo_cache;
}

void rts_task_local_save(struct rts_task_local *local)
{
	local->tid = rts_tid_cache;
	local->sched_changes = rts_sched_self_changes;
	local->handovers = rts_handovers_parked;
	local->cond_record = rts_task_cond_record;
	local->fifo_cache = rts_task_fifo_cache;
	memcpy(local->ceiling_self, &rts_ceiling_self, sizeof(rts_ceiling_self));
}

void rts_task_local_load(const struct rts_task_local *local)
{
	rts_tid_cache = local->tid;
	rts_sched_self_changes = local->sched_changes;
	rts_handovers_parked = local->handovers;
	rts_task_cond_record = local->cond_record;
	rts_task_fifo_cache = local->fifo_cache;
	memcpy(&rts_ceiling_self, local->ceiling_self, sizeof(rts_ceiling_self));
}
