/* SPDX-License-Identifier: MIT */
/* The first frame of a new context on x86-64, in switch_x86_64.S's layout. */
#include <stdint.h>

#include "internal/ult_context.h"

/* The first instruction of a context (switch_x86_64.S): calls r12(r13). */
void rts_ult_first_entry(void);

/* The MXCSR and x87 control word a new context starts with: the ABI's
 * defaults (all exceptions masked, round to nearest; x87 extended precision). */
#define MXCSR_DEFAULT 0x1f80u
#define X87_CW_DEFAULT 0x037fu

void *rts_ult_first_frame(uintptr_t stack_top, void (*start)(void *arg), void *arg)
{
	/* Control words, six registers, then the return address. The top stays
	 * 16-byte aligned so that rts_ult_first_entry's call meets the ABI. */
	uintptr_t top = stack_top & ~(uintptr_t)15;
	uint64_t *frame = (uint64_t *)(top - 16 - 8 * sizeof(uint64_t));
	frame[0] = MXCSR_DEFAULT | ((uint64_t)X87_CW_DEFAULT << 32);
	frame[1] = 0;                                 /* r15 */
	frame[2] = 0;                                 /* r14 */
	frame[3] = (uint64_t)(uintptr_t)arg;          /* r13: start's argument */
	frame[4] = (uint64_t)(uintptr_t)start;        /* r12: called by rts_ult_first_entry */
	frame[5] = 0;                                 /* rbx */
	frame[6] = 0;                                 /* rbp */
	frame[7] = (uint64_t)(uintptr_t)rts_ult_first_entry;
	return frame;
}
