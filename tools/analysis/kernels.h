/* SPDX-License-Identifier: MIT */
/*
 * The numeric kernels of four schedulability tests, over integer arrays, for
 * python/rtsched/analysis/native_engine.py (loaded with ctypes; libc only).
 *
 * Each computes what the Python implementation computes, with the same
 * integer arithmetic (in __int128 where a product could pass 64 bits):
 *   rtsa_gfb    gedf.gedf_gfb       (see below: decided in floating point or not at all)
 *   rtsa_bcl    gedf.bcl_condition   per task, and gedf_bcl's C > min(D, T) miss
 *   rtsa_qpa    edf_uni.qpa_group    with a horizon that is a valid upper bound of Python's
 *   rtsa_fp_rta fp_uni.response_time per task, the hp sets of fp_uni.rta_tasks, no resources
 *   rtsa_gedf_rta gedf.gedf_rta       rounds of the Bertogna–Cirinei bounds (gedf_rta.c)
 *   rtsa_baker  gedf_baker.gedf_baker  per task, in floating point decided only when provably right (baker.c)
 *   rtsa_baruah gedf_demand.gedf_baruah condition (*) at every breakpoint Python checks (baruah.c)
 *   rtsa_ffdbf  gedf_demand.gedf_ffdbf  the same σ grid and points, in the same integers (ffdbf.c)
 *
 * Return convention: 1 schedulable, 0 not, RTSA_PYTHON when the kernel cannot
 * decide exactly what Python decides (a comparison too close for the
 * floating-point bounds, U within 1e-6 of 1): the caller then runs Python;
 * RTSA_UNKNOWN (Baruah's test only) when the test gives up as Python's does
 * (its point budget), with no task shown to miss.
 * The caller guarantees every time is in [0, RTSA_MAX_NS] and n ≥ 1.
 */
#ifndef RTSA_KERNELS_H
#define RTSA_KERNELS_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#define RTSA_PYTHON (-1)
#define RTSA_UNKNOWN 2
/* The largest time the kernels accept (2^52 ns, 52 days): sums of up to
 * RTSA_MAX_TASKS such values and their products with job counts stay far
 * inside __int128, and the float comparisons keep their error bounds. */
#define RTSA_MAX_NS ((int64_t)1 << 52)
#define RTSA_MAX_TASKS 100000
/* The most processors the G-EDF kernels accept (BCL's sums stay inside 64 bits). */
#define RTSA_MAX_CPUS 1024

/* The G-EDF kernels take the tasks as rows (C_i, D_i, T_i): cdt[3i], cdt[3i + 1], cdt[3i + 2]
 * (one array to fill from Python, not three). */

/* GFB: Σ C_i/dmin_i ≤ m − (m − 1)·max_i C_i/dmin_i, dmin_i = min(D_i, T_i). */
int rtsa_gfb(int n, const int64_t *cdt, int m);

/* BCL for every task k in order (all tasks: D ≤ T). ok_out[k] = 1 when τ_k
 * passes, 0 when it fails; with verdict_only the tasks after the first
 * failure are left out (ok_out = 2). ok_out NULL: the verdict alone, stopping at the
 * first failure. Returns 1 when every task passes, else 0. */
int rtsa_bcl(int n, const int64_t *cdt, int m, int verdict_only, uint8_t *ok_out);

/* G-EDF RTA (all tasks: D ≤ T). bound_out[k]: τ_k's bound, or (the set not shown) -1 for a task
 * without a bound within its deadline, -2 for the others; *rounds_out: the rounds run (what
 * gedf_rta's reason states). Returns 1 when every task is bounded, 0 when not, RTSA_PYTHON when
 * out of memory. */
int rtsa_gedf_rta(int n, const int64_t *cdt, int m, int verdict_only, int64_t *bound_out, int *rounds_out);

/* Baker's test (all tasks: D ≤ T). ok_out[k] = 1 when τ_k passes, 0 when not; ok_out NULL: the
 * verdict alone, stopping at the first failure. Returns 1 / 0, or RTSA_PYTHON when a task's
 * comparison is too close to decide in floating point (ok_out then undefined). */
int rtsa_baker(int n, const int64_t *cdt, int m, uint8_t *ok_out);

