/* SPDX-License-Identifier: MIT */
/* The first frame of a new context on AArch64, in switch_aarch64.S's layout. */
#include <stdint.h>

#include "internal/ult_context.h"

/* The first instruction of a context (switch_aarch64.S): calls x19(x20). */
void rts_ult_first_entry(void);

/* FPCR of a new context: the ABI's default, all zero (round to nearest, no
 * flush-to-zero, no default NaN, every trap disabled). */
#define FPCR_DEFAULT 0u

void *rts_ult_first_frame(uintptr_t stack_top, void (*start)(void *arg), void *arg)
{
	uint64_t *frame = (uint64_t *)((stack_top & ~(uintptr_t)15) - 176);
	for (int i = 0; i < 22; i++)
		frame[i] = 0;
	frame[0] = (uint64_t)(uintptr_t)start;               /* x19: called by rts_ult_first_entry */
	frame[1] = (uint64_t)(uintptr_t)arg;                 /* x20: its argument */
	frame[11] = (uint64_t)(uintptr_t)rts_ult_first_entry; /* x30: where the switch returns */
	frame[20] = FPCR_DEFAULT;
	return frame;
}
