/* SPDX-License-Identifier: MIT */
/*
 * The library's per-task state that lives in thread-local storage. Under
 * the threads backend a task is its kernel thread, so TLS is per task.
 * Under a user-level scheduler (the ult backend, docs/ult.md) several tasks
 * take turns on one kernel thread and a task may resume on another, so the
 * scheduler saves this state when it switches a task out and loads it when
 * it switches one in (ult/task_local.c):
 *  - the identity cache (internal/tid.h): lock words store it as owner;
 *  - the ceiling protocols' cached level (internal/ceiling.h);
 *  - the PI-CV hand-overs parked until an unlock (internal/handover.h);
 *  - the count of the task's own policy changes (internal/sched_self.h);
 *  - where the task's condition-variable waiter record is: a record is
 *    linked into a condvar's queue by address while its task waits, so it
 *    cannot be copied in and out; rts_task_cond_record points at the
 *    task's own (NULL: the kernel thread's, sync/cond_private.c);
 *  - where the task's FIFO-mutex record cache is (the records it claimed,
 *    one per scope, lock/fifo_scope.c): rts_task_fifo_cache points at the
 *    task's own (NULL: the kernel thread's). A task that shared its
 *    worker's cache would find another task's records there and claim new
 *    ones at every wait.
 * State not listed here is per kernel thread and not ULT-aware (the robust
 * list: docs/ult.md).
 */
#ifndef RTS_INTERNAL_TASK_LOCAL_H
#define RTS_INTERNAL_TASK_LOCAL_H

#include <stdint.h>

/* Room for one condvar waiter record (sync/cond_private.c asserts it fits). */
struct rts_task_cond_record {
	_Alignas(16) unsigned char bytes[64];
};

/* Room for one FIFO-mutex record cache (lock/fifo_scope.c asserts it fits). */
struct rts_task_fifo_cache {
	_Alignas(8) unsigned char bytes[64];
};

struct rts_task_local {
	uint32_t tid;
	uint32_t sched_changes;
	void *handovers;
	struct rts_task_cond_record *cond_record;
	struct rts_task_fifo_cache *fifo_cache;
	_Alignas(8) unsigned char ceiling_self[32]; /* struct rts_ceiling_self */
};

/* The calling task's condvar record, NULL: its kernel thread's (platform/backend_of_thread.c). */
extern __thread struct rts_task_cond_record *rts_task_cond_record __attribute__((tls_model("initial-exec")));

/* The calling task's FIFO-mutex record cache, NULL: its kernel thread's (lock/fifo_scope.c). */
extern __thread struct rts_task_fifo_cache *rts_task_fifo_cache __attribute__((tls_model("initial-exec")));

/* A task's state before it first runs: identity `tid`, its records
 * `cond_record` and `fifo_cache` (zeroed: no record claimed yet). */
void rts_task_local_init(struct rts_task_local *local, uint32_t tid,
			 struct rts_task_cond_record *cond_record,
			 struct rts_task_fifo_cache *fifo_cache);
/* Copy the calling kernel thread's TLS into `local` / from `local` into it. */
void rts_task_local_save(struct rts_task_local *local);
void rts_task_local_load(const struct rts_task_local *local);

#endif