/* Baruah's test (all tasks: D ≤ T). ok_out[k] = 1 when (*) holds for τ_k at every A, 0 when it
 * fails somewhere (or C_k > D_k, or U ≥ m), 2 when Python gives up on τ_k (its range of A too
 * long for 64-bit sums, or more than RTSA_BARUAH_MAX_POINTS values); ok_out NULL: the verdict
 * alone, stopping at the first failure. detail_out (NULL, or with ok_out): per task, the number
 * of distinct points where (*) was checked and holds, or the least A where it fails, or -1 when
 * no point was checked (what gedf_baruah's reasons state; slower: every point of the window of
 * the first failure is checked, and a passing task's points are sorted). Returns 0 when some
 * task fails, else RTSA_UNKNOWN when some task is given up, else 1; RTSA_PYTHON when U against
 * m or a range end cannot be decided exactly (exact.c), or out of memory. */
int rtsa_baruah(int n, const int64_t *cdt, int m, uint8_t *ok_out, int64_t *detail_out);

/* FF-DBF (all tasks: D ≤ T, m ≥ 2). Returns 1 with *sigma_out the numerator (over
 * RTSA_SIGMA_DENOMINATOR) of the first σ of Python's grid that passes, 0 when none does;
 * *skipped_out: the σ tried before that were skipped as Python skips them (a range of t too long).
 * RTSA_PYTHON when the grid's upper end or a range of t cannot be decided exactly (exact.c). */
int rtsa_ffdbf(int n, const int64_t *cdt, int m, int64_t *sigma_out, int *skipped_out);

/* QPA on one processor (independent tasks, any deadlines). */
int rtsa_qpa(int n, const int64_t *c, const int64_t *d, const int64_t *t);

/* FP response-time analysis of the tasks of one processor, each task's blocking b_i
 * and jitter j_i given; higher-or-equal priority (prio, larger is higher) interferes.
 * r_out[i]: the response-time bound, or -1 when it exceeds d_i (then jobs_out[i] is
 * the job of the busy period where it did); with verdict_only the tasks after the
 * first miss (in the given order) get r_out = -2. Returns 1 when every task is
 * bounded, else 0. */
int rtsa_fp_rta(int n, const int64_t *c, const int64_t *t, const int64_t *d, const int64_t *j, const int64_t *b,
		const int64_t *prio, int verdict_only, int64_t *r_out, int64_t *jobs_out);

/* a / b rounded down (a ≥ 0, b > 0), in 64 bits when a fits (__int128 division is a
 * library call, several times slower). */
static inline __int128 rtsa_div(__int128 a, int64_t b)
{
	return a <= INT64_MAX ? (__int128)((int64_t)a / b) : a / b;
}

/* a / b rounded down and up, for any sign of a (b > 0) */
static inline int64_t rtsa_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return q * b > a ? q - 1 : q;
}

static inline int64_t rtsa_ceil_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return q * b < a ? q + 1 : q;
}

/* ⌊x⌋ of a value computed in floating point as x with |error| ≤ tol, into *out; 0 when the
 * interval [x − tol, x + tol] holds an integer's boundary, so that ⌊·⌋ is not certain (and when
 * it reaches 2^62: the callers treat larger values by their own bound first). */
static inline int rtsa_certain_floor(long double x, long double tol, int64_t *out)
{
	long double lo = floorl(x - tol), hi = floorl(x + tol);
	if (lo != hi || !(hi < 0x1p62L) || !(lo > -0x1p62L))
		return 0;
	*out = (int64_t)lo;
	return 1;
}

/* The sign of Σ_i C_i·(x·(T_i − D_i) + z)/T_i − rhs (rows of cdt), exactly, into *sign (exact.c);
 * 0 when the periods' LCM or a product passes 127 bits (then the caller runs Python). */
int rtsa_exact_sign(int n, const int64_t *cdt, int64_t x, __int128 z, __int128 rhs, int *sign);

/* The relative rounding error of one double operation (2^-53), and of one long double operation
 * (2^-64 on x86-64; the sums whose floors must be exact are taken in long double). */
#define RTSA_EPS 0x1p-53
#define RTSA_LEPS (LDBL_EPSILON / 2)

/* fp_uni.MAX_BUSY_JOBS */
#define RTSA_MAX_BUSY_JOBS 100000
/* edf_uni.BUSY_PERIOD_STEPS */
#define RTSA_BUSY_PERIOD_STEPS 10000
/* gedf_demand.MAX_POINTS, SIGMA_STEPS, SIGMA_DENOMINATOR */
#define RTSA_BARUAH_MAX_POINTS 400000
#define RTSA_SIGMA_STEPS 50
#define RTSA_SIGMA_DENOMINATOR 1000
/* gedf_demand._INT64_SAFE: the sums stay inside 64 bits below it */
#define RTSA_INT64_SAFE ((__int128)1 << 62)

#endif
