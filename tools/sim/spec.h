/* SPDX-License-Identifier: MIT */
/*
 * The input of rtsched-sim-loop: a compute-only task set as the Python
 * simulator has resolved it (python/rtsched/sim/native_loop.py writes it),
 * in whitespace-separated tokens, integers in decimal, byte strings in hex
 * ("-" when empty):
 *
 *   rtsched-sim-loop 1
 *   run END_NS DURATION_NS N_DOMAINS N_TASKS NAME
 *   domain N_CPUS CPU...                        (one per domain, numbered in order)
 *   task DOMAIN EDF PRIORITY PERIOD_NS DEADLINE_NS OFFSET_NS MAX_JOBS
 *        GAP_MAX_NS GAP_SEED LOW_PPM N_SEED_WORDS WORD... N_COMPUTES NS... TID NAME
 *                                               (one per task, its stream index in order)
 *
 * EDF 1 orders the task by absolute deadline, 0 by PRIORITY (the larger
 * first); MAX_JOBS 0: no limit; GAP_MAX_NS -1: periodic, else sporadic with
 * gaps uniform in [0, GAP_MAX_NS] from xorshift64* seeded with GAP_SEED (0:
 * the runner's default seed); LOW_PPM -1: every compute runs its full
 * length, else each is drawn uniformly in [max(1, ceil(ns * LOW_PPM / 1e6)), ns]
 * from random.Random seeded with the 32-bit WORDs (least significant first).
 * Every field is checked; an error names the token it stopped at.
 */
#ifndef RTS_SIM_SPEC_H
#define RTS_SIM_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define SIM_SPEC_MAGIC "rtsched-sim-loop"
#define SIM_SPEC_VERSION 1
#define SIM_NAME_MAX 64 /* bytes kept of a name (the trace keeps fewer) */

struct sim_spec_domain {
	size_t n_cpus;
	uint16_t *cpus; /* CPU numbers, in the order an idle one is searched */
};

struct sim_spec_task {
	size_t domain;
	int is_edf;
	int64_t priority;
	int64_t period_ns, deadline_ns, offset_ns;
	uint64_t max_jobs;   /* 0: no limit */
	int64_t gap_max_ns;  /* -1: periodic */
	uint64_t gap_seed;
	int64_t low_ppm;     /* -1: every compute at its full length */
	size_t n_seed_words;
	uint32_t *seed_words;
	size_t n_computes;
	int64_t *computes_ns;
	uint32_t tid;
	size_t name_len;
	char name[SIM_NAME_MAX];
};

struct sim_spec {
	int64_t end_ns;      /* no event after it is taken, no job released at or after it */
	int64_t duration_ns; /* the trace header's */
	size_t name_len;
	char name[SIM_NAME_MAX];
	size_t n_domains;
	struct sim_spec_domain *domains;
	size_t n_tasks;
	struct sim_spec_task *tasks;
};

/* Parse text (NUL-terminated, modified in place) into spec. Returns 0, or -1 with a message in
 * error (error_size bytes) and spec freed. */
int sim_spec_parse(char *text, struct sim_spec *spec, char *error, size_t error_size);
void sim_spec_free(struct sim_spec *spec);

#endif
