/* SPDX-License-Identifier: MIT */
/*
 * FF-DBF (Baruah, Bonifaci, Marchetti-Spaccamela, Stiller 2010), as
 * gedf_demand.gedf_ffdbf decides it: the same grid of σ = a/g (g =
 * RTSA_SIGMA_DENOMINATOR), tried in the same order, each over the same
 * points t = D_i + j·T_i ≤ t_max in the same 64-bit integers (everything
 * times g), the same skips (a range too long for 64-bit sums, more than
 * RTSA_BARUAH_MAX_POINTS points). The verdict is "schedulable" exactly
 * when some σ of the grid passes, so the first that passes is the witness
 * Python reports.
 *
 * Differences in the work only: the points of one σ are generated per task
 * inside windows of t that double in width, and the first t where the
 * demand exceeds the supply ends that σ (Python evaluates them all).
 *
 * Rational quantities of Python, computed here in long double with a bound on
 * their rounding error: the grid's upper end ⌈g(m − U)/(m − 1)⌉ and each
 * t_max = ⌊Σ C_i / (m − (m − 1)σ − U)⌋. When a floor is within that bound
 * of changing it is decided exactly over the periods' LCM (exact.c), and
 * when that does not fit 127 bits the set goes to Python (RTSA_PYTHON). The lower end
 * ⌈g·max C_i/D_i⌉ is exact (integers).
 */
#include "kernels.h"

/* Σ_i FF-DBF(τ_i, t, σ)·g ≤ (m·g − (m − 1)·a)·t, σ = a/g (gedf_demand._ffdbf_holds at one t). */
static int holds_at(int n, const int64_t *cdt, int64_t supply_rate, int64_t a, int64_t t)
{
	const int64_t g = RTSA_SIGMA_DENOMINATOR;
	int64_t demand = 0;
	for (int i = 0; i < n; i++) {
		const int64_t *row = cdt + 3 * i;
		int64_t cg = row[0] * g, d = row[1], p = row[2];
		int64_t q = t / p, r = t - q * p;
		int64_t partial = cg - (d - r) * a; /* C·g − (D − r)·σ·g */
		demand += q * cg + (r >= d ? cg : partial >= 0 ? partial : 0);
	}
	return demand <= supply_rate * t;
}

/* The condition at every point D_i + j·T_i (j ≥ 0) in [lo, hi]; 0 at the first that fails. */
static int window_holds(int n, const int64_t *cdt, int64_t supply_rate, int64_t a, int64_t lo, int64_t hi)
{
	for (int i = 0; i < n; i++) {
		int64_t d = cdt[3 * i + 1], p = cdt[3 * i + 2];
		int64_t first = lo > d ? rtsa_ceil_div(lo - d, p) : 0;
		for (int64_t t = d + first * p; t <= hi; t += p)
			if (!holds_at(n, cdt, supply_rate, a, t))
				return 0;
	}
	return 1;
}

/* The most integers a floor's error interval may hold before the set goes to Python */
#define EXACT_TRIES 64

/* What sigma_holds says of a σ that Python skips (its range of t too long). */
#define SKIPPED 3

/* σ = a/g: 1 passes, 0 fails, SKIPPED, RTSA_PYTHON. */
static int sigma_holds(int n, const int64_t *cdt, int m, int64_t a, long double u, long double u_err, int64_t c_sum)
{
	const int64_t g = RTSA_SIGMA_DENOMINATOR;
	/* room = m − (m − 1)σ − U > 0 (σ below the grid's exact upper end); its error u_err + 3ε·m */
	long double room = (long double)m - (long double)(m - 1) * ((long double)a / (long double)g) - u;
	long double end = (long double)c_sum / room;
	long double err = 4 * end * (2 * RTSA_LEPS + (u_err + 3 * RTSA_LEPS * (long double)m) / room);
	int64_t t_max;
	if (end - err >= 0x1p62L)
		return SKIPPED; /* past the 64-bit guard below: skipped */
	if (!rtsa_certain_floor(end, err, &t_max)) {
		/* integers within the error: t_max is the largest N of them with C_Σ ≥ N·room, i.e.
		 * (times g) Σ N·g·C_i/T_i ≥ N·m·g − N(m − 1)a − C_Σ·g, or the one below the least */
		if (!(end + err < 0x1p62L) || floorl(end + err) - floorl(end - err) > EXACT_TRIES)
			return RTSA_PYTHON;
		int64_t near = (int64_t)floorl(end + err), least = (int64_t)floorl(end - err);
		for (t_max = near; t_max > least; t_max--) {
			int sign;
			__int128 rhs = (__int128)t_max * m * g - (__int128)t_max * (m - 1) * a - (__int128)c_sum * g;
			if (!rtsa_exact_sign(n, cdt, 0, (__int128)t_max * g, rhs, &sign))
				return RTSA_PYTHON;
			if (sign >= 0)
				break;
		}
	}
	if ((__int128)t_max * ((__int128)m * g + c_sum) * n > RTSA_INT64_SAFE)
		return SKIPPED;
	int64_t points = 0;
	for (int i = 0; i < n; i++) {
		points += t_max / cdt[3 * i + 2] + 1;
		if (points > RTSA_BARUAH_MAX_POINTS)
			return SKIPPED;
	}
	int64_t supply_rate = (int64_t)m * g - (int64_t)(m - 1) * a;
	int64_t width = 1;
	for (int i = 0; i < n; i++)
		width = cdt[3 * i + 2] > width ? cdt[3 * i + 2] : width;
	for (int64_t lo = 0; lo <= t_max; lo += width, width *= 2) {
		int64_t hi = t_max - lo < width ? t_max : lo + width - 1;
		if (!window_holds(n, cdt, supply_rate, a, lo, hi))
			return 0;
	}
	return 1;
}

