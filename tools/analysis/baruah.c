/* SPDX-License-Identifier: MIT */
/*
 * Baruah's G-EDF test (RTSS 2007), as gedf_demand.gedf_baruah decides it:
 * the same range of A per task, the same breakpoints, the same condition
 * (*) in the same 64-bit integers (gedf_demand.py's docstring argues which
 * A are checked and why the sums fit).
 *
 * What differs is the order and the stopping: Python builds every point,
 * sorts them and evaluates all; here the points are generated family by
 * family (each family an arithmetic progression base + j·step) inside
 * windows of t that double in width from D_k, and the first point where
 * (*) fails ends the task (its verdict is "miss" whichever point fails).
 * Duplicates are evaluated twice, which changes nothing. Failures sit
 * mostly at small A, so most unschedulable sets stop after a few dozen
 * evaluations; a task that passes costs every point, as in Python. In
 * detail mode (what the reasons of Python's result state, when they are
 * read) every point of the first window with a failure is checked, so the
 * least failing A is known, and a passing task's points are sorted to
 * count the distinct ones, as Python's np.unique does.
 *
 * Two quantities are rational in Python (exact Fractions): U = Σ C_i/T_i,
 * compared with m, and the end of the range t_max = ⌊(Σ C_i(T_i − D_i)/T_i
 * + C_Σ + (m − 1)C_k) / (m − U)⌋. Both are computed here in long double with a
 * bound on their rounding error (below); when the comparison, or the floor,
 * is within that bound of changing, it is made exactly over the periods'
 * LCM (exact.c), and when that does not fit 127 bits the set goes to
 * Python (RTSA_PYTHON).
 */
#include <stdlib.h>

#include "kernels.h"

struct baruah {
	const int64_t *cdt; /* the tasks' rows (C, D, T) */
	int64_t *diff;      /* n scratch values: I2_i − I1_i */
	int n, m, k;
	/* detail mode (the fields of gedf_baruah's reasons): every point of a window is visited, the
	 * least failing t kept, and every point visited stored (to count the distinct ones); else NULL */
	int64_t *seen;
	int64_t seen_n, least_fail;
};

/* The most integers a floor's error interval may hold before the set goes to Python */
#define EXACT_TRIES 64

/* Python's point budget bounds the points visited per task (families of 8 per job, plus 3) */
#define SEEN_MAX (2 * (int64_t)RTSA_BARUAH_MAX_POINTS + 3)

/* The sum of the `top` largest of v[0..n) (any signs), as np.partition's top slice; permutes v. */
static int64_t top_sum(int64_t *v, int n, int top)
{
	int64_t sum = 0;
	if (top <= 0)
		return 0;
	if (top >= n) {
		for (int i = 0; i < n; i++)
			sum += v[i];
		return sum;
	}
	/* quickselect: v[n − top..n) become the top values */
	int lo = 0, hi = n - 1, want = n - top;
	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t x = v[i];
				v[i++] = v[j];
				v[j--] = x;
			}
		}
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			break; /* v[j + 1..i) equal the pivot and hold position `want` */
	}
	for (int i = want; i < n; i++)
		sum += v[i];
	return sum;
}

/* (*) at t = A + D_k: Σ_i I1_i + (the m − 1 largest I2_i − I1_i) < m·x (gedf_demand._baruah_holds). */
static int holds_at(const struct baruah *b, int64_t t)
{
	const int64_t *x_k = b->cdt + 3 * b->k;
	int64_t ck = x_k[0], dk = x_k[1];
	int64_t a = t - dk, x = t - ck + 1, sum = 0;
	for (int i = 0; i < b->n; i++) {
		const int64_t *row = b->cdt + 3 * i;
		int64_t c = row[0], d = row[1], p = row[2];
		int64_t q = t / p, r = t - q * p;
		int64_t dbf = t >= d ? ((t - d) / p + 1) * c : 0; /* DBF: no carry-in */
		int64_t dbf2 = q * c + (c < r ? c : r);            /* DBF': a carry-in job */
		int64_t cap = x;
		if (i == b->k) { /* τ_k's earlier jobs run before t_k only */
			dbf -= ck;
			dbf2 -= ck;
			cap = a;
		}
		int64_t i1 = dbf < cap ? dbf : cap, i2 = dbf2 < cap ? dbf2 : cap;
		sum += i1;
		b->diff[i] = i2 - i1;
	}
	return sum + top_sum(b->diff, b->n, b->m - 1) < (int64_t)b->m * x;
}

