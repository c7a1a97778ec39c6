/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "cpus.h"
#include "opts.h"

#include <getopt.h>
#include <string.h>

enum {
	OPT_CPUS = 256,
	OPT_INTERVAL,
	OPT_DISTANCE,
	OPT_POLICY,
	OPT_PRIORITY,
	OPT_DL_RUNTIME,
	OPT_DURATION,
	OPT_LOOPS,
	OPT_HISTOGRAM,
	OPT_TIMERSLACK,
	OPT_DMA_LATENCY,
	OPT_NO_MLOCK,
	OPT_PROGRESS,
	OPT_PROGRESS_PERIOD,
	OPT_OUTPUT,
	OPT_CPUSET,
	OPT_HELP,
};

static const struct option long_options[] = {
	{"cpus", required_argument, NULL, OPT_CPUS},
	{"interval-us", required_argument, NULL, OPT_INTERVAL},
	{"distance-us", required_argument, NULL, OPT_DISTANCE},
	{"policy", required_argument, NULL, OPT_POLICY},
	{"priority", required_argument, NULL, OPT_PRIORITY},
	{"dl-runtime-us", required_argument, NULL, OPT_DL_RUNTIME},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"loops", required_argument, NULL, OPT_LOOPS},
	{"histogram-us", required_argument, NULL, OPT_HISTOGRAM},
	{"timerslack-ns", required_argument, NULL, OPT_TIMERSLACK},
	{"dma-latency-us", required_argument, NULL, OPT_DMA_LATENCY},
	{"no-mlock", no_argument, NULL, OPT_NO_MLOCK},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"progress-period", required_argument, NULL, OPT_PROGRESS_PERIOD},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"cpuset", required_argument, NULL, OPT_CPUSET},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

void lat_options_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [options]\n"
		"Scheduling latency, the cyclictest method: one pinned thread per CPU sleeping\n"
		"to absolute CLOCK_MONOTONIC deadlines; latency = wake-up time - deadline.\n"
		"Writes histograms (1 us buckets) and statistics as JSON.\n\n"
		"  --cpus LIST           CPUs to measure, one thread each (default: all online)\n"
		"  --interval-us N       interval of the first thread (default %u)\n"
		"  --distance-us N       added to the interval of each further thread (default %u)\n"
		"  --policy P            other | fifo | deadline (default fifo)\n"
		"  --priority N          SCHED_FIFO priority 1..99 (default %d)\n"
		"  --dl-runtime-us N     SCHED_DEADLINE runtime (default: interval/10, at least 10;\n"
		"                        deadline = period = the thread's interval)\n"
		"  --duration S          seconds to measure (default 10; 0: until SIGINT)\n"
		"  --loops N             stop each thread after N samples (default: no limit)\n"
		"  --histogram-us N      histogram range in us; longer samples count as overflows\n"
		"                        (default %u)\n"
		"  --timerslack-ns N     PR_SET_TIMERSLACK of each thread (default: leave it)\n"
		"  --dma-latency-us N    hold /dev/cpu_dma_latency at N (default 0, as cyclictest;\n"
		"                        -1: leave it)\n"
		"  --no-mlock            do not mlockall()\n"
		"  --progress            print 'progress ELAPSED_NS SAMPLES MAX_NS' lines on stderr\n"
		"  --progress-period S   seconds between progress lines (default 0.25)\n"
		"  --output FILE         write the JSON there instead of stdout\n"
		"  --cpuset DIR          cpuset directory a thread joins when its CPU is in it\n"
		"                        (repeatable; used under `rtsched shield`)\n"
		"  --help\n\n"
		"Exit codes: 0 measured, 1 could not measure, 2 usage error.\n",
		prog, LAT_DEFAULT_INTERVAL_US, LAT_DEFAULT_DISTANCE_US, LAT_DEFAULT_PRIORITY,
		LAT_DEFAULT_HISTOGRAM_US);
}

uint64_t lat_thread_interval_ns(const struct lat_options *opts, int i)
{
	return (opts->interval_us + (uint64_t)i * opts->distance_us) * 1000u;
}

