/* SPDX-License-Identifier: MIT */
/*
 * Baker's G-EDF test (RTSS 2003 / TPDS 2005), as gedf_baker.gedf_baker
 * decides it: τ_k passes when Σ_i min(1, β_i) ≤ m − (m − 1)·λ_k, with
 * λ_k = C_k/D_k and β_i = C_i(D_k + T_i − D_i)/(T_i·D_k), plus
 * (C_i·D_k − C_k·T_i)/D_k² when λ_k < u_i (gedf_baker.py states the test).
 *
 * Python compares in exact integers over the periods' LCM, which can pass
 * any fixed width; here the sum is taken in double and decided only when
 * provably right, as GFB's (gedf.c). The case split λ_k < u_i is made
 * exactly (C_k·T_i < C_i·D_k in __int128). Each β_i takes at most nine
 * roundings (five conversions, four quotients or products, the sum of its
 * parts), all of non-negative quantities, so it is within 9ε of itself
 * (ε = 2^-53, to first order), and so is min(1, β_i); the sum of n such
 * terms adds n roundings: |error| ≤ (n + 9)·ε·Σ. The right side takes four roundings of
 * quantities at most m: |error| ≤ 4ε·m. A difference within 4 times the
 * sum of both, equality included, goes to Python (RTSA_PYTHON).
 */
#include "kernels.h"

/* 1 when τ_k passes, 0 when not, RTSA_PYTHON when too close to tell. */
static int baker_holds(int n, const int64_t *cdt, int m, int k)
{
	int64_t ck = cdt[3 * k], dk = cdt[3 * k + 1];
	double dk_f = (double)dk, sum = 0.0;
	for (int i = 0; i < n; i++) {
		const int64_t *row = cdt + 3 * i;
		int64_t ci = row[0], di = row[1], ti = row[2];
		double beta = (double)ci / (double)ti * ((double)(dk + ti - di) / dk_f);
		__int128 over = (__int128)ci * dk - (__int128)ck * ti; /* > 0: λ_k < u_i */
		if (over > 0)
			beta += (double)over / dk_f / dk_f;
		sum += beta < 1.0 ? beta : 1.0;
	}
	double limit = (double)m - (double)(m - 1) * ((double)ck / dk_f);
	double tol = 4 * RTSA_EPS * ((double)(n + 9) * sum + 4 * (double)m);
	double diff = limit - sum;
	if (diff > tol)
		return 1;
	if (diff < -tol)
		return 0;
	return RTSA_PYTHON;
}

int rtsa_baker(int n, const int64_t *cdt, int m, uint8_t *ok_out)
{
	int verdict = 1;
	for (int k = 0; k < n; k++) {
		int ok = cdt[3 * k] <= cdt[3 * k + 1] ? baker_holds(n, cdt, m, k) : 0; /* C > D: λ > 1 */
		if (ok == RTSA_PYTHON)
			return RTSA_PYTHON;
		if (ok_out)
			ok_out[k] = (uint8_t)ok;
		if (!ok) {
			verdict = 0;
			if (!ok_out)
				return 0; /* only the verdict asked for */
		}
	}
	return verdict;
}
