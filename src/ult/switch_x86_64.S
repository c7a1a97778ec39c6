/* SPDX-License-Identifier: MIT */
/*
 * The user-level context switch for x86-64 (System V ABI); see
 * internal/ult_context.h for the contract.
 *
 * A switch is a function call, so only what the ABI makes the callee keep
 * is saved: rbx, rbp, r12-r15, the stack pointer, the MXCSR control bits
 * and the x87 control word. Everything else is caller-saved and already dead
 * at the call. No system call: the signal mask is the worker's and stays.
 *
 * Saved frame, from the saved stack pointer up:
 *   [0] MXCSR (4 bytes) | x87 control word (2 bytes) | 2 bytes unused
 *   [8] r15  [16] r14  [24] r13  [32] r12  [40] rbx  [48] rbp  [56] return address
 */
	.text

/* void rts_ult_switch(struct rts_ult_context *from, const struct rts_ult_context *to) */
	.globl	rts_ult_switch
	.hidden	rts_ult_switch
	.type	rts_ult_switch, @function
	.p2align 4
rts_ult_switch:
	.cfi_startproc
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)
	movq	%rsp, (%rdi)
	movq	(%rsi), %rsp
	ldmxcsr	(%rsp)
	fldcw	4(%rsp)
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.cfi_endproc
	.size	rts_ult_switch, .-rts_ult_switch

/*
 * The first instruction of a new context: rts_ult_context_init left the
 * entry function in r12 and its argument in r13. The entry never returns
 * (it switches away for good); ud2 traps if it does.
 */
	.globl	rts_ult_first_entry
	.hidden	rts_ult_first_entry
	.type	rts_ult_first_entry, @function
	.p2align 4
rts_ult_first_entry:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	movq	%r13, %rdi
	callq	*%r12
	ud2
	.cfi_endproc
	.size	rts_ult_first_entry, .-rts_ult_first_entry

	.section .note.GNU-stack, "", @progbits
