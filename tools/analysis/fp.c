/* SPDX-License-Identifier: MIT */
/*
 * Uniprocessor FP response-time analysis, as fp_uni.response_time over the
 * higher-or-equal-priority sets that fp_uni.rta_tasks builds (every other
 * task of priority ≥ the task's), with arbitrary deadlines by the level-i
 * busy period and release jitter. Integers throughout (__int128: a window
 * can overshoot the deadline by a whole step before the test stops it).
 */
#include "kernels.h"

/* fp_uni.response_time for task k: the bound, or -1 with *jobs the busy-period job that missed. */
static int64_t response_time(int n, const int64_t *c, const int64_t *t, const int64_t *d, const int64_t *j,
			     const int64_t *b, const int64_t *prio, int k, int64_t *jobs)
{
	__int128 hp_c = 0;
	for (int i = 0; i < n; i++)
		if (i != k && prio[i] >= prio[k])
			hp_c += c[i];
	__int128 limit = d[k], own_j = j[k], period = t[k];
	__int128 w = c[k] + b[k] + hp_c, worst = 0;
	for (int64_t q = 0;; q++) {
		*jobs = q;
		if (q >= RTSA_MAX_BUSY_JOBS)
			return -1;
		__int128 base = (__int128)(q + 1) * c[k] + b[k];
		if (w < base + hp_c)
			w = base + hp_c;
		for (;;) {
			__int128 next = base;
			for (int i = 0; i < n; i++)
				if (i != k && prio[i] >= prio[k])
					next += rtsa_div(w + j[i] + t[i] - 1, t[i]) * c[i];
			if (next == w)
				break;
			w = next;
			if (w - q * period + own_j > limit)
				return -1;
		}
		__int128 r = w - q * period + own_j;
		if (r > worst)
			worst = r;
		if (worst > limit)
			return -1;
		if (w <= (q + 1) * period - own_j)
			return (int64_t)worst;
	}
}

int rtsa_fp_rta(int n, const int64_t *c, const int64_t *t, const int64_t *d, const int64_t *j, const int64_t *b,
		const int64_t *prio, int verdict_only, int64_t *r_out, int64_t *jobs_out)
{
	int missed = 0;
	for (int k = 0; k < n; k++) {
		jobs_out[k] = 0;
		if (missed && verdict_only) {
			r_out[k] = -2;
			continue;
		}
		r_out[k] = response_time(n, c, t, d, j, b, prio, k, &jobs_out[k]);
		missed = missed || r_out[k] < 0;
	}
	return !missed;
}
