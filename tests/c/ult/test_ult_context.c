/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's context switch (internal/ult_context.h), without any
 * scheduler: two contexts and the thread's own pass control back and forth;
 * values live across switches, each keeps its own floating-point control
 * (x86-64: MXCSR and the x87 control word; AArch64: FPCR), a new context
 * starts with the ABI's defaults, and
 * overflowing a stack faults on its guard page.
 */
#include <fenv.h>
#include <sys/wait.h>

#include "harness.h"
#include "internal/ult_context.h"

#define ROUNDS 10000

struct pingpong {
	struct rts_ult_context main, a, b;
	long a_count, b_count;
	int a_round_mode_seen, b_round_mode_seen; /* fegetround() each saw at the end */
	unsigned long a_fp_control, b_fp_control; /* fp_control() each saw at the end */
};

/* The control register fegetround() does not cover on its own: x86-64 keeps
 * a second rounding mode in the x87 control word; AArch64's FPCR holds the
 * only one, read here directly. */
#if defined(__x86_64__)
static unsigned long fp_control(void)
{
	unsigned short cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	return cw;
}
#define FP_CONTROL_ROUNDING(c) ((c) & 0x0c00ul)     /* x87 RC field */
#define FP_CONTROL_ROUND_UP 0x0800ul
#define FP_CONTROL_DEFAULT 0x037ful                 /* the System V ABI's x87 default */
#elif defined(__aarch64__)
static unsigned long fp_control(void)
{
	unsigned long fpcr;
	__asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
	return fpcr;
}
#define FP_CONTROL_ROUNDING(c) ((c) & (3ul << 22))  /* FPCR RMode field */
#define FP_CONTROL_ROUND_UP (1ul << 22)
#define FP_CONTROL_DEFAULT 0ul                      /* AAPCS64: everything off, round to nearest */
#endif

static void run_a(void *arg)
{
	struct pingpong *p = arg;
	fesetround(FE_UPWARD); /* this context only */
	volatile long local = 0;
	for (int i = 0; i < ROUNDS; i++) {
		local += i;
		p->a_count++;
		rts_ult_context_switch(&p->a, &p->b);
	}
	CHECK_EQ(local, (long)ROUNDS * (ROUNDS - 1) / 2);
	p->a_round_mode_seen = fegetround();
	p->a_fp_control = fp_control();
	rts_ult_context_switch(&p->a, &p->main);
	CHECK_MSG(false, "an ended context was resumed");
}

static void run_b(void *arg)
{
	struct pingpong *p = arg;
	volatile double acc = 0;
	for (int i = 0; i < ROUNDS; i++) {
		acc += 0.5;
		p->b_count++;
		rts_ult_context_switch(&p->b, &p->a);
	}
	CHECK_EQ((long)acc, ROUNDS / 2);
	p->b_round_mode_seen = fegetround();
	p->b_fp_control = fp_control();
	rts_ult_context_switch(&p->b, &p->main);
}

/* a and b switch to each other ROUNDS times; a ends first and returns to main, then b. */
static void test_pingpong_keeps_values_and_control_words(void)
{
	static struct pingpong p;
	CHECK_OK(-rts_ult_context_of_thread(&p.main));
	CHECK_OK(-rts_ult_context_create(&p.a, 64 * 1024, run_a, &p));
	CHECK_OK(-rts_ult_context_create(&p.b, 64 * 1024, run_b, &p));
	fesetround(FE_TOWARDZERO);
	rts_ult_context_switch(&p.main, &p.a); /* back when a has done its rounds */
	CHECK_EQ(fegetround(), FE_TOWARDZERO);
	CHECK_EQ(p.a_count, ROUNDS);
	CHECK_EQ(p.b_count, ROUNDS);
	CHECK_EQ(p.a_round_mode_seen, FE_UPWARD);
	CHECK_EQ(FP_CONTROL_ROUNDING(p.a_fp_control), FP_CONTROL_ROUND_UP);
	rts_ult_context_switch(&p.main, &p.b); /* b leaves its loop, then back */
	CHECK_EQ(p.b_round_mode_seen, FE_TONEAREST); /* a new context: the ABI default */
	CHECK_EQ(p.b_fp_control, FP_CONTROL_DEFAULT);
	CHECK_EQ(fegetround(), FE_TOWARDZERO);
	fesetround(FE_TONEAREST);
	rts_ult_context_destroy(&p.a);
	rts_ult_context_destroy(&p.b);
}

static struct rts_ult_context overflow_main, overflow_ctx;

static int recurse(int depth)
{
	volatile char pad[1024];
	pad[0] = (char)depth;
	return depth > 1000000 ? pad[0] : recurse(depth + 1) + pad[0];
}

static void run_overflow(void *arg)
{
	(void)arg;
	recurse(0);
	rts_ult_context_switch(&overflow_ctx, &overflow_main);
}

/* A stack overflow hits the guard page: SIGSEGV, not a neighbour's memory. */
static void test_overflow_hits_guard_page(void)
{
	if (RTS_ULT_ASAN || H_TSAN)
		SKIP("the sanitizers catch the overflow themselves");
	pid_t child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		rts_ult_context_of_thread(&overflow_main);
		if (rts_ult_context_create(&overflow_ctx, 64 * 1024, run_overflow, NULL) != 0)
			_exit(2);
		rts_ult_context_switch(&overflow_main, &overflow_ctx);
		_exit(0);
	}
	int status;
	CHECK_EQ(waitpid(child, &status, 0), child);
	CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "status 0x%x", status);
}

static const struct h_case cases[] = {
	H_CASE(test_pingpong_keeps_values_and_control_words, 20000),
	H_CASE(test_overflow_hits_guard_page, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
