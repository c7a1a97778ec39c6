/* SPDX-License-Identifier: MIT */
/*
 * Known answers of the analysis kernels on hand-made sets, and the extremes
 * of their ranges (times of RTSA_MAX_NS, products past 64 bits) run under
 * ASan/UBSan by scripts/test-sanitizers: no signed overflow, no bad access.
 * That the kernels give the Python tests' answers on generated sets is
 * tests/python/test_analysis_native_engine.py's part.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

static int failures;

#define EXPECT_EQ(got, want)                                                                        \
	do {                                                                                        \
		long long got_ = (long long)(got), want_ = (long long)(want);                       \
		if (got_ != want_) {                                                                \
			fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, #got, \
				got_, want_);                                                       \
			failures++;                                                                 \
		}                                                                                   \
	} while (0)

static void test_gfb(void)
{
	/* m = 2, δ = 0.4 each: 1.2 ≤ 2 − 0.4 */
	int64_t light[] = {4, 10, 10, 4, 10, 10, 4, 10, 10};
	EXPECT_EQ(rtsa_gfb(3, light, 2), 1);
	/* δ = 0.6 each: 1.8 > 2 − 0.6 */
	int64_t heavy[] = {6, 10, 10, 6, 10, 10, 6, 10, 10};
	EXPECT_EQ(rtsa_gfb(3, heavy, 2), 0);
	/* δ = 0.5 each: 1.5 = 2 − 0.5 exactly, left to the exact comparison */
	int64_t edge[] = {5, 10, 10, 5, 10, 10, 5, 10, 10};
	EXPECT_EQ(rtsa_gfb(3, edge, 2), RTSA_PYTHON);
	/* D < T: δ = C/D */
	int64_t constrained[] = {5, 5, 10, 5, 5, 10, 5, 5, 10};
	EXPECT_EQ(rtsa_gfb(3, constrained, 2), 0);
}

static void test_bcl(void)
{
	uint8_t ok[3];
	/* two light tasks on two processors: each passes */
	int64_t light[] = {1, 10, 10, 1, 10, 10};
	EXPECT_EQ(rtsa_bcl(2, light, 2, 0, ok), 1);
	EXPECT_EQ(ok[0], 1);
	EXPECT_EQ(ok[1], 1);
	/* C > D: τ_0 fails outright; verdict_only leaves the rest out */
	int64_t over[] = {11, 10, 10, 1, 10, 10, 1, 10, 10};
	EXPECT_EQ(rtsa_bcl(3, over, 2, 1, ok), 0);
	EXPECT_EQ(ok[0], 0);
	EXPECT_EQ(ok[1], 2);
	EXPECT_EQ(ok[2], 2);
	EXPECT_EQ(rtsa_bcl(3, over, 2, 0, NULL), 0);
	/* three tasks of U = 1 on two processors: no room for any */
	int64_t full[] = {10, 10, 10, 10, 10, 10, 10, 10, 10};
	EXPECT_EQ(rtsa_bcl(3, full, 2, 0, ok), 0);
	/* extremes: N·C_i past 64 bits (C_i = 2^52, T_i = 1), must be past the room, no overflow */
	int64_t huge[] = {RTSA_MAX_NS, 1, 1, 1, RTSA_MAX_NS, RTSA_MAX_NS};
	EXPECT_EQ(rtsa_bcl(2, huge, RTSA_MAX_CPUS, 0, ok), 0);
	EXPECT_EQ(ok[1], 1); /* 1024 processors: τ_1 meets its deadline beside anything */
}

static void test_qpa(void)
{
	int64_t c[] = {2, 2}, d[] = {2, 3}, t[] = {4, 5};
	EXPECT_EQ(rtsa_qpa(2, c, d, t), 0); /* U = 0.9; demand 4 > 3 at t = 3 */
	int64_t d_ok[] = {4, 4}, t_ok[] = {5, 5};
	EXPECT_EQ(rtsa_qpa(2, c, d_ok, t_ok), 1);
	int64_t t_full[] = {4, 4};
	EXPECT_EQ(rtsa_qpa(2, c, d_ok, t_full), RTSA_PYTHON); /* U = 1 */
	int64_t c_over[] = {3, 2};
	EXPECT_EQ(rtsa_qpa(2, c_over, d_ok, t_full), 0); /* U > 1 */
	/* extremes: U = 1 − 1e-5 with periods of 2^52 (the busy period creeps for 10,000 steps) */
	int64_t c_big[] = {RTSA_MAX_NS / 2, RTSA_MAX_NS / 2 - RTSA_MAX_NS / 100000};
	int64_t t_big[] = {RTSA_MAX_NS, RTSA_MAX_NS};
	EXPECT_EQ(rtsa_qpa(2, c_big, t_big, t_big), 1); /* implicit deadlines, U < 1 */
	/* ... and D = T/2: L_a ≈ 2^67, past the kernel's integers: left to Python */
	int64_t d_half[] = {RTSA_MAX_NS / 2, RTSA_MAX_NS / 2};
	EXPECT_EQ(rtsa_qpa(2, c_big, d_half, t_big), RTSA_PYTHON);
}

