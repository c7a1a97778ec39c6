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
 * BCL in integers, term for term gedf.bcl_condition (β·D_k and (1 − λ)·D_k).
 */
#include "kernels.h"

int rtsa_gfb(int n, const int64_t *c, const int64_t *dmin, int m)
{
	double sum = 0.0, dmax = 0.0;
	for (int i = 0; i < n; i++) {
		double delta = (double)c[i] / (double)dmin[i];
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
 * 0 < β_i ≤ D_k − C_k. */
static int bcl_holds(int n, const int64_t *c, const int64_t *d, const int64_t *t, int m, int k)
{
	int64_t dk = d[k];
	__int128 room = dk - c[k];
	__int128 total = 0;
	int some_small = 0;
	for (int i = 0; i < n; i++) {
		if (i == k)
			continue;
		__int128 jobs = dk >= d[i] ? (dk - d[i]) / t[i] + 1 : 0; /* non-negative: floor */
		__int128 gap = dk - jobs * t[i];
		__int128 beta = jobs * c[i] + (gap >= c[i] ? c[i] : gap > 0 ? gap : 0);
		if (beta < room) {
			total += beta;
			some_small = some_small || beta > 0;
		} else {
			total += room;
			some_small = some_small || (beta == room && beta > 0);
		}
	}
	__int128 cap = (__int128)m * room;
	return total < cap || (total == cap && some_small);
}

int rtsa_bcl(int n, const int64_t *c, const int64_t *d, const int64_t *t, int m, int verdict_only,
	     int8_t *ok_out)
{
	int missed = 0;
	for (int k = 0; k < n; k++) {
		if (missed && verdict_only) {
			ok_out[k] = -1;
			continue;
		}
		int64_t dmin = d[k] < t[k] ? d[k] : t[k];
		int ok = c[k] <= dmin && bcl_holds(n, c, d, t, m, k);
		ok_out[k] = (int8_t)ok;
		missed = missed || !ok;
	}
	return !missed;
}
