/* SPDX-License-Identifier: MIT */
/*
 * User-level execution contexts: a stack and the registers a function call
 * keeps (src/ult/switch_x86_64.S, src/ult/switch_aarch64.S), for the ult
 * backend (docs/ult.md).
 *
 * rts_ult_context_switch(from, to) saves the caller's callee-saved registers,
 * stack pointer and floating-point control words (x86-64: MXCSR and the x87
 * control word; AArch64: FPCR) into `from` and resumes `to`
 * where it last switched away (or at its entry, the first time). It makes no
 * system call: the signal mask, the kernel thread and its TLS stay as they
 * are, so a context resumed on another kernel thread sees that thread's TLS.
 *
 * Stacks are mmap'd with one guard page below (PROT_NONE): an overflow
 * faults at once instead of writing into a neighbour.
 *
 * Sanitizers: under TSan every context is a TSan fiber and the switch tells
 * TSan (__tsan_switch_to_fiber); under ASan the switch tells ASan which
 * stack it enters (__sanitizer_start/finish_switch_fiber), and a stack is
 * unpoisoned before it is unmapped.
 */
#ifndef RTS_INTERNAL_ULT_CONTEXT_H
#define RTS_INTERNAL_ULT_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__SANITIZE_THREAD__)
#define RTS_ULT_TSAN 1
#include <sanitizer/tsan_interface.h>
#else
#define RTS_ULT_TSAN 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RTS_ULT_ASAN 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#else
#define RTS_ULT_ASAN 0
#endif

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "the ult backend's context switch exists for x86-64 and AArch64 only (src/ult/switch_*.S)"
#endif

struct rts_ult_context {
	void *sp; /* the saved stack pointer: first, the assembly reads offset 0 */
	void (*entry)(void *arg);
	void *arg;
	void *mapping;        /* the whole mmap'd area (guard page included); NULL: a thread's own stack */
	size_t mapping_bytes;
	void *stack_low;      /* lowest usable address of the stack, and its size */
	size_t stack_bytes;
	void *tsan_fiber;
	void *asan_fake_stack;
};

/* The assembly routine itself; use rts_ult_context_switch. */
void rts_ult_switch(struct rts_ult_context *from, const struct rts_ult_context *to);
/*
 * The frame rts_ult_switch pops when it first resumes a new context whose
 * stack ends at stack_top: it leads to start(arg) through the routine's
 * rts_ult_first_entry, with the ABI's default control words. Returns the
 * context's first saved stack pointer. One per architecture (frame_*.c),
 * beside its switch routine, whose saved-frame layout it must match.
 */
void *rts_ult_first_frame(uintptr_t stack_top, void (*start)(void *arg), void *arg);

/*
 * A new context that will run entry(arg) on its own stack of at least
 * stack_bytes (rounded up to pages). entry must never return: it ends by
 * switching away for good. 0 or -errno (-ENOMEM).
 */
int rts_ult_context_create(struct rts_ult_context *ctx, size_t stack_bytes,
			   void (*entry)(void *arg), void *arg);
/* Unmap a context's stack; it must not be running nor be resumed again. */
void rts_ult_context_destroy(struct rts_ult_context *ctx);
/* Describe the calling kernel thread's own stack as a context (to switch from and back to). */
int rts_ult_context_of_thread(struct rts_ult_context *ctx);

static inline void rts_ult_context_switch(struct rts_ult_context *from, struct rts_ult_context *to)
{
#if RTS_ULT_TSAN
	__tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
#if RTS_ULT_ASAN
	__sanitizer_start_switch_fiber(&from->asan_fake_stack, to->stack_low, to->stack_bytes);
#endif
	rts_ult_switch(from, to);
#if RTS_ULT_ASAN
	__sanitizer_finish_switch_fiber(from->asan_fake_stack, NULL, NULL);
#endif
}

#endif
