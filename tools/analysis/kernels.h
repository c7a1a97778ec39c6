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
 *
 * Return convention: 1 schedulable, 0 not, RTSA_PYTHON when the kernel cannot
 * decide exactly what Python decides (a comparison too close for the
 * floating-point bounds, U within 1e-6 of 1): the caller then runs Python.
 * The caller guarantees every time is in [0, RTSA_MAX_NS] and n ≥ 1.
 */
#ifndef RTSA_KERNELS_H
#define RTSA_KERNELS_H

#include <stdint.h>

#define RTSA_PYTHON (-1)
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
 * without a bound within its deadline, -2 for the others. Returns 1 when every task is bounded,
 * 0 when not, RTSA_PYTHON when out of memory. */
int rtsa_gedf_rta(int n, const int64_t *cdt, int m, int verdict_only, int64_t *bound_out);

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

/* fp_uni.MAX_BUSY_JOBS */
#define RTSA_MAX_BUSY_JOBS 100000
/* edf_uni.BUSY_PERIOD_STEPS */
#define RTSA_BUSY_PERIOD_STEPS 10000

#endif
