/* SPDX-License-Identifier: MIT */
/*
 * G-EDF: GFB and BCL, as python/rtsched/analysis/gedf.py computes them.
 *
 * GFB in floating point, decided only when the error bound allows: Python
 * compares Σ c_i/d_i with m − (m − 1)·δ_max in exact rationals. Here each
 * quotient is rounded once (relative error ≤ 2^-53), the sum of n positive
 * terms adds at most n roundings, and the right side three more, so the
 * computed difference is within (n + 4)·2^-53·(Σδ + m + m·δ_max) of the
 * exact one. A difference within 9 times that bound (equality included)
 * is left to Python (RTSA_PYTHON); outside it, its sign is the exact sign.
 *
 * BCL in 64-bit integers, term for term gedf.bcl_condition (β·D_k and (1 − λ)·D_k).
 */
#include "kernels.h"

int rtsa_gfb(int n, const int64_t *cdt, int m)
{
	double sum = 0.0, dmax = 0.0;
	for (int i = 0; i < n; i++) {
		const int64_t *x = cdt + 3 * i;
		double delta = (double)x[0] / (double)(x[1] < x[2] ? x[1] : x[2]);
		sum += delta;
		if (delta > dmax)
			dmax = delta;
	}
	double limit = (double)m - (double)(m - 1) * dmax;
	double diff = limit - sum;
	double tol = (double)(n + 4) * 1e-15 * (sum + (double)m * (1.0 + dmax));
	if (diff > tol)
		return 1;
	if (diff < -tol)
		return 0;
	return RTSA_PYTHON;
}

/* gedf.bcl_condition for τ_k: Σ_{i≠k} min(β_i, D_k − C_k) < m(D_k − C_k), or = with some
 * 0 < β_i ≤ D_k − C_k. Every term is ≥ 0, so once the sum passes the cap the condition
 * fails whatever follows: the loop stops there, and the sum stays below (m + 1)·2^52
 * (times ≤ RTSA_MAX_NS, m ≤ RTSA_MAX_CPUS), inside 64 bits. */
static int bcl_holds(int n, const int64_t *cdt, int m, int k)
{
	int64_t dk = cdt[3 * k + 1];
	int64_t room = dk - cdt[3 * k]; /* ≥ 0: the caller checked C_k ≤ D_k */
	int64_t cap = (int64_t)m * room;
	int64_t total = 0;
	int some_small = 0;
	for (int i = 0; i < n; i++) {
		if (i == k)
			continue;
		int64_t c = cdt[3 * i], d = cdt[3 * i + 1], t = cdt[3 * i + 2];
		int64_t jobs = dk >= d ? (dk - d) / t + 1 : 0; /* non-negative: floor */
		int64_t gap = dk - jobs * t;                    /* |jobs·t| ≤ D_k + T_i */
		int64_t beta;
		/* β = jobs·C_i + min(C_i, max(0, gap)); a product past 64 bits is past room anyway */
		if (__builtin_mul_overflow(jobs, c, &beta) || beta > room)
			beta = room + 1;
		else
			beta += gap >= c ? c : gap > 0 ? gap : 0;
		if (beta < room) {
			total += beta;
			some_small = some_small || beta > 0;
		} else {
			total += room;
			some_small = some_small || (beta == room && beta > 0);
		}
		if (total > cap)
			return 0;
	}
	return total < cap || (total == cap && some_small);
}

int rtsa_bcl(int n, const int64_t *cdt, int m, int verdict_only, uint8_t *ok_out)
{
	int missed = 0;
	for (int k = 0; k < n; k++) {
		if (missed && verdict_only) {
			if (ok_out)
				ok_out[k] = 2;
			continue;
		}
		const int64_t *x = cdt + 3 * k;
		int ok = x[0] <= (x[1] < x[2] ? x[1] : x[2]) && bcl_holds(n, cdt, m, k);
		if (ok_out)
			ok_out[k] = (uint8_t)ok;
		missed = missed || !ok;
		if (missed && !ok_out)
			return 0; /* only the verdict asked for */
	}
	return !missed;
}
