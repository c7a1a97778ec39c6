/* SPDX-License-Identifier: MIT */
/* Hand-overs parked until a mutex is unlocked (internal/handover.h). */
#include <stdatomic.h>

#include "internal/backend.h"
#include "internal/handover.h"

void rts_handover_now(struct rts_handover *h)
{
	rts_futex_word *token = h->token;
	/* A no-op release RMW first: with the waiter's acquire load of its token
	 * it orders what the waker did before, for the waiter (the kernel's
	 * hand-over does too, but no sanitizer sees it). */
	atomic_fetch_or_explicit(token, 0, memory_order_release);
	rts_backend()->pi_wake(token, false);
}

void rts_handover_park(struct rts_handover *h)
{
	h->next = rts_handovers_parked;
	rts_handovers_parked = h;
}

void rts_handover_run_parked(rts_mutex_t *m)
{
	struct rts_handover **at = &rts_handovers_parked;
	while (*at) {
		struct rts_handover *h = *at;
		if (h->mutex == m) {
			*at = h->next; /* read first: the node ends after the hand-over */
			rts_handover_now(h);
		} else {
			at = &h->next;
		}
	}
}
