/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's level for the ceiling protocols, and its SCHED_FIFO
 * priority for their eager forms, cached per thread so that lock fast paths
 * make no system call.
 *
 * Invariant: once `known`, level and fifo_prio are what the kernel had when
 * they were read, plus the library's own changes (eager raises and restores,
 * rts_sched_apply_self, which forgets them). A priority changed behind the
 * library's back needs rts_lock_set_self_level(0).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>

#include <rtsched/mutex.h>

#include "internal/ceiling.h"
#include "internal/export.h"
#include "internal/sched_attr.h"

struct ceiling_self {
	bool known;
	bool deadline;      /* SCHED_DEADLINE: a level must be declared */
	int declared_level; /* 0: none */
	int fifo_prio;      /* SCHED_FIFO/RR priority; 0 for other policies */
};

static __thread struct ceiling_self self __attribute__((tls_model("initial-exec")));

static int read_self(void)
{
	struct rts_sched_attr attr = {.size = sizeof(attr)};
	int err = rts_sched_getattr(0, &attr);
	if (err)
		return -err;
	bool fifo = attr.sched_policy == SCHED_FIFO || attr.sched_policy == SCHED_RR;
	self.fifo_prio = fifo ? (int)attr.sched_priority : 0;
	self.deadline = attr.sched_policy == SCHED_DEADLINE;
	self.known = true;
	return 0;
}

void rts_ceiling_self_forget(void)
{
	self.known = false;
}

int rts_ceiling_self_level(int *level)
{
	if (rts_unlikely(!self.known)) {
		int err = read_self();
		if (err)
			return err;
	}
	if (self.declared_level) {
		*level = self.declared_level;
		return 0;
	}
	if (self.deadline)
		return EINVAL; /* a SCHED_DEADLINE thread has no level until it declares one */
	*level = self.fifo_prio;
	return 0;
}

int rts_ceiling_self_fifo_prio(void)
{
	return self.fifo_prio;
}

int rts_ceiling_self_set_fifo_prio(int prio)
{
	struct rts_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = (uint32_t)prio,
	};
	int err = rts_sched_setattr(0, &attr);
	if (err)
		return -err;
	self.fifo_prio = prio;
	return 0;
}

RTS_EXPORT int rts_lock_set_self_level(int level)
{
	if (level < 0 || level > RTS_LOCK_MAX_LEVEL)
		return EINVAL;
	self.declared_level = level;
	return read_self();
}
