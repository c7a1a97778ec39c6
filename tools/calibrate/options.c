/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "opts.h"

#include <getopt.h>
#include <string.h>

enum { OPT_CPU = 256, OPT_PRIORITY, OPT_SAMPLES, OPT_ONLY, OPT_OUTPUT, OPT_HELP };

static const struct option long_options[] = {
	{"cpu", required_argument, NULL, OPT_CPU},
	{"priority", required_argument, NULL, OPT_PRIORITY},
	{"samples", required_argument, NULL, OPT_SAMPLES},
	{"only", required_argument, NULL, OPT_ONLY},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static const char *const measure_names[CAL_NR_MEASURES] = {
	[CAL_CONTEXT_SWITCH] = "context-switch",
	[CAL_RPC_CALL] = "rpc-call",
	[CAL_TRACE_EVENT] = "trace-event",
};

const char *cal_measure_name(enum cal_measure m)
{
	return measure_names[m];
}

void cal_options_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [options]\n"
		"Overheads for the schedulability analysis, measured on one CPU with pinned\n"
		"SCHED_FIFO threads; each as min / p50 / p99 / max over N samples, as JSON\n"
		"(format \"rtsched-calibrate/1\"; `rtsched calibrate` runs it):\n"
		"  context-switch  a futex wake + wait between two threads of equal priority:\n"
		"                  one sample is half a round trip (one switch)\n"
		"  rpc-call        rts_rpc_call with PI-CV to a server one priority lower that\n"
		"                  replies at once: the round trip (rpc_call) and the client's\n"
		"                  own CPU time in it (rpc_call_client)\n"
		"  trace-event     one rts_trace_event into a ring that does not fill\n\n"
		"  --cpu N          CPU of every thread (default: the last one)\n"
		"  --priority N     SCHED_FIFO priority 2..98 (default %d; the RPC server N-1)\n"
		"  --samples N      samples per measurement, %u..%u (default %u)\n"
		"  --only LIST      comma-separated: context-switch,rpc-call,trace-event (default all)\n"
		"  --output FILE    JSON there instead of stdout\n"
		"  --help\n"
		"Exit codes: 0 measured, 1 could not measure, 2 usage error.\n",
		prog, CAL_DEFAULT_PRIORITY, CAL_MIN_SAMPLES, CAL_MAX_SAMPLES, CAL_DEFAULT_SAMPLES);
}

static int parse_only(const char *list, bool selected[CAL_NR_MEASURES], char *err, size_t err_size)
{
	memset(selected, 0, sizeof(bool) * CAL_NR_MEASURES);
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		int found = -1;
		for (int m = 0; m < CAL_NR_MEASURES; m++)
			if (strlen(measure_names[m]) == len && strncmp(measure_names[m], p, len) == 0)
				found = m;
		if (found < 0) {
			snprintf(err, err_size,
				 "--only: unknown measurement '%.*s' (choose from context-switch, rpc-call, trace-event)",
				 (int)len, p);
			return CAL_EXIT_USAGE;
		}
		selected[found] = true;
		if (p[len] == '\0')
			return CAL_EXIT_OK;
		p += len + 1;
	}
}

int cal_options_parse(int argc, char *const argv[], int ncpus, struct cal_options *o,
		      char *err, size_t err_size)
{
	memset(o, 0, sizeof(*o));
	o->cpu = ncpus > 1 ? ncpus - 1 : 0;
	o->priority = CAL_DEFAULT_PRIORITY;
	o->samples = CAL_DEFAULT_SAMPLES;
	for (int m = 0; m < CAL_NR_MEASURES; m++)
		o->selected[m] = true;
	optind = 0;
	opterr = 0;
	int c;
	uint64_t v;
	while ((c = getopt_long(argc, argv, ":", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_CPU:
			if (opts_parse_u64(optarg, 0, 1 << 20, &v)) {
				snprintf(err, err_size, "--cpu: '%s' is not a CPU number", optarg);
				return CAL_EXIT_USAGE;
			}
			if (v >= (uint64_t)ncpus) {
				snprintf(err, err_size, "--cpu: CPU %ld does not exist (this machine has CPUs 0-%d)",
					 (long)v, ncpus - 1);
				return CAL_EXIT_USAGE;
			}
			o->cpu = (int)v;
			break;
		case OPT_PRIORITY:
			if (opts_parse_u64(optarg, 2, 98, &v)) {
				snprintf(err, err_size, "--priority: '%s' is not a SCHED_FIFO priority in 2..98", optarg);
				return CAL_EXIT_USAGE;
			}
			o->priority = (int)v;
			break;
		case OPT_SAMPLES:
			if (opts_parse_u64(optarg, CAL_MIN_SAMPLES, CAL_MAX_SAMPLES, &v)) {
				snprintf(err, err_size, "--samples: '%s' is not a count in %u..%u", optarg,
					 CAL_MIN_SAMPLES, CAL_MAX_SAMPLES);
				return CAL_EXIT_USAGE;
			}
			o->samples = v;
			break;
		case OPT_ONLY:
			if (parse_only(optarg, o->selected, err, err_size))
				return CAL_EXIT_USAGE;
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_HELP:
			o->help = true;
			return CAL_EXIT_OK;
		default:
			opts_bad_option(c, argv, err, err_size);
			return CAL_EXIT_USAGE;
		}
	}
	if (opts_no_operands(argc, argv, err, err_size))
		return CAL_EXIT_USAGE;
	return CAL_EXIT_OK;
}
