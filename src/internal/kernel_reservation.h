/* SPDX-License-Identifier: MIT */
/*
 * A top-level reservation enforced by the kernel (ult/kernel_reservation.c;
 * <rtsched/reservation.h>, RTS_RESERVATION_BY_KERNEL): where it may sit, and
 * the SCHED_DEADLINE policy its CPU's worker takes.
 */
#ifndef RTSCHED_INTERNAL_KERNEL_RESERVATION_H
#define RTSCHED_INTERNAL_KERNEL_RESERVATION_H

#include <stddef.h>

#include <rtsched/reservation.h>

#include "internal/ult.h"

/*
 * Whether a reservation with `params` may be made in `parent` (NULL: the top
 * of cluster c) as far as kernel enforcement goes: a kernel-enforced one only
 * at the top, periodic, without a controller, alone at the top of c, before
 * the workers start; no reservation at the top of a cluster that has one.
 * 0, or EINVAL / EBUSY with the set's error set.
 */
int rts_ult_kernel_reservation_admit(rts_taskset_t *set, const struct rts_reservation_params *params,
				     const struct rts_reservation *parent, const struct rts_ult_cluster *c);

/* The kernel-enforced reservation at the top of c; NULL: none. Set before c's
 * worker starts and never changed after (cluster->kernel_reservation). */
const struct rts_reservation *rts_ult_kernel_reservation_of(const struct rts_ult_cluster *c);

/*
 * The calling thread (the worker for `cpu`) takes r's policy: it joins
 * r->cpuset (if any), pins itself to cpu, and takes SCHED_DEADLINE with
 * runtime r->budget_ns, deadline = period = r->period_ns, no flags. 0 or an
 * errno with why saying what the kernel refused and what to change.
 */
int rts_ult_kernel_worker_apply(const struct rts_reservation *r, int cpu, char *why, size_t why_len);

#endif
