/* SPDX-License-Identifier: MIT */
/*
 * A partition's system ceiling: push and pop an entry, the job-start gate
 * (src/lock/ceiling_partition.c). The fast paths (one CAS on the partition's
 * `top` word) are inline; everything else is in the .c file. The types are
 * internal/ceiling.h's.
 */
#ifndef RTS_INTERNAL_CEILING_PARTITION_H
#define RTS_INTERNAL_CEILING_PARTITION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "internal/ceiling.h"
#include "internal/tid.h"

/*
 * Push an entry ⟨key, caller⟩, first waiting (on the ceiling token of the
 * highest such entry, lending it the caller's priority) while an entry of
 * another thread with key >= level exists; with gate_only, only entries that
 * gate job starts count (a global holder's boost). `cause` goes into the
 * trace. 0, EBUSY (nonblock and it would wait), ENOSPC (RTS_LOCK_MAX_HELD
 * entries already), EDEADLK (the holder waits, through PI, for the caller).
 */
int rts_ceiling_push_slow(struct ceiling_partition *p, bool pshared, uint32_t key, bool gate,
			  uint32_t level, bool gate_only, enum rts_block_cause cause, bool nonblock);
void rts_ceiling_pop_slow(struct ceiling_partition *p, bool pshared, uint32_t key);

static inline int rts_ceiling_push(struct ceiling_partition *p, bool pshared, uint32_t key,
				   bool gate, uint32_t level, bool gate_only,
				   enum rts_block_cause cause, bool nonblock)
{
	uint64_t expected = 0;
	if (rts_likely(atomic_compare_exchange_strong_explicit(
		    &p->top, &expected, ceiling_top_make(key, gate, true, rts_self_tid()),
		    memory_order_acquire, memory_order_relaxed)))
		return 0;
	return rts_ceiling_push_slow(p, pshared, key, gate, level, gate_only, cause, nonblock);
}

/* Pop the caller's entry of this key (gate as pushed), handing its token over. */
static inline void rts_ceiling_pop(struct ceiling_partition *p, bool pshared, uint32_t key,
				   bool gate)
{
	uint64_t mine = ceiling_top_make(key, gate, true, rts_self_tid());
	if (rts_likely(atomic_compare_exchange_strong_explicit(&p->top, &mine, 0,
							       memory_order_release,
							       memory_order_relaxed)))
		return;
	rts_ceiling_pop_slow(p, pshared, key);
}
/* Wait while a gating entry of another thread with key >= level exists. 0 or EDEADLK. */
int rts_ceiling_gate(struct ceiling_partition *p, bool pshared, uint32_t level);

#endif