int rtsa_ffdbf(int n, const int64_t *cdt, int m, int64_t *sigma_out, int *skipped_out)
{
	const int64_t g = RTSA_SIGMA_DENOMINATOR;
	long double u = 0.0;
	int64_t c_sum = 0, lo_a = 0;
	*skipped_out = 0;
	for (int i = 0; i < n; i++) {
		const int64_t *row = cdt + 3 * i;
		u += (long double)row[0] / (long double)row[2];
		c_sum += row[0];
		int64_t up = (int64_t)(((__int128)row[0] * g + row[1] - 1) / row[1]); /* ⌈g·C_i/D_i⌉ */
		lo_a = up > lo_a ? up : lo_a;
	}
	/* U: n quotients of three roundings each, n sums; ⌈g(m − U)/(m − 1)⌉ with three more */
	long double u_err = (long double)(n + 4) * RTSA_LEPS * u;
	long double top = (long double)g * ((long double)m - u) / (long double)(m - 1);
	long double top_err = 4 * ((long double)g * (u_err + RTSA_LEPS * (long double)m) / (long double)(m - 1) +
				   3 * RTSA_LEPS * fabsl(top));
	int64_t neg_ceil, top_ceil;
	if (rtsa_certain_floor(-top, top_err, &neg_ceil)) {
		top_ceil = -neg_ceil;
	} else {
		/* integers within the error: the ceiling is the least N of them with g(m − U) ≤ N(m − 1),
		 * i.e. Σ g·C_i/T_i ≥ g·m − N(m − 1), or the one above the largest */
		if (floorl(top + top_err) - floorl(top - top_err) > EXACT_TRIES)
			return RTSA_PYTHON;
		int64_t near = (int64_t)floorl(top + top_err);
		for (top_ceil = (int64_t)floorl(top - top_err) + 1; top_ceil <= near; top_ceil++) {
			int sign;
			if (!rtsa_exact_sign(n, cdt, 0, g, (__int128)g * m - (__int128)top_ceil * (m - 1), &sign))
				return RTSA_PYTHON;
			if (sign >= 0)
				break;
		}
	}
	int64_t hi_a = top_ceil - 1 < g ? top_ceil - 1 : g; /* the largest a with a/g < hi, and σ ≤ 1 */
	if (hi_a < lo_a)
		return 0;
	int64_t span = hi_a - lo_a;
	int steps = span + 1 <= RTSA_SIGMA_STEPS ? (int)span + 1 : RTSA_SIGMA_STEPS;
	for (int j = 0; j < steps; j++) {
		/* gedf_demand._sigmas: every a when they are few, else SIGMA_STEPS spread out (distinct) */
		int64_t a = span + 1 <= RTSA_SIGMA_STEPS ? lo_a + j : lo_a + span * j / (RTSA_SIGMA_STEPS - 1);
		int ok = sigma_holds(n, cdt, m, a, u, u_err, c_sum);
		if (ok == RTSA_PYTHON)
			return RTSA_PYTHON;
		*skipped_out += ok == SKIPPED;
		if (ok == 1) {
			*sigma_out = a;
			return 1;
		}
	}
	return 0;
}
