/* SPDX-License-Identifier: MIT */
/*
 * The calling thread's kernel TID, cached per thread: lock fast paths store it
 * in futex words and must not make a system call to learn it.
 *
 * Invariant: rts_tid_cache is 0 or the TID of the thread that reads it. A
 * fork() child handler resets the forking thread's copy (the only thread of
 * the child), so a forked child never takes its parent's TID for its own.
 */
#ifndef RTS_INTERNAL_TID_H
#define RTS_INTERNAL_TID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "internal/export.h"

extern __thread uint32_t rts_tid_cache __attribute__((tls_model("initial-exec")));

/* The largest TID a futex word can hold (the kernel's FUTEX_TID_MASK). */
#define RTS_TID_MAX 0x3fffffffu

/*
 * The bit of a ULT's identity (internal/ult.h, RTS_ULT_ID_BIT): under the ult
 * backend a lock word holds it in place of a kernel TID. Kernel TIDs stay
 * below pid_max (at most 2^22), so no kernel thread has it.
 */
#define RTS_TID_ULT_BIT (1u << 29)

/* Slow path: ask the kernel and fill the cache. */
uint32_t rts_tid_fetch(void);

static inline uint32_t rts_self_tid(void)
{
	uint32_t tid = rts_tid_cache;
	if (rts_unlikely(tid == 0))
		tid = rts_tid_fetch();
	return tid;
}

/*
 * Whether the thread tid (of any process) still exists: a lock recorded as
 * held by a thread that does not is recovered (docs/shared-state.md). A TID
 * the kernel has given to a new thread since counts as alive, and so does a
 * ULT's identity (RTS_TID_ULT_BIT): the kernel knows nothing of it, and a ULT
 * ends only through its runtime, which never leaves it holding a lock.
 */
bool rts_tid_alive(uint32_t tid);

#endif
