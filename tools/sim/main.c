/* SPDX-License-Identifier: MIT */
/*
 * rtsched-sim-loop: the simulator's compute-only loop, compiled
 * (docs/sim.md, "Speed"). Reads a resolved task set (spec.h) on standard
 * input, simulates it exactly as python/rtsched/sim/compute_only.py does,
 * writes the trace with --trace, and prints "jobs_completed N".
 *
 *   rtsched-sim-loop [--trace PATH] < SPEC
 *
 * Each task's events beyond a buffer wait in unnamed files in the trace's
 * directory until the trace is written (spill.h).
 *
 * Exit status: 0 simulated; 1 out of memory, events not spilled or the trace not written;
 * 2 bad usage or input (the message names the field).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"
#include "spec.h"
#include "trace_file.h"

#define PROGRAM "rtsched-sim-loop"

static char *read_all(FILE *in)
{
	size_t cap = 1 << 16, n = 0;
	char *text = malloc(cap);
	while (text) {
		n += fread(text + n, 1, cap - 1 - n, in);
		if (n < cap - 1)
			break;
		cap *= 2;
		char *bigger = realloc(text, cap);
		if (!bigger)
			free(text);
		text = bigger;
	}
	if (text)
		text[n] = '\0';
	return text;
}

int main(int argc, char **argv)
{
	const char *trace_path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			trace_path = argv[++i];
		} else {
			fprintf(stderr, "%s: unknown argument '%s'\nusage: %s [--trace PATH] < SPEC\n", PROGRAM,
				argv[i], PROGRAM);
			return 2;
		}
	}
	char *text = read_all(stdin);
	if (!text || ferror(stdin)) {
		fprintf(stderr, "%s: could not read the input\n", PROGRAM);
		free(text);
		return 1;
	}
	struct sim_spec spec;
	char error[256];
	int rc = sim_spec_parse(text, &spec, error, sizeof(error));
	free(text);
	if (rc) {
		fprintf(stderr, "%s: input: %s\n", PROGRAM, error);
		return 2;
	}
	char *spill_dir = NULL; /* the trace's directory: the events beyond each task's buffer wait there */
	if (trace_path) {
		const char *slash = strrchr(trace_path, '/');
		spill_dir = slash ? strndup(trace_path, slash == trace_path ? 1 : (size_t)(slash - trace_path))
				  : strdup(".");
		if (!spill_dir) {
			fprintf(stderr, "%s: out of memory\n", PROGRAM);
			sim_spec_free(&spec);
			return 1;
		}
	}
	struct sim_result result;
	int run_error = sim_run(&spec, trace_path != NULL, spill_dir, &result);
	if (run_error) {
		if (run_error == ENOMEM)
			fprintf(stderr, "%s: out of memory\n", PROGRAM);
		else
			fprintf(stderr, "%s: events spilled to %s: %s\n", PROGRAM, spill_dir, strerror(run_error));
		free(spill_dir);
		sim_spec_free(&spec);
		return 1;
	}
	int status = 0;
	if (trace_path) {
		int error_no = sim_trace_write(trace_path, &spec, &result);
		if (error_no) {
			fprintf(stderr, "%s: %s: %s\n", PROGRAM, trace_path, strerror(error_no));
			status = 1;
		}
	}
	if (!status)
		printf("jobs_completed %llu\n", (unsigned long long)result.jobs_completed);
	sim_result_free(&result);
	sim_spec_free(&spec);
	free(spill_dir);
	return status;
}
