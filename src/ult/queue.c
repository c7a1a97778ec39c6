/* SPDX-License-Identifier: MIT */
/*
 * A cluster's ready queue (by priority, as SCHED_FIFO orders equals: a ULT
 * made ready goes after its equals, one switched out while ready before
 * them; internal/ult.h), release queue (by wake time) and
 * timeout queue (blocked ULTs by timeout): sorted singly linked lists, so
 * insertion is O(ULTs in the queue) and the head is the next to run / to
 * release / to time out. Callers hold cluster->lock.
 */
#include <stddef.h>

#include "internal/task.h"
#include "internal/ult.h"

void rts_ult_ready_insert(struct rts_ult_cluster *c, struct rts_ult *u)
{
	struct rts_ult **link = &c->ready;
	while (*link && (*link)->key <= u->key)
		link = &(*link)->next;
	u->next = *link;
	*link = u;
	u->state = RTS_ULT_READY;
}

void rts_ult_ready_insert_preempted(struct rts_ult_cluster *c, struct rts_ult *u)
{
	struct rts_ult **link = &c->ready;
	while (*link && (*link)->key < u->key)
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

/* In the order of whoever schedules it: its reservation, else the cluster;
 * with its own attributes (set_attr may have changed them). */
int64_t rts_ult_release_key(const struct rts_ult_cluster *c, const struct rts_ult *u,
			    int64_t release_ns)
{
	if (u->background)
		return RTS_ULT_BACKGROUND_KEY;
	bool fp = u->reservation ? u->reservation->order == RTS_RESERVATION_FP
				 : c->runtime->spec.policy == RTS_ULT_FP;
	if (fp)
		return 100 - u->attr_priority;
	return release_ns + u->attr_deadline_ns;
}

void rts_ult_rekey(struct rts_ult_cluster *c, struct rts_ult *u)
{
	int64_t key = u->base_key < u->boost_key ? u->base_key : u->boost_key;
	if (key == u->key)
		return;
	u->key = key;
	if (u->state == RTS_ULT_READY) {
		rts_ult_ready_remove(c, u);
		rts_ult_ready_insert(c, u);
	} else if (u->state == RTS_ULT_RUNNING) {
		for (int i = 0; i < c->n_workers; i++)
			if (c->workers[i].current == u)
				c->workers[i].current_key = key;
	}
}

void rts_ult_timeout_insert(struct rts_ult_cluster *c, struct rts_ult *u)
{
	struct rts_ult **link = &c->timeouts;
	while (*link && (*link)->timeout_ns <= u->timeout_ns)
		link = &(*link)->next;
	u->next = *link;
	*link = u;
}

void rts_ult_timeout_remove(struct rts_ult_cluster *c, struct rts_ult *u)
{
	for (struct rts_ult **link = &c->timeouts; *link; link = &(*link)->next) {
		if (*link == u) {
			*link = u->next;
			u->next = NULL;
			return;
		}
	}
}

void rts_ult_timeouts_due(struct rts_ult_cluster *c, int64_t now_ns)
{
	while (c->timeouts && c->timeouts->timeout_ns <= now_ns) {
		struct rts_ult *u = c->timeouts;
		c->timeouts = u->next;
		u->next = NULL;
		u->block_end = RTS_ULT_BLOCK_TIMED_OUT;
		rts_ult_ready_insert(c, u);
	}
}

void rts_ult_release_due(struct rts_ult_cluster *c, int64_t now_ns)
{
	while (c->releases && c->releases->wake_ns <= now_ns) {
		struct rts_ult *u = c->releases;
		c->releases = u->next;
		u->next = NULL;
		u->base_key = rts_ult_release_key(c, u, u->wake_ns);
		u->key = u->base_key < u->boost_key ? u->base_key : u->boost_key;
		u->sleep_result = 0;
		rts_ult_ready_insert(c, u);
	}
}
