/* SPDX-License-Identifier: MIT */
/* rtsched-overhead: command-line options, parsed into one struct. */
#ifndef OVERHEAD_OPTIONS_H
#define OVERHEAD_OPTIONS_H

#include <rtsched/sched.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum ovh_exit {
	OVH_EXIT_OK = 0,
	OVH_EXIT_FAILURE = 1,
	OVH_EXIT_USAGE = 2,
};

struct ovh_options {
	int cpu;                /* the CPU the loop is pinned to */
	enum rts_policy policy; /* other or fifo */
	int priority;
	double target_ms;       /* calibrated length of one loop */
	uint64_t iterations;    /* loops measured */
	uint64_t steps;         /* loop steps; 0: calibrate to target_ms */
	double gap_ms;          /* sleep between loops: keeps a FIFO loop under RT throttling */
	const char *cpuset;     /* cpuset to join first (a shielded CPU) */
	const char *output;
	bool progress;
	bool help;
};

int ovh_options_parse(int argc, char *const argv[], int ncpus, struct ovh_options *opts,
		      char *err, size_t err_size);
void ovh_options_usage(FILE *out, const char *prog);

#endif
