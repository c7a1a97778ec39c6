/* SPDX-License-Identifier: MIT */
/* rtsched-latency views: they read a run, never change it. */
#ifndef LATENCY_VIEWS_H
#define LATENCY_VIEWS_H

#include "latency.h"

#include <stdio.h>
#include <string.h>

void lat_view_json(FILE *out, const struct lat_run *run);
/* One "progress ELAPSED_NS SAMPLES MAX_NS" line on stderr. */
void lat_view_progress(const struct lat_run *run, void *arg);

#endif
