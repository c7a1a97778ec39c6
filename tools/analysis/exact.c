/* SPDX-License-Identifier: MIT */
/*
 * Exact comparisons of sums over the periods, for the kernels whose
 * floating-point value of such a sum is too close to a boundary to decide
 * (Baruah's U against m and its range end, FF-DBF's grid end and range
 * ends). In integers over the periods' least common multiple L, in 127
 * bits, whenever L and the products fit: they do for the small and round
 * periods of hand-made sets, where exact boundaries occur; otherwise the
 * caller hands the set to Python.
 */
#include "kernels.h"

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

int rtsa_exact_sign(int n, const int64_t *cdt, int64_t x, __int128 z, __int128 rhs, int *sign)
{
	__int128 l = 1;
	for (int i = 0; i < n; i++) {
		int64_t t = cdt[3 * i + 2];
		int64_t g = gcd64((int64_t)(l % t), t);
		if (__builtin_mul_overflow(l, t / g, &l))
			return 0;
	}
	__int128 sum = 0, right;
	for (int i = 0; i < n; i++) {
		const int64_t *row = cdt + 3 * i;
		__int128 factor, term; /* C_i·(x(T_i − D_i) + z)·(L/T_i) */
		if (__builtin_mul_overflow((__int128)x, row[2] - row[1], &factor) ||
		    __builtin_add_overflow(factor, z, &factor) || __builtin_mul_overflow(factor, (__int128)row[0], &term) ||
		    __builtin_mul_overflow(term, l / row[2], &term) || __builtin_add_overflow(sum, term, &sum))
			return 0;
	}
	if (__builtin_mul_overflow(rhs, l, &right))
		return 0;
	*sign = sum > right ? 1 : sum < right ? -1 : 0;
	return 1;
}
