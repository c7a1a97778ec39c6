/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "opts.h"

#include <getopt.h>
#include <string.h>

enum { OPT_CPU = 256, OPT_POLICY, OPT_PRIORITY, OPT_TARGET, OPT_ITER, OPT_GAP, OPT_CPUSET,
       OPT_OUTPUT, OPT_PROGRESS, OPT_HELP, OPT_STEPS };

static const struct option long_options[] = {
	{"cpu", required_argument, NULL, OPT_CPU},
	{"policy", required_argument, NULL, OPT_POLICY},
	{"priority", required_argument, NULL, OPT_PRIORITY},
	{"target-ms", required_argument, NULL, OPT_TARGET},
	{"iterations", required_argument, NULL, OPT_ITER},
	{"steps", required_argument, NULL, OPT_STEPS},
	{"gap-ms", required_argument, NULL, OPT_GAP},
	{"cpuset", required_argument, NULL, OPT_CPUSET},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

void ovh_options_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [options]\n"
		"OS overhead (seed 002, ASMP-Linux §2.5.2): an integer loop calibrated to a target\n"
		"length runs N times on one CPU; each run's length T_x is written as JSON\n"
		"(epsilon = T_x - min T_x is computed by `rtsched overhead`).\n\n"
		"  --cpu N          CPU to pin to (default 0)\n"
		"  --policy P       other | fifo (default fifo)\n"
		"  --priority N     SCHED_FIFO priority 1..99 (default 90)\n"
		"  --target-ms X    length of one loop (default 100)\n"
		"  --iterations N   loops measured (default 50)\n"
		"  --steps N        loop steps, instead of calibrating to --target-ms (so that\n"
		"                   several runs time the very same loop)\n"
		"  --gap-ms X       sleep between loops (default 20: a FIFO loop stays under the\n"
		"                   950 ms/s RT throttling, which would otherwise show as overhead)\n"
		"  --cpuset DIR     join this cpuset first (a CPU shielded by `rtsched shield`)\n"
		"  --output FILE    JSON there instead of stdout\n"
		"  --progress       'progress DONE TOTAL' lines on stderr\n"
		"Exit codes: 0 measured, 1 could not measure, 2 usage error.\n",
		prog);
}

int ovh_options_parse(int argc, char *const argv[], int ncpus, struct ovh_options *o,
		      char *err, size_t err_size)
{
	memset(o, 0, sizeof(*o));
	o->policy = RTS_POLICY_FIFO;
	o->priority = 90;
	o->target_ms = 100;
	o->iterations = 50;
	o->gap_ms = 20;
	optind = 0;
	opterr = 0;
	int c;
	uint64_t v;
	while ((c = getopt_long(argc, argv, ":", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_CPU:
			if (opts_parse_u64(optarg, 0, 1 << 20, &v)) {
				snprintf(err, err_size, "--cpu: '%s' is not a CPU number", optarg);
				return OVH_EXIT_USAGE;
			}
			if (v >= (uint64_t)ncpus) {
				snprintf(err, err_size, "--cpu: CPU %ld does not exist (this machine has CPUs 0-%d)", (long)v, ncpus - 1);
				return OVH_EXIT_USAGE;
			}
			o->cpu = (int)v;
			break;
		case OPT_POLICY:
			if (rts_policy_parse(optarg, &o->policy) || o->policy == RTS_POLICY_DEADLINE) {
				snprintf(err, err_size, "--policy: '%s' is not one of other, fifo", optarg);
				return OVH_EXIT_USAGE;
			}
			break;
		case OPT_PRIORITY:
			if (opts_parse_u64(optarg, 1, 99, &v)) {
				snprintf(err, err_size, "--priority: '%s' is not a SCHED_FIFO priority in 1..99", optarg);
				return OVH_EXIT_USAGE;
			}
			o->priority = (int)v;
			break;
		case OPT_TARGET:
			if (opts_parse_double(optarg, 0.1, 10000, &o->target_ms)) {
				snprintf(err, err_size, "--target-ms: '%s' is not a length in 0.1..10000 ms", optarg);
				return OVH_EXIT_USAGE;
			}
			break;
		case OPT_ITER:
			if (opts_parse_u64(optarg, 1, 1000000, &v)) {
				snprintf(err, err_size, "--iterations: '%s' is not a count in 1..1000000", optarg);
				return OVH_EXIT_USAGE;
			}
			o->iterations = v;
			break;
		case OPT_STEPS:
			if (opts_parse_u64(optarg, 1, 1L << 50, &v)) {
				snprintf(err, err_size, "--steps: '%s' is not a count >= 1", optarg);
				return OVH_EXIT_USAGE;
			}
			o->steps = v;
			break;
		case OPT_GAP:
			if (opts_parse_double(optarg, 0, 10000, &o->gap_ms)) {
				snprintf(err, err_size, "--gap-ms: '%s' is not a length in 0..10000 ms", optarg);
				return OVH_EXIT_USAGE;
			}
			break;
		case OPT_CPUSET:
			o->cpuset = optarg;
			break;
		case OPT_OUTPUT:
			o->output = optarg;
			break;
		case OPT_PROGRESS:
			o->progress = true;
			break;
		case OPT_HELP:
			o->help = true;
			return OVH_EXIT_OK;
		default:
			opts_bad_option(c, argv, err, err_size);
			return OVH_EXIT_USAGE;
		}
	}
	if (opts_no_operands(argc, argv, err, err_size))
		return OVH_EXIT_USAGE;
	return OVH_EXIT_OK;
}