/* (*) at t; 0 when it fails (in detail mode: never, the least failing t kept instead). */
static int visit(struct baruah *b, int64_t t)
{
	if (!b->seen)
		return holds_at(b, t);
	b->seen[b->seen_n++] = t;
	if (t < b->least_fail && !holds_at(b, t))
		b->least_fail = t;
	return 1;
}

/* (*) at every point base + j·step (j = 0..jobs) inside [lo, hi]; 0 at the first that fails. */
static int family_holds(struct baruah *b, int64_t base, int64_t step, int64_t jobs, int64_t lo, int64_t hi)
{
	if (step == 0)
		return base < lo || base > hi || visit(b, base);
	int64_t first = lo > base ? rtsa_ceil_div(lo - base, step) : 0;
	int64_t last = hi >= base ? rtsa_floor_div(hi - base, step) : -1;
	if (last > jobs)
		last = jobs;
	for (int64_t j = first; j <= last; j++)
		if (!visit(b, base + j * step))
			return 0;
	return 1;
}

/* (*) at every point of gedf_demand._baruah_points in [lo, hi] (D_k ≤ lo, hi ≤ t_max): D_k,
 * t_max and the integer before it; each τ_i's DBF steps D_i + jT_i, DBF' bends jT_i and
 * jT_i + C_i, the switch of its min to the cap, for j = 0..⌊t_max/T_i⌋ + 1, and the integer
 * before each. */
