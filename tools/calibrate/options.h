/* SPDX-License-Identifier: MIT */
/* rtsched-calibrate: command-line options, parsed into one struct. */
#ifndef CALIBRATE_OPTIONS_H
#define CALIBRATE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cal_exit {
	CAL_EXIT_OK = 0,      /* measured and reported */
	CAL_EXIT_FAILURE = 1, /* could not measure (no SCHED_FIFO, a thread failed, output unwritable) */
	CAL_EXIT_USAGE = 2,   /* bad command line */
};

/* What the tool can measure; --only picks a subset. */
enum cal_measure {
	CAL_CONTEXT_SWITCH, /* futex ping-pong of two SCHED_FIFO threads on one CPU */
	CAL_RPC_CALL,       /* one rts_rpc_call with PI-CV, zero service */
	CAL_TRACE_EVENT,    /* one rts_trace_event */
	CAL_NR_MEASURES,
};

#define CAL_DEFAULT_SAMPLES 20000u
#define CAL_MIN_SAMPLES 10u
#define CAL_MAX_SAMPLES 10000000u
#define CAL_DEFAULT_PRIORITY 90

struct cal_options {
	int cpu;           /* every measuring thread runs here */
	int priority;      /* SCHED_FIFO priority of the measuring threads (the RPC server: one below) */
	uint64_t samples;  /* per measurement */
	bool selected[CAL_NR_MEASURES];
	const char *output; /* JSON file; NULL: stdout */
	bool help;
};

/* "context-switch", "rpc-call", "trace-event". */
const char *cal_measure_name(enum cal_measure m);

/*
 * Parse argv into opts. ncpus: CPUs 0 .. ncpus-1 exist; the default CPU is
 * the last one. Returns CAL_EXIT_OK, or CAL_EXIT_USAGE with a one-line
 * message naming the option in err.
 */
int cal_options_parse(int argc, char *const argv[], int ncpus, struct cal_options *opts,
		      char *err, size_t err_size);
void cal_options_usage(FILE *out, const char *prog);

#endif
