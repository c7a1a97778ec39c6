/* SPDX-License-Identifier: MIT */
/*
 * G-EDF response-time analysis (Bertogna & Cirinei 2007), as gedf.gedf_rta:
 * rounds over the tasks, each bound from the others' current ones (updated
 * in place), until none shrinks (at most 1,000 rounds); a task whose inputs
 * have not changed since its last computation is not recomputed.
 *
 * One task's bound is rta_fixpoint.least_bound over the interference f of
 * rta_fixpoint.Interference: R ← f(R) from C_k for at most CREEP_STEPS
 * steps, then a bisection between the last iterate and D_k.
 * (rta_fixpoint.least_response, which Python runs, gives the same answer by
 * walking f's linear pieces; tests/python/test_analysis_rta_fixpoint.py.)
 * Integers: every time ≤ RTSA_MAX_NS, so R, x = R + R_i − C_i and the caps
 * fit 64 bits; the workloads N·C_i and the sums are __int128.
 */
#include <stdlib.h>

#include "kernels.h"

/* rta_fixpoint.CREEP_STEPS */
#define CREEP_STEPS 500
/* gedf_rta's bound on the rounds */
#define MAX_ROUNDS 1000

struct rta_task {
	const int64_t *cdt; /* the tasks' rows (C, D, T) */
	const int64_t *bound;
	int n, m, k;
};

/* f(R) = C_k + ⌊(1/m) Σ_{i≠k} min(W_i(R), E_i^k, R − C_k + 1)⌋ (rta_fixpoint.Interference.__call__,
 * with the terms of gedf._edf_terms). */
static __int128 interference(const struct rta_task *a, int64_t r)
{
	const int64_t *x = a->cdt;
	int64_t c_k = x[3 * a->k], d_k = x[3 * a->k + 1];
	__int128 cap = (__int128)r - c_k + 1, total = 0;
	for (int i = 0; i < a->n; i++) {
		if (i == a->k)
			continue;
		int64_t c = x[3 * i], d = x[3 * i + 1], t = x[3 * i + 2], r_i = a->bound[i];
		/* E_i^k = ⌊D_k/T_i⌋·C_i + min(C_i, max(0, D_k mod T_i − D_i + R_i)) */
		int64_t carry = d_k % t - d + r_i;
		__int128 e = (__int128)(d_k / t) * c + (carry >= c ? c : carry > 0 ? carry : 0);
		/* W_i(R) = N·C_i + min(C_i, x − N·T_i), x = R + R_i − C_i, N = ⌊x/T_i⌋ (0 when x < 0) */
		int64_t lag_x = r + (r_i - c);
		__int128 w = 0;
		if (lag_x >= 0) {
			int64_t jobs = lag_x / t, rest = lag_x - jobs * t;
			w = (__int128)jobs * c + (rest < c ? rest : c);
		}
		if (e < w)
			w = e;
		total += w < cap ? w : cap;
	}
	return c_k + total / a->m;
}

/* gedf._rta_one: the least R ≤ D_k with f(R) ≤ R as least_bound finds it, or -1. */
static int64_t rta_one(const struct rta_task *a)
{
	int64_t c = a->cdt[3 * a->k], limit = a->cdt[3 * a->k + 1];
	if (c > limit)
		return -1;
	int64_t r = c;
	for (int step = 0; step < CREEP_STEPS; step++) {
		__int128 next = interference(a, r);
		if (next <= r)
			return r;
		if (next > limit)
			return -1;
		r = (int64_t)next;
	}
	/* rta_fixpoint._bisect: an R in (r, limit] with f(R) ≤ R */
	int64_t lo = r, hi = limit;
	if (interference(a, hi) > hi)
		return -1;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (interference(a, mid) <= mid)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

int rtsa_gedf_rta(int n, const int64_t *cdt, int m, int verdict_only, int64_t *bound_out, int *rounds_out)
{
	int64_t *seen_at = malloc(sizeof(int64_t) * (size_t)n * 2);
	if (!seen_at)
		return RTSA_PYTHON;
	int64_t *seen_r = seen_at + n;
	for (int k = 0; k < n; k++) {
		bound_out[k] = cdt[3 * k + 1]; /* bounds start at the deadlines */
		seen_at[k] = -1;
	}
	struct rta_task a = {.cdt = cdt, .bound = bound_out, .n = n, .m = m};
	int64_t updates = 0;
	int failed = 0, changed = 1, rounds = 0;
	while (changed && rounds < MAX_ROUNDS) {
		rounds++;
		changed = 0;
		failed = 0;
		for (int k = 0; k < n; k++) {
			int64_t r;
			if (seen_at[k] == updates) {
				r = seen_r[k];
			} else {
				a.k = k;
				r = rta_one(&a);
			}
			if (r >= 0 && r < bound_out[k]) {
				bound_out[k] = r;
				changed = 1;
				updates++;
			}
			seen_at[k] = updates;
			seen_r[k] = r;
			failed = failed || r < 0;
		}
		if (verdict_only && !failed)
			break;
	}
	if (failed) /* -1: no bound within the deadline; -2: depends on such a task */
		for (int k = 0; k < n; k++)
			bound_out[k] = seen_r[k] < 0 ? -1 : -2;
	free(seen_at);
	*rounds_out = rounds;
	return !failed;
}