static int window_holds(struct baruah *b, int64_t t_max, int64_t lo, int64_t hi)
{
	const int64_t *x_k = b->cdt + 3 * b->k;
	int64_t ck = x_k[0], dk = x_k[1];
	const int64_t ends[3] = {dk, t_max - 1, t_max};
	for (int e = 0; e < 3; e++)
		if (ends[e] >= lo && ends[e] <= hi && ends[e] >= dk && !visit(b, ends[e]))
			return 0;
	for (int i = 0; i < b->n; i++) {
		const int64_t *row = b->cdt + 3 * i;
		int64_t c = row[0], d = row[1], p = row[2], jobs = t_max / p + 1;
		/* the min switches where the value (j + 1)·C_i meets the cap: t = value + C_k − 1 (x),
		 * or for τ_k, value − C_k = A at t = value − C_k + D_k */
		int64_t turn = i == b->k ? c - ck + dk : c + ck - 1;
		const int64_t family[4][2] = {{d, p}, {0, p}, {c, p}, {turn, c}};
		for (int f = 0; f < 4; f++)
			for (int64_t before = 0; before <= 1; before++)
				if (!family_holds(b, family[f][0] - before, family[f][1], jobs, lo, hi))
					return 0;
	}
	return 1;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* One task's verdict: 1 ok, 0 miss, 2 given up, RTSA_PYTHON; in detail mode *detail: the number
 * of distinct points checked (ok), or the least A where (*) fails (miss at a point), else -1. */
static int task_verdict(struct baruah *b, long double y, long double m_minus_u, long double err_rel, int64_t c_sigma,
			int64_t *detail)
{
	const int64_t *x_k = b->cdt + 3 * b->k;
	int64_t ck = x_k[0], dk = x_k[1];
	*detail = -1;
	if (ck > dk)
		return 0;
	long double top = y + (long double)c_sigma + (long double)(b->m - 1) * (long double)ck;
	long double end = top / m_minus_u;
	long double err = err_rel * end;
	int64_t t_max;
	if (end - err >= 0x1p62L)
		return 2; /* t_max·m·(n + 1) > 2^62: Python gives up (D_k < 2^62 rules out "range empty") */
	if (!rtsa_certain_floor(end, err, &t_max)) {
		/* integers within the error: t_max is the largest N of them with Σ C_i(T_i − D_i + N)/T_i ≥
		 * N·m − C_Σ − (m − 1)C_k (the numerator ≥ N·(m − U)), or the one below the least */
		if (!(end + err < 0x1p62L) || floorl(end + err) - floorl(end - err) > EXACT_TRIES)
			return RTSA_PYTHON;
		int64_t near = (int64_t)floorl(end + err), least = (int64_t)floorl(end - err);
		for (t_max = near; t_max > least; t_max--) {
			int sign;
			__int128 rhs = (__int128)t_max * b->m - c_sigma - (__int128)(b->m - 1) * ck;
			if (!rtsa_exact_sign(b->n, b->cdt, 1, t_max, rhs, &sign))
				return RTSA_PYTHON;
			if (sign >= 0)
				break;
		}
	}
	if (t_max < dk)
		return 1; /* (*) holds for every A */
	if ((__int128)t_max * b->m * (b->n + 1) > RTSA_INT64_SAFE)
		return 2;
	int64_t points = 0;
	for (int i = 0; i < b->n; i++) {
		points += 4 * (t_max / b->cdt[3 * i + 2] + 2);
		if (points > RTSA_BARUAH_MAX_POINTS)
			return 2;
	}
	/* windows in increasing t: the first that holds a failing point holds the least */
	b->seen_n = 0;
	b->least_fail = INT64_MAX;
	for (int64_t lo = dk, width = dk > 0 ? dk : 1; lo <= t_max; lo += width, width *= 2) {
		int64_t hi = t_max - lo < width ? t_max : lo + width - 1;
		if (!window_holds(b, t_max, lo, hi))
			return 0;
		if (b->least_fail != INT64_MAX) {
			*detail = b->least_fail - dk;
			return 0;
		}
	}
	if (b->seen) { /* the distinct points, as np.unique counts them */
		qsort(b->seen, (size_t)b->seen_n, sizeof(int64_t), by_value);
		int64_t distinct = 0;
		for (int64_t i = 0; i < b->seen_n; i++)
			distinct += i == 0 || b->seen[i] != b->seen[i - 1];
		*detail = distinct;
	}
	return 1;
}

int rtsa_baruah(int n, const int64_t *cdt, int m, uint8_t *ok_out, int64_t *detail_out)
{
	/* U and y = Σ C_i(T_i − D_i)/T_i: n positive terms, each within 3 roundings (its
	 * conversions, product, quotient), summed with n more; C_Σ: the m − 1 largest C */
	long double u = 0.0, y = 0.0;
	int64_t *scratch = malloc(sizeof(int64_t) * (size_t)n);
	if (!scratch)
		return RTSA_PYTHON;
	for (int i = 0; i < n; i++) {
		const int64_t *row = cdt + 3 * i;
		u += (long double)row[0] / (long double)row[2];
		y += (long double)row[0] * (long double)(row[2] - row[1]) / (long double)row[2];
		scratch[i] = row[0];
	}
	int64_t c_sigma = top_sum(scratch, n, m - 1);
	/* |error of u| ≤ (n + 4)·ε·u and of m − u one more ε·m: decide U < m in floating point only
	 * outside 4 times that */
	long double u_err = (long double)(n + 5) * RTSA_LEPS * ((long double)m + u);
	int verdict = 1, sign = (long double)m - u > 4 * u_err ? -1 : u - (long double)m > 4 * u_err ? 1 : 2;
	if (sign == 2 && !rtsa_exact_sign(n, cdt, 0, 1, m, &sign)) { /* U against m, exactly */
		free(scratch);
		return RTSA_PYTHON;
	}
	if (sign >= 0) {
		for (int k = 0; ok_out && k < n; k++) {
			ok_out[k] = 0; /* U ≥ m: every task misses */
			if (detail_out)
				detail_out[k] = -1;
		}
		free(scratch);
		return 0;
	}
	/* t_max's relative error: y's and the numerator's (n + 6)ε, the quotient's ε, and m − U's
	 * u_err / (m − U); taken 4 times */
	long double m_minus_u = (long double)m - u;
	long double err_rel = 4 * ((long double)(n + 8) * RTSA_LEPS + u_err / m_minus_u);
	struct baruah b = {.cdt = cdt, .diff = scratch, .n = n, .m = m};
	if (detail_out && !(b.seen = malloc(sizeof(int64_t) * (size_t)SEEN_MAX))) {
		free(scratch);
		return RTSA_PYTHON;
	}
	for (int k = 0; k < n; k++) {
		b.k = k;
		int64_t detail;
		int v = task_verdict(&b, y, m_minus_u, err_rel, c_sigma, &detail);
		if (detail_out)
			detail_out[k] = detail;
		if (v == RTSA_PYTHON) {
			verdict = RTSA_PYTHON;
			break;
		}
		if (ok_out)
			ok_out[k] = (uint8_t)v;
		if (v == 0) {
			verdict = 0;
			if (!ok_out)
				break; /* only the verdict asked for */
		} else if (v == 2 && verdict == 1) {
			verdict = RTSA_UNKNOWN;
		}
	}
	free(b.seen);
	free(scratch);
	return verdict;
}