static void test_fp_rta(void)
{
	/* (C, T) = (1, 4), (2, 6), (3, 12), priorities 3, 2, 1: R = 1, 3, 10 */
	int64_t c[] = {1, 2, 3}, t[] = {4, 6, 12}, zero[] = {0, 0, 0}, prio[] = {3, 2, 1};
	int64_t r[3], jobs[3];
	EXPECT_EQ(rtsa_fp_rta(3, c, t, t, zero, zero, prio, 0, r, jobs), 1);
	EXPECT_EQ(r[0], 1);
	EXPECT_EQ(r[1], 3);
	EXPECT_EQ(r[2], 10);
	/* blocking 3 on the last: w = 3 + 3 + 2 + 4 = 13 > 12 after the fixed point */
	int64_t b[] = {0, 0, 3};
	EXPECT_EQ(rtsa_fp_rta(3, c, t, t, zero, b, prio, 0, r, jobs), 0);
	EXPECT_EQ(r[2], -1);
	/* equal priorities interfere with each other: two (1, 2) tasks, R = 2 each */
	int64_t c2[] = {1, 1}, t2[] = {2, 2}, z2[] = {0, 0}, p2[] = {1, 1};
	EXPECT_EQ(rtsa_fp_rta(2, c2, t2, t2, z2, z2, p2, 0, r, jobs), 1);
	EXPECT_EQ(r[0], 2);
	EXPECT_EQ(r[1], 2);
	/* verdict_only: after the first miss the rest are left out */
	int64_t c3[] = {3, 1}, t3[] = {2, 10}, z3[] = {0, 0}, p3[] = {2, 1};
	EXPECT_EQ(rtsa_fp_rta(2, c3, t3, t3, z3, z3, p3, 1, r, jobs), 0);
	EXPECT_EQ(r[0], -1);
	EXPECT_EQ(r[1], -2);
	/* extremes: a hog of C = 2^52 every 1 ns above a task with D = 2^52: stops, no overflow */
	int64_t c4[] = {RTSA_MAX_NS, 1}, t4[] = {1, RTSA_MAX_NS}, z4[] = {0, 0}, p4[] = {2, 1};
	EXPECT_EQ(rtsa_fp_rta(2, c4, t4, t4, z4, z4, p4, 0, r, jobs), 0);
	EXPECT_EQ(r[1], -1);
}

static void test_gedf_rta(void)
{
	int64_t bound[3];
	int rounds;
	/* one task alone: R = C */
	int64_t alone[] = {3, 5, 10};
	EXPECT_EQ(rtsa_gedf_rta(1, alone, 1, 0, bound, &rounds), 1);
	EXPECT_EQ(bound[0], 3);
	/* two tasks on two processors: no interference beyond the cap, R = C each */
	int64_t two[] = {3, 5, 10, 4, 6, 10};
	EXPECT_EQ(rtsa_gedf_rta(2, two, 2, 0, bound, &rounds), 1);
	EXPECT_EQ(bound[0], 3);
	EXPECT_EQ(bound[1], 4);
	/* C > D: that task -1, the others -2 */
	int64_t late[] = {6, 5, 10, 1, 10, 10};
	EXPECT_EQ(rtsa_gedf_rta(2, late, 2, 0, bound, &rounds), 0);
	EXPECT_EQ(bound[0], -1);
	EXPECT_EQ(bound[1], -2);
	/* extremes: deadlines of 2^52 with heavy others on 1024 processors */
	int64_t big[] = {RTSA_MAX_NS / 2, RTSA_MAX_NS, RTSA_MAX_NS, RTSA_MAX_NS, RTSA_MAX_NS, RTSA_MAX_NS, 1, 1, 1};
	EXPECT_EQ(rtsa_gedf_rta(3, big, RTSA_MAX_CPUS, 0, bound, &rounds), 1);
	EXPECT_EQ(bound[0], RTSA_MAX_NS / 2);
}

