/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's backend state: which backend it uses
 * (internal/backend.h) and its sections without user-level switches
 * (internal/no_switch.h); and the per-task state of the layers above that a
 * user-level scheduler swaps at each switch (internal/task_local.h): its
 * task's condvar record, FIFO-record cache, ceiling-protocol cache and
 * parked hand-overs. Its own file: everything reads it, the backends too,
 * so it lies below them (src/layers.txt), and backend_by_name.c, which
 * knows every backend, must not be reached back from them.
 */
#include <stddef.h>

#include "internal/backend.h"
#include "internal/ceiling.h"
#include "internal/handover.h"
#include "internal/no_switch.h"
#include "internal/task_local.h"

__thread const struct rts_backend *rts_backend_of_thread __attribute__((tls_model("initial-exec")));
__thread volatile sig_atomic_t rts_no_switch_depth __attribute__((tls_model("initial-exec")));
__thread void (*volatile rts_no_switch_deferred)(void) __attribute__((tls_model("initial-exec")));
__thread struct rts_task_cond_record *rts_task_cond_record __attribute__((tls_model("initial-exec")));
__thread struct rts_task_fifo_cache *rts_task_fifo_cache __attribute__((tls_model("initial-exec")));
__thread struct rts_ceiling_self rts_ceiling_self __attribute__((tls_model("initial-exec")));
__thread struct rts_handover *rts_handovers_parked __attribute__((tls_model("initial-exec")));

void rts_no_switch_run_deferred(void)
{
	void (*deferred)(void) = rts_no_switch_deferred;
	rts_no_switch_deferred = NULL;
	if (deferred)
		deferred();
}
