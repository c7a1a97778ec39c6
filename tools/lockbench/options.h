/* SPDX-License-Identifier: MIT */
/* rtsched-lockbench: command-line options, parsed into one struct. */
#ifndef LOCKBENCH_OPTIONS_H
#define LOCKBENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes of the program. */
enum lb_exit {
	LB_EXIT_OK = 0,      /* measured and reported (a missed target is not an error) */
	LB_EXIT_FAILURE = 1, /* could not measure: a thread, a lock or a wait failed */
	LB_EXIT_USAGE = 2,   /* bad command line */
};

/* Write a measurement failure's message into err; returns LB_EXIT_FAILURE. */
int lb_fail(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Every subject, mutexes first. The order is the order of the tables. */
enum lb_subject {
	LB_RTS_NONE,
	LB_RTS_PIP,
	LB_RTS_FIFO,       /* seed 000's FIFO mutex */
	LB_RTS_PCP,        /* PCP has no eager form */
	LB_RTS_SRP,
	LB_RTS_SRP_EAGER,
	LB_RTS_IPCP,
	LB_RTS_IPCP_EAGER,
	LB_RTS_MPCP,
	LB_RTS_MPCP_EAGER,
	LB_RTS_FMLP,
	LB_RTS_FMLP_EAGER,
	LB_GLIBC_NONE,
	LB_GLIBC_INHERIT,
	LB_GLIBC_PROTECT,
	LB_NR_MUTEX_SUBJECTS,
	LB_COND_RTS_PIP = LB_NR_MUTEX_SUBJECTS,
	LB_COND_RTS_NONE,
	LB_COND_RTS_FIFO,
	LB_COND_GLIBC_NONE,
	LB_COND_GLIBC_INHERIT,
	LB_NR_SUBJECTS,
};

/* Command-line name ("rts-pip") and table label ("rts PIP") of a subject. */
const char *lb_subject_name(enum lb_subject s);
const char *lb_subject_label(enum lb_subject s);
/* A short label (at most 9 characters) for the columns of the workload tables. */
const char *lb_subject_column(enum lb_subject s);
bool lb_subject_is_cond(enum lb_subject s);

struct lb_options {
	size_t iterations;       /* uncontended samples per subject and operation */
	size_t rounds;           /* contended and condvar rounds per subject (iterations / 10) */
	size_t warmup;           /* untimed operations before each measurement */
	int cpu;                 /* CPU of the benchmark threads */
	bool cpu_given;          /* --cpu was given (else the default may be adjusted) */
	int priority;            /* SCHED_FIFO priority of the benchmark threads */
	unsigned workload_ms;    /* workload time per subject and class (0: no workload) */
	uint64_t seed;           /* of the workload's random task parameters */
	bool quick;
	bool json;
	bool help;
	bool selected[LB_NR_SUBJECTS]; /* --only; all true by default */
};

#define LB_DEFAULT_ITERATIONS 100000u
#define LB_QUICK_ITERATIONS   2000u
#define LB_MIN_ITERATIONS     100u
#define LB_MAX_ITERATIONS     2000000u
#define LB_DEFAULT_PRIORITY   80
#define LB_DEFAULT_WORKLOAD_MS 2000u
#define LB_QUICK_WORKLOAD_MS   300u /* outlasts a VM stall of 100 ms, so every subject measures jobs */
#define LB_MAX_WORKLOAD_MS     60000u

/*
 * Parse argv into opts. ncpus: the CPUs --cpu may name (0 .. ncpus-1).
 * Returns LB_EXIT_OK, or LB_EXIT_USAGE with a one-line message in err.
 * --help sets opts->help and returns LB_EXIT_OK.
 */
int lb_options_parse(int argc, char *const argv[], int ncpus, struct lb_options *opts,
		     char *err, size_t err_size);

void lb_options_usage(FILE *out, const char *prog);

#endif
