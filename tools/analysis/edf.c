/* SPDX-License-Identifier: MIT */
/*
 * EDF on one processor: QPA (Zhang & Burns 2009), as edf_uni.qpa_group.
 *
 * The horizon. Python takes L = min(L_a, L_b) from exact rationals (U over
 * the periods' lcm). Any L' ≥ a valid horizon is valid too (a miss, if any,
 * lies at or below every valid horizon), and QPA started at the last
 * deadline ≤ L' is exact for it, so the verdict is the same. Here:
 * - U in floating point, with absolute error ≤ (n + 1)·2^-53·U; when
 *   |1 − U| < 1e-6 the kernel leaves the set to Python (RTSA_PYTHON);
 *   U > 1 + 1e-6: not schedulable, as Python says.
 * - L_a' ≥ L_a: Σ(T_i − D_i)·U_i / (1 − U) bounded from above (its error
 *   bound added to the numerator, taken from the denominator), rounded up,
 *   plus 1; at least D_max.
 * - L_b: the busy-period iteration in integers, step for step
 *   edf_uni._busy_period, stopped at L_a' (not converged: L_a' is used).
 * Then the QPA walk in integers, step for step qpa_group.
 */
#include <math.h>

#include "kernels.h"

static __int128 demand(int n, const int64_t *c, const int64_t *d, const int64_t *t, __int128 at)
{
	__int128 total = 0;
	for (int i = 0; i < n; i++)
		if (at >= d[i])
			total += (rtsa_div(at - d[i], t[i]) + 1) * c[i];
	return total;
}

/* The largest absolute deadline strictly below x, or -1 (edf_uni._deadlines_below). */
static __int128 deadline_below(int n, const int64_t *d, const int64_t *t, __int128 x)
{
	__int128 best = -1;
	for (int i = 0; i < n; i++) {
		if (x > d[i]) {
			__int128 last = rtsa_div(x - 1 - d[i], t[i]) * t[i] + d[i];
			if (last > best)
				best = last;
		}
	}
	return best;
}

/* The synchronous busy period, or -1 when not converged in RTSA_BUSY_PERIOD_STEPS steps or once
 * an iterate reaches stop_at (edf_uni._busy_period). */
static __int128 busy_period(int n, const int64_t *c, const int64_t *t, __int128 stop_at)
{
	__int128 w = 0;
	for (int i = 0; i < n; i++)
		w += c[i];
	for (int step = 0; step < RTSA_BUSY_PERIOD_STEPS; step++) {
		if (w >= stop_at)
			return -1;
		__int128 next = 0;
		for (int i = 0; i < n; i++)
			next += rtsa_div(w + t[i] - 1, t[i]) * c[i];
		if (next == w)
			return w;
		w = next;
	}
	return -1;
}

int rtsa_qpa(int n, const int64_t *c, const int64_t *d, const int64_t *t)
{
	double u = 0.0, slack = 0.0, slack_abs = 0.0;
	int64_t dmax = 0, dmin = d[0];
	for (int i = 0; i < n; i++) {
		double ui = (double)c[i] / (double)t[i];
		double term = (double)(t[i] - d[i]) * ui;
		u += ui;
		slack += term;
		slack_abs += fabs(term);
		if (d[i] > dmax)
			dmax = d[i];
		if (d[i] < dmin)
			dmin = d[i];
	}
	double u_err = (double)(n + 1) * 1e-15 * u;
	if (u > 1.0 + 1e-6)
		return 0;
	if (u > 1.0 - 1e-6 || u_err > 1e-9)
		return RTSA_PYTHON;
	double room = 1.0 - u - u_err;                     /* ≤ 1 − U */
	double top = slack + (double)(n + 1) * 1e-15 * slack_abs + 1.0; /* ≥ Σ(T − D)·U_i */
	__int128 horizon = dmax;
	if (top > 0.0) {
		double la = ceil(top / room * (1.0 + 1e-12)) + 1.0;
		if (!(la < (double)((int64_t)1 << 62)))
			return RTSA_PYTHON;
		if ((__int128)la > horizon)
			horizon = (__int128)la;
	}
	__int128 lb = busy_period(n, c, t, horizon);
	if (lb >= 0 && lb < horizon)
		horizon = lb > dmax ? lb : dmax;

	__int128 at = deadline_below(n, d, t, horizon + 1);
	if (at < 0)
		return 1;
	for (;;) {
		__int128 h = demand(n, c, d, t, at);
		if (h > at)
			return 0;
		if (h <= dmin)
			return 1;
		if (h < at) {
			at = h;
		} else {
			at = deadline_below(n, d, t, at);
			if (at < 0)
				return 1;
		}
	}
}