/* The sets of the three tests below, rows (C, D, T); their answers are gedf_baker's, gedf_baruah's
 * and gedf_ffdbf's (Python) on the same sets. */
static int64_t light[] = {1, 10, 10, 1, 10, 10, 1, 10, 10};            /* m = 2 */
static int64_t heavy[] = {6, 10, 10, 6, 10, 10, 6, 10, 10};            /* m = 2, U = 1.8 */
static int64_t mixed[] = {2, 5, 10, 3, 10, 12, 6, 15, 20, 5, 30, 30}; /* m = 2 */
static int64_t mixed3[] = {2, 5, 10, 3, 10, 12, 6, 15, 20, 5, 30, 30, 9, 20, 25}; /* m = 3 */
static int64_t late[] = {11, 10, 10, 1, 10, 10};                       /* m = 2, C > D */
static int64_t full[] = {999999, 1000000, 1000000, 999999, 1000000, 1000000}; /* m = 2, U = 2 − 2e-6 */
static int64_t over[] = {9, 10, 10, 9, 10, 10, 9, 10, 10};             /* m = 2, U = 2.7 */
/* times near RTSA_MAX_NS, m = 4 */
static int64_t big[] = {(int64_t)1 << 50, RTSA_MAX_NS, RTSA_MAX_NS, (int64_t)1 << 49, RTSA_MAX_NS / 2,
			RTSA_MAX_NS, 1, RTSA_MAX_NS, RTSA_MAX_NS};

static void test_baker(void)
{
	uint8_t ok[5];
	EXPECT_EQ(rtsa_baker(3, light, 2, ok), 1);
	EXPECT_EQ(rtsa_baker(3, heavy, 2, ok), 0);
	EXPECT_EQ(ok[2], 0);
	EXPECT_EQ(rtsa_baker(4, mixed, 2, ok), 1);
	/* only τ_0 fails: the verdict alone stops there */
	EXPECT_EQ(rtsa_baker(5, mixed3, 3, ok), 0);
	EXPECT_EQ(ok[0], 0);
	EXPECT_EQ(ok[1], 1);
	EXPECT_EQ(ok[4], 1);
	EXPECT_EQ(rtsa_baker(5, mixed3, 3, NULL), 0);
	EXPECT_EQ(rtsa_baker(2, late, 2, ok), 0);
	EXPECT_EQ(ok[0], 0);
	EXPECT_EQ(ok[1], 1);
	EXPECT_EQ(rtsa_baker(3, big, 4, ok), 1);
	/* λ_k = u_i for every pair (identical tasks): the extra term is 0, on the exact boundary
	 * Σ min(1, β) = 3·0.5 = 1.5 = m(1 − λ) + λ: left to the exact comparison */
	int64_t edge[] = {5, 10, 10, 5, 10, 10, 5, 10, 10};
	EXPECT_EQ(rtsa_baker(3, edge, 2, ok), RTSA_PYTHON);
}