int lat_options_parse(int argc, char *const argv[], int ncpus, struct lat_options *opts,
		      char *err, size_t err_size)
{
	memset(opts, 0, sizeof(*opts));
	opts->interval_us = LAT_DEFAULT_INTERVAL_US;
	opts->distance_us = LAT_DEFAULT_DISTANCE_US;
	opts->policy = RTS_POLICY_FIFO;
	opts->priority = LAT_DEFAULT_PRIORITY;
	opts->duration_s = 10.0;
	opts->histogram_us = LAT_DEFAULT_HISTOGRAM_US;
	opts->timerslack_ns = -1;
	opts->dma_latency_us = 0;
	opts->mlock = true;
	opts->progress_period_s = 0.25;
	bool cpus_given = false, priority_given = false;

	optind = 0; /* reset getopt (also its internal state), so parsing can be repeated in tests */
	opterr = 0;
	int c;
	uint64_t u;
	double d;
	while ((c = getopt_long(argc, argv, ":", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_CPUS: {
			char why[128];
			if (rts_cpulist_parse(optarg, &opts->cpus, why, sizeof(why))) {
				snprintf(err, err_size, "--cpus: %s", why);
				return LAT_EXIT_USAGE;
			}
			cpus_given = true;
			break;
		}
		case OPT_INTERVAL:
			if (opts_parse_u64(optarg, 1, 10000000, &opts->interval_us)) {
				snprintf(err, err_size, "--interval-us: '%s' is not a number of microseconds in 1..10000000", optarg);
				return LAT_EXIT_USAGE;
			}
			break;
		case OPT_DISTANCE:
			if (opts_parse_u64(optarg, 0, 10000000, &opts->distance_us)) {
				snprintf(err, err_size, "--distance-us: '%s' is not a number of microseconds in 0..10000000", optarg);
				return LAT_EXIT_USAGE;
			}
			break;
		case OPT_POLICY:
			if (rts_policy_parse(optarg, &opts->policy)) {
				snprintf(err, err_size, "--policy: '%s' is not one of other, fifo, deadline", optarg);
				return LAT_EXIT_USAGE;
			}
			break;
		case OPT_PRIORITY:
			if (opts_parse_u64(optarg, 1, 99, &u)) {
				snprintf(err, err_size, "--priority: '%s' is not a SCHED_FIFO priority in 1..99", optarg);
				return LAT_EXIT_USAGE;
			}
			opts->priority = (int)u;
			priority_given = true;
			break;
		case OPT_DL_RUNTIME:
			if (opts_parse_u64(optarg, 1, 10000000, &opts->dl_runtime_us)) {
				snprintf(err, err_size, "--dl-runtime-us: '%s' is not a number of microseconds in 1..10000000", optarg);
				return LAT_EXIT_USAGE;
			}
			break;
		case OPT_DURATION:
			if (opts_parse_double(optarg, 0.0, 1e7, &d)) {
				snprintf(err, err_size, "--duration: '%s' is not a number of seconds >= 0", optarg);
				return LAT_EXIT_USAGE;
			}
			opts->duration_s = d;
			break;
		case OPT_LOOPS:
			if (opts_parse_u64(optarg, 1, UINT64_MAX / 2, &opts->loops)) {
				snprintf(err, err_size, "--loops: '%s' is not a positive number", optarg);
				return LAT_EXIT_USAGE;
			}
			break;
		case OPT_HISTOGRAM:
			if (opts_parse_u64(optarg, 1, LAT_MAX_HISTOGRAM_US, &opts->histogram_us)) {
				snprintf(err, err_size, "--histogram-us: '%s' is not in 1..%u", optarg, LAT_MAX_HISTOGRAM_US);
				return LAT_EXIT_USAGE;
			}
			break;
		case OPT_TIMERSLACK:
			if (opts_parse_u64(optarg, 0, 1000000000, &u)) {
				snprintf(err, err_size, "--timerslack-ns: '%s' is not a number of nanoseconds in 0..1000000000", optarg);
				return LAT_EXIT_USAGE;
			}
			opts->timerslack_ns = (long)u;
			break;
		case OPT_DMA_LATENCY:
			if (!strcmp(optarg, "-1")) {
				opts->dma_latency_us = -1;
			} else if (opts_parse_u64(optarg, 0, 1000000000, &u)) {
				snprintf(err, err_size, "--dma-latency-us: '%s' is not -1 or a number of microseconds", optarg);
				return LAT_EXIT_USAGE;
			} else {
				opts->dma_latency_us = (int)u;
			}
			break;
		case OPT_NO_MLOCK:
			opts->mlock = false;
			break;
		case OPT_PROGRESS:
			opts->progress = true;
			break;
		case OPT_PROGRESS_PERIOD:
			if (opts_parse_double(optarg, 0.01, 3600, &opts->progress_period_s)) {
				snprintf(err, err_size, "--progress-period: '%s' is not a number of seconds in 0.01..3600", optarg);
				return LAT_EXIT_USAGE;
			}
			break;
		case OPT_OUTPUT:
			opts->output = optarg;
			break;
		case OPT_CPUSET:
			if (opts->ncpusets == LAT_MAX_CPUSETS) {
				snprintf(err, err_size, "--cpuset: at most %d", LAT_MAX_CPUSETS);
				return LAT_EXIT_USAGE;
			}
			opts->cpusets[opts->ncpusets++] = optarg;
			break;
		case OPT_HELP:
			opts->help = true;
			return LAT_EXIT_OK;
		default:
			opts_bad_option(c, argv, err, err_size);
			return LAT_EXIT_USAGE;
		}
	}
	if (opts_no_operands(argc, argv, err, err_size))
		return LAT_EXIT_USAGE;
	if (!cpus_given) {
		for (int cpu = 0; cpu < ncpus; cpu++)
			if (rts_cpu_online(cpu))
				rts_cpulist_add(&opts->cpus, cpu);
	}
	int cpus[RTS_CPULIST_MAX];
	int n = rts_cpulist_to_array(&opts->cpus, cpus, RTS_CPULIST_MAX);
	if (n > LAT_MAX_THREADS) {
		snprintf(err, err_size, "--cpus: at most %d CPUs", LAT_MAX_THREADS);
		return LAT_EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		if (cpus[i] >= ncpus) {
			snprintf(err, err_size, "--cpus: CPU %d does not exist (this machine has CPUs 0-%d)", cpus[i], ncpus - 1);
			return LAT_EXIT_USAGE;
		}
	}
	if (priority_given && opts->policy != RTS_POLICY_FIFO) {
		snprintf(err, err_size, "--priority: only with --policy fifo");
		return LAT_EXIT_USAGE;
	}
	if (opts->policy == RTS_POLICY_DEADLINE && opts->dl_runtime_us >= opts->interval_us) {
		snprintf(err, err_size, "--dl-runtime-us: must be below the interval (%llu us)",
			 (unsigned long long)opts->interval_us);
		return LAT_EXIT_USAGE;
	}
	return LAT_EXIT_OK;
}
