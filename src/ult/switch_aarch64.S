/* SPDX-License-Identifier: MIT */
/*
 * The user-level context switch for AArch64 (AAPCS64); see
 * internal/ult_context.h for the contract.
 *
 * A switch is a function call, so only what the procedure call standard
 * makes the callee keep is saved: x19-x28, the frame pointer x29, the link
 * register x30 (where the switch returns to), the low 64 bits of v8-v15
 * (d8-d15), the stack pointer and FPCR (rounding mode, flush-to-zero, trap
 * enables: control, like MXCSR on x86-64). FPSR holds only sticky status
 * flags and is not kept, as a call need not keep it. No system call: the
 * signal mask is the worker's and stays.
 *
 * Saved frame, from the saved stack pointer up (176 bytes, so the stack
 * pointer stays 16-byte aligned as AArch64 requires of every access):
 *   [0] x19 x20  [16] x21 x22  [32] x23 x24  [48] x25 x26  [64] x27 x28
 *   [80] x29 x30 [96] d8 d9   [112] d10 d11 [128] d12 d13 [144] d14 d15
 *   [160] FPCR   [168] unused
 * The first frame of a new context (frame_aarch64.c) uses the same layout.
 */
	.text

/* void rts_ult_switch(struct rts_ult_context *from, const struct rts_ult_context *to) */
	.globl	rts_ult_switch
	.hidden	rts_ult_switch
	.type	rts_ult_switch, %function
	.p2align 4
rts_ult_switch:
	.cfi_startproc
	sub	sp, sp, #176
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mrs	x9, fpcr
	str	x9, [sp, #160]
	mov	x9, sp
	str	x9, [x0]
	ldr	x9, [x1]
	mov	sp, x9
	ldr	x9, [sp, #160]
	msr	fpcr, x9
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #176
	ret
	.cfi_endproc
	.size	rts_ult_switch, .-rts_ult_switch

/*
 * The first instruction of a new context: the first frame left the entry
 * function in x19 and its argument in x20, and x30 pointing here. The entry
 * never returns (it switches away for good); brk traps if it does.
 */
	.globl	rts_ult_first_entry
	.hidden	rts_ult_first_entry
	.type	rts_ult_first_entry, %function
	.p2align 4
rts_ult_first_entry:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	mov	x30, #0
	mov	x0, x20
	blr	x19
	brk	#0
	.cfi_endproc
	.size	rts_ult_first_entry, .-rts_ult_first_entry

	.section .note.GNU-stack, "", %progbits
