/* SPDX-License-Identifier: MIT */
/*
 * The CPU the calling kernel thread runs on. glibc >= 2.35 registers rseq
 * for every thread and the kernel keeps rseq->cpu_id current: one load from
 * the thread's control block, no system call. Where glibc did not register
 * (an old kernel, the glibc.pthread.rseq=0 tunable) __rseq_size is 0, and
 * sched_getcpu (vDSO getcpu) answers. -1 if neither can.
 *
 * The one reader of rseq in the library: the threads backend's current_cpu,
 * and the trace's hot path through it.
 */
#ifndef RTS_INTERNAL_CPU_H
#define RTS_INTERNAL_CPU_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define RTS_HAVE_RSEQ 1
#endif

#include "internal/export.h"

static inline __attribute__((always_inline)) int rts_kernel_cpu(void)
{
#ifdef RTS_HAVE_RSEQ
	if (rts_likely(__rseq_size >= 8)) {
		const struct rseq *rs = (const struct rseq *)((const char *)__builtin_thread_pointer() +
							     __rseq_offset);
		int cpu = (int)atomic_load_explicit((const _Atomic uint32_t *)&rs->cpu_id,
						    memory_order_relaxed);
		if (rts_likely(cpu >= 0))
			return cpu;
	}
#endif
	return sched_getcpu();
}

#endif