static void test_baruah(void)
{
	uint8_t ok[5];
	int sign = 2;
	EXPECT_EQ(rtsa_baruah(3, light, 2, ok, NULL), 1);
	EXPECT_EQ(rtsa_baruah(3, heavy, 2, ok, NULL), 0);
	EXPECT_EQ(ok[0], 0);
	EXPECT_EQ(rtsa_baruah(3, heavy, 2, NULL, NULL), 0);
	EXPECT_EQ(rtsa_baruah(4, mixed, 2, ok, NULL), 1);
	EXPECT_EQ(rtsa_baruah(5, mixed3, 3, ok, NULL), 1);
	/* detail mode: the distinct points checked per passing task (-1: range empty) */
	int64_t detail[5];
	EXPECT_EQ(rtsa_baruah(5, mixed3, 3, ok, detail), 1);
	EXPECT_EQ(detail[0], 9);
	EXPECT_EQ(detail[1], 5);
	EXPECT_EQ(detail[2], 3);
	EXPECT_EQ(detail[3], -1);
	EXPECT_EQ(detail[4], 2);
	/* ... and the least failing A, τ_3's in the second window of t ([4, 7], its D = 2) */
	int64_t later[] = {10, 19, 19, 3, 5, 5, 5, 7, 8, 1, 2, 11};
	EXPECT_EQ(rtsa_baruah(4, later, 2, ok, detail), 0);
	EXPECT_EQ(detail[0], 0);
	EXPECT_EQ(detail[1], 2);
	EXPECT_EQ(detail[2], 0);
	EXPECT_EQ(detail[3], 5);
	EXPECT_EQ(rtsa_baruah(2, late, 2, ok, NULL), 0);
	EXPECT_EQ(ok[0], 0);
	EXPECT_EQ(ok[1], 1);
	/* U just below m: the range of A needs more than RTSA_BARUAH_MAX_POINTS values: given up */
	EXPECT_EQ(rtsa_baruah(2, full, 2, ok, NULL), RTSA_UNKNOWN);
	EXPECT_EQ(ok[0], 2);
	EXPECT_EQ(ok[1], 2);
	EXPECT_EQ(rtsa_baruah(3, over, 2, ok, NULL), 0); /* U ≥ m: every task */
	EXPECT_EQ(ok[2], 0);
	EXPECT_EQ(rtsa_baruah(3, big, 4, ok, NULL), 1);
	/* U = m exactly (too close in floating point, decided over the periods' LCM): every task fails */
	int64_t at_m[] = {3, 5, 5, 4, 10, 10, 7, 10, 10, 1, 2, 2};
	EXPECT_EQ(rtsa_baruah(4, at_m, 2, ok, NULL), 0);
	EXPECT_EQ(ok[3], 0);
	/* t_max = 12/0.2 = 60 exactly (heavy, τ_0), decided exactly; and 2/1.7 (light) in floating point */
	EXPECT_EQ(rtsa_exact_sign(3, heavy, 1, 60, 60 * 2 - 6 - 6, &sign), 1);
	EXPECT_EQ(sign, 0);
	/* the periods' LCM past 127 bits: not decided */
	int64_t coprime[] = {1, 1000003, 1000003, 1, 1000033, 1000033, 1, 1000037, 1000037, 1, 1000039, 1000039,
			     1, 1000081, 1000081, 1, 1000099, 1000099, 1, 1000117, 1000117, 1, 1000121, 1000121,
			     1, 1000133, 1000133, 1, 1000151, 1000151};
	EXPECT_EQ(rtsa_exact_sign(10, coprime, 0, 1, 1, &sign), 0);
}

static void test_ffdbf(void)
{
	int64_t sigma = -1;
	int skipped = -1;
	EXPECT_EQ(rtsa_ffdbf(3, light, 2, &sigma, &skipped), 1);
	EXPECT_EQ(sigma, 100); /* σ = 1/10 = δ_max, the grid's first value */
	EXPECT_EQ(rtsa_ffdbf(3, heavy, 2, &sigma, &skipped), 0);
	EXPECT_EQ(rtsa_ffdbf(4, mixed, 2, &sigma, &skipped), 1);
	EXPECT_EQ(sigma, 400);
	EXPECT_EQ(rtsa_ffdbf(5, mixed3, 3, &sigma, &skipped), 1);
	EXPECT_EQ(sigma, 450);
	EXPECT_EQ(rtsa_ffdbf(2, late, 2, &sigma, &skipped), 0); /* δ_max > 1: no σ */
	EXPECT_EQ(rtsa_ffdbf(2, full, 2, &sigma, &skipped), 0);
	EXPECT_EQ(rtsa_ffdbf(3, over, 2, &sigma, &skipped), 0);
	/* extremes: every σ's range of t past the 64-bit guard: skipped, no overflow */
	EXPECT_EQ(rtsa_ffdbf(3, big, 4, &sigma, &skipped), 0);
	EXPECT_EQ(skipped, 50);
}

int main(void)
{
	test_gfb();
	test_bcl();
	test_qpa();
	test_fp_rta();
	test_gedf_rta();
	test_baker();
	test_baruah();
	test_ffdbf();
	if (failures) {
		fprintf(stderr, "%d failure(s)\n", failures);
		return EXIT_FAILURE;
	}
	puts("analysis kernels: all known answers");
	return EXIT_SUCCESS;
}
