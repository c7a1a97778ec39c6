/* SPDX-License-Identifier: MIT */
/* The two views of a run: tables for people, JSON for programs. */
#ifndef LOCKBENCH_VIEWS_H
#define LOCKBENCH_VIEWS_H

#include <stdio.h>

#include "bench.h"

void lb_view_table(FILE *out, const struct lb_results *r);
void lb_view_json(FILE *out, const struct lb_results *r);

/* "PASS" / "MISS" for a ratio with a target, "info" without, "n/a" if not measured. */
const char *lb_ratio_verdict(const struct lb_ratio *q);

/* Whether every targeted ratio was measured and met (false if none was measured). */
bool lb_targets_met(const struct lb_ratio *q, size_t n);

#endif
