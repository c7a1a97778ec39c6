/* SPDX-License-Identifier: MIT */
/*
 * A cluster's ready queue (by priority) and release queue (by wake time):
 * sorted singly linked lists, so insertion is O(ULTs in the queue) and the
 * head is the next to run / to release. Callers hold cluster->lock.
 */
#include <stddef.h>

#include "internal/task.h"
#include "internal/ult.h"

void rts_ult_ready_insert(struct rts_ult_cluster *c, struct rts_ult *u)
{
	struct rts_ult **link = &c->ready;
	while (*link && !rts_ult_before(u->key, u->id, (*link)->key, (*link)->id))
		link = &(*link)->next;
	u->next = *link;
	*link = u;
	u->state = RTS_ULT_READY;
}

struct rts_ult *rts_ult_ready_pop(struct rts_ult_cluster *c)
{
	struct rts_ult *u = c->ready;
	if (u) {
		c->ready = u->next;
		u->next = NULL;
	}
	return u;
}

/* Among equal wake times, the earlier sleeper first. */
void rts_ult_release_insert(struct rts_ult_cluster *c, struct rts_ult *u)
{
	struct rts_ult **link = &c->releases;
	while (*link && (*link)->wake_ns <= u->wake_ns)
		link = &(*link)->next;
	u->next = *link;
	*link = u;
	u->state = RTS_ULT_SLEEPING;
}

void rts_ult_ready_remove(struct rts_ult_cluster *c, struct rts_ult *u)
{
	for (struct rts_ult **link = &c->ready; *link; link = &(*link)->next) {
		if (*link == u) {
			*link = u->next;
			u->next = NULL;
			return;
		}
	}
}

bool rts_ult_release_remove(struct rts_ult_cluster *c, struct rts_ult *u)
{
	for (struct rts_ult **link = &c->releases; *link; link = &(*link)->next) {
		if (*link == u) {
			*link = u->next;
			u->next = NULL;
			return true;
		}
	}
	return false;
}

/* The key of the job a ULT releases at wake_ns, in the order of whoever
 * schedules it: its reservation, else the cluster. */
static int64_t release_key(const struct rts_ult_cluster *c, const struct rts_ult *u)
{
	const struct rts_task_params *p = &u->task->params;
	bool fp = u->reservation ? u->reservation->order == RTS_RESERVATION_FP
				 : c->runtime->spec.policy == RTS_ULT_FP;
	if (fp)
		return 100 - p->priority;
	return u->wake_ns + p->deadline_ns;
}

void rts_ult_release_due(struct rts_ult_cluster *c, int64_t now_ns)
{
	while (c->releases && c->releases->wake_ns <= now_ns) {
		struct rts_ult *u = c->releases;
		c->releases = u->next;
		u->next = NULL;
		u->key = release_key(c, u);
		u->sleep_result = 0;
		rts_ult_ready_insert(c, u);
	}
}
