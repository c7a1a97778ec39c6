/* SPDX-License-Identifier: MIT */
/* rtsched-latency: command-line options, parsed into one struct. */
#ifndef LATENCY_OPTIONS_H
#define LATENCY_OPTIONS_H

#include "cpulist.h"

#include <rtsched/sched.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum lat_exit {
	LAT_EXIT_OK = 0,      /* measured and reported */
	LAT_EXIT_FAILURE = 1, /* could not measure (policy refused, thread failed, output unwritable) */
	LAT_EXIT_USAGE = 2,   /* bad command line */
};

#define LAT_MAX_THREADS 64
#define LAT_MAX_CPUSETS 8

struct lat_options {
	struct rts_cpulist cpus;   /* one measurement thread per CPU */
	uint64_t interval_us;      /* interval of the first thread */
	uint64_t distance_us;      /* added per further thread */
	enum rts_policy policy;
	int priority;              /* SCHED_FIFO priority */
	uint64_t dl_runtime_us;    /* SCHED_DEADLINE runtime; 0: derived from the interval */
	double duration_s;         /* 0 with loops == 0: until SIGINT/SIGTERM */
	uint64_t loops;            /* samples per thread; 0: no limit */
	uint64_t histogram_us;     /* buckets 0 .. histogram_us-1 of 1 us, then overflow */
	long timerslack_ns;        /* PR_SET_TIMERSLACK per thread; -1 leaves it */
	int dma_latency_us;        /* written to /dev/cpu_dma_latency; -1 leaves it */
	bool mlock;                /* mlockall(MCL_CURRENT | MCL_FUTURE) */
	bool progress;             /* "progress ..." lines on stderr */
	double progress_period_s;
	const char *output;        /* JSON file; NULL: stdout */
	const char *cpusets[LAT_MAX_CPUSETS]; /* cpusets a thread joins if its CPU is there */
	int ncpusets;
	bool help;
};

#define LAT_DEFAULT_INTERVAL_US 1000u
#define LAT_DEFAULT_DISTANCE_US 500u
#define LAT_DEFAULT_PRIORITY 99
#define LAT_DEFAULT_HISTOGRAM_US 20000u
#define LAT_MAX_HISTOGRAM_US 10000000u

/*
 * Parse argv into opts. ncpus: CPUs 0 .. ncpus-1 exist. Returns LAT_EXIT_OK,
 * or LAT_EXIT_USAGE with a one-line message naming the option in err.
 */
int lat_options_parse(int argc, char *const argv[], int ncpus, struct lat_options *opts,
		      char *err, size_t err_size);
void lat_options_usage(FILE *out, const char *prog);

/* Interval of thread i (interval + i * distance), in ns. */
uint64_t lat_thread_interval_ns(const struct lat_options *opts, int i);

#endif
