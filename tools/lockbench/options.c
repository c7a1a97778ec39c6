/* SPDX-License-Identifier: MIT */
#include "options.h"

#include "opts.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *label;
	const char *column; /* at most 9 characters: a column heading of the workload tables */
} subjects[LB_NR_SUBJECTS] = {
	[LB_RTS_NONE] = { "rts-none", "rts NONE", "rts-NONE" },
	[LB_RTS_PIP] = { "rts-pip", "rts PIP", "rts-PIP" },
	[LB_RTS_FIFO] = { "rts-fifo", "rts FIFO", "rts-FIFO" },
	[LB_RTS_PCP] = { "rts-pcp", "rts PCP", "PCP" },
	[LB_RTS_SRP] = { "rts-srp", "rts SRP", "SRP" },
	[LB_RTS_SRP_EAGER] = { "rts-srp-eager", "rts SRP eager", "SRP-E" },
	[LB_RTS_IPCP] = { "rts-ipcp", "rts IPCP", "IPCP" },
	[LB_RTS_IPCP_EAGER] = { "rts-ipcp-eager", "rts IPCP eager", "IPCP-E" },
	[LB_RTS_MPCP] = { "rts-mpcp", "rts MPCP", "MPCP" },
	[LB_RTS_MPCP_EAGER] = { "rts-mpcp-eager", "rts MPCP eager", "MPCP-E" },
	[LB_RTS_FMLP] = { "rts-fmlp", "rts FMLP+", "FMLP+" },
	[LB_RTS_FMLP_EAGER] = { "rts-fmlp-eager", "rts FMLP+ eager", "FMLP+-E" },
	[LB_GLIBC_NONE] = { "glibc-none", "glibc PRIO_NONE", "g-NONE" },
	[LB_GLIBC_INHERIT] = { "glibc-inherit", "glibc PRIO_INHERIT", "g-INHERIT" },
	[LB_GLIBC_PROTECT] = { "glibc-protect", "glibc PRIO_PROTECT", "g-PROTECT" },
	[LB_COND_RTS_PIP] = { "cond-rts-pip", "rts_cond + rts PIP" },
	[LB_COND_RTS_NONE] = { "cond-rts-none", "rts_cond + rts NONE" },
	[LB_COND_RTS_FIFO] = { "cond-rts-fifo", "rts_cond + rts FIFO" },
	[LB_COND_GLIBC_NONE] = { "cond-glibc-none", "pthread_cond + PRIO_NONE" },
	[LB_COND_GLIBC_INHERIT] = { "cond-glibc-inherit", "pthread_cond + PRIO_INHERIT" },
};

const char *lb_subject_name(enum lb_subject s)
{
	return subjects[s].name;
}

const char *lb_subject_label(enum lb_subject s)
{
	return subjects[s].label;
}

const char *lb_subject_column(enum lb_subject s)
{
	return subjects[s].column ? subjects[s].column : subjects[s].name;
}

bool lb_subject_is_cond(enum lb_subject s)
{
	return s >= LB_NR_MUTEX_SUBJECTS;
}

void lb_options_usage(FILE *out, const char *prog)
{
	fprintf(out,
		"usage: %s [--iterations N] [--workload-ms N] [--seed N] [--cpu N] [--priority N]\n"
		"       %*s [--quick] [--json] [--only SUBJECT[,SUBJECT...]] [--help]\n"
		"\n"
		"Lock and unlock overheads of rtsched's mutexes and condition variable against\n"
		"glibc's, measured in one run (seed 001 Table I layout: avg / 99th pct / max).\n"
		"\n"
		"  --iterations N  uncontended samples per subject and operation (default %u,\n"
		"                  %u..%u); contended and condvar rounds are N/10 (at least %u)\n"
		"  --workload-ms N time of the periodic task workload per subject and class\n"
		"                  (uniprocessor, multiprocessor), in ms (default %u, 0..%u;\n"
		"                  0: no workload); plus a shorter run counting system calls\n"
		"  --seed N        seed of the workload's random task parameters (default 1)\n"
		"  --quick         %u iterations, %u ms of workload: a fast smoke run, for tests\n"
		"  --cpu N         CPU of the benchmark threads (default: the last CPU)\n"
		"  --priority N    SCHED_FIFO priority of the benchmark threads, 1..98 (default %d;\n"
		"                  the high thread of the contended case and the PRIO_PROTECT\n"
		"                  ceiling use N+1)\n"
		"  --json          machine-readable output on stdout instead of the tables\n"
		"  --only LIST     measure only these subjects (comma-separated):\n"
		"                  ",
		prog, (int)strlen(prog), "", LB_DEFAULT_ITERATIONS, LB_MIN_ITERATIONS,
		LB_MAX_ITERATIONS, LB_MIN_ITERATIONS, LB_DEFAULT_WORKLOAD_MS, LB_MAX_WORKLOAD_MS,
		LB_QUICK_ITERATIONS, LB_QUICK_WORKLOAD_MS, LB_DEFAULT_PRIORITY);
	/* Lines of at most 80 characters; the condvars on their own lines. */
	int column = 18;
	for (int s = 0; s < LB_NR_SUBJECTS; s++) {
		int len = (int)strlen(subjects[s].name) + 1;
		if (s == LB_NR_MUTEX_SUBJECTS || column + len > 80) {
			fprintf(out, "\n%18s", "");
			column = 18;
		}
		fprintf(out, "%s%s", subjects[s].name, s + 1 < LB_NR_SUBJECTS ? "," : "\n");
		column += len;
	}
	fprintf(out,
		"  --help          this text\n"
		"\n"
		"Exit status: %d measured (a missed target is reported, not an error), %d a\n"
		"measurement failed, %d bad command line.\n",
		LB_EXIT_OK, LB_EXIT_FAILURE, LB_EXIT_USAGE);
}

static int usage_error(char *err, size_t err_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int usage_error(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
	return LB_EXIT_USAGE;
}

static int parse_only(const char *list, bool selected[LB_NR_SUBJECTS], char *err, size_t err_size)
{
	memset(selected, 0, sizeof(bool) * LB_NR_SUBJECTS);
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		int found = -1;
		for (int s = 0; s < LB_NR_SUBJECTS; s++)
			if (strlen(subjects[s].name) == len && strncmp(subjects[s].name, p, len) == 0)
				found = s;
		if (found < 0)
			return usage_error(err, err_size,
					   "--only: unknown subject '%.*s' (see --help for the list)",
					   (int)len, p);
		selected[found] = true;
		if (p[len] == '\0')
			return LB_EXIT_OK;
		p += len + 1;
	}
}

int lb_options_parse(int argc, char *const argv[], int ncpus, struct lb_options *opts,
		     char *err, size_t err_size)
{
	memset(opts, 0, sizeof(*opts));
	opts->iterations = LB_DEFAULT_ITERATIONS;
	opts->cpu = ncpus > 1 ? ncpus - 1 : 0;
	opts->priority = LB_DEFAULT_PRIORITY;
	opts->workload_ms = LB_DEFAULT_WORKLOAD_MS;
	opts->seed = 1;
	for (int s = 0; s < LB_NR_SUBJECTS; s++)
		opts->selected[s] = true;
	if (err_size)
		err[0] = '\0';

	bool iterations_given = false, workload_given = false;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		/* "--name=value" or "--name value" */
		const char *eq = strchr(arg, '=');
		size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
		const char *value = eq ? eq + 1 : NULL;
#define IS(opt) (name_len == strlen(opt) && strncmp(arg, opt, name_len) == 0)
#define TAKE_VALUE()                                                                        \
	do {                                                                                \
		if (!value) {                                                               \
			if (i + 1 >= argc)                                                  \
				return usage_error(err, err_size, "%.*s needs a value",     \
						   (int)name_len, arg);                     \
			value = argv[++i];                                                  \
		}                                                                           \
	} while (0)
#define NO_VALUE()                                                                          \
	do {                                                                                \
		if (value)                                                                  \
			return usage_error(err, err_size, "%.*s takes no value",            \
					   (int)name_len, arg);                             \
	} while (0)
		uint64_t v;
		if (IS("--iterations")) {
			TAKE_VALUE();
			if (opts_parse_u64(value, LB_MIN_ITERATIONS, LB_MAX_ITERATIONS, &v))
				return usage_error(err, err_size,
						   "--iterations: '%s' is not an integer in %u..%u",
						   value, LB_MIN_ITERATIONS, LB_MAX_ITERATIONS);
			opts->iterations = (size_t)v;
			iterations_given = true;
		} else if (IS("--workload-ms")) {
			TAKE_VALUE();
			if (opts_parse_u64(value, 0, LB_MAX_WORKLOAD_MS, &v))
				return usage_error(err, err_size,
						   "--workload-ms: '%s' is not an integer in 0..%u",
						   value, LB_MAX_WORKLOAD_MS);
			opts->workload_ms = (unsigned)v;
			workload_given = true;
		} else if (IS("--seed")) {
			TAKE_VALUE();
			if (opts_parse_u64(value, 0, UINT64_MAX, &v))
				return usage_error(err, err_size,
						   "--seed: '%s' is not a non-negative integer", value);
			opts->seed = v;
		} else if (IS("--cpu")) {
			TAKE_VALUE();
			if (opts_parse_u64(value, 0, ncpus > 0 ? (uint64_t)ncpus - 1 : 0, &v))
				return usage_error(err, err_size,
						   "--cpu: '%s' is not a CPU of this machine (0..%d)",
						   value, ncpus - 1);
			opts->cpu = (int)v;
			opts->cpu_given = true;
		} else if (IS("--priority")) {
			TAKE_VALUE();
			if (opts_parse_u64(value, 1, 98, &v))
				return usage_error(err, err_size,
						   "--priority: '%s' is not an integer in 1..98", value);
			opts->priority = (int)v;
		} else if (IS("--only")) {
			TAKE_VALUE();
			int ret = parse_only(value, opts->selected, err, err_size);
			if (ret != LB_EXIT_OK)
				return ret;
		} else if (IS("--quick")) {
			NO_VALUE();
			opts->quick = true;
		} else if (IS("--json")) {
			NO_VALUE();
			opts->json = true;
		} else if (IS("--help") || IS("-h")) {
			NO_VALUE();
			opts->help = true;
		} else {
			return usage_error(err, err_size, "unknown option '%s' (see --help)", arg);
		}
#undef IS
#undef TAKE_VALUE
#undef NO_VALUE
	}
	if (opts->quick && iterations_given)
		return usage_error(err, err_size, "--quick and --iterations exclude each other");
	if (opts->quick) {
		opts->iterations = LB_QUICK_ITERATIONS;
		if (!workload_given)
			opts->workload_ms = LB_QUICK_WORKLOAD_MS;
	}
	opts->rounds = opts->iterations / 10 < LB_MIN_ITERATIONS ? LB_MIN_ITERATIONS
								  : opts->iterations / 10;
	opts->warmup = opts->iterations / 10 < 1000 ? 1000 : opts->iterations / 10;
	return LB_EXIT_OK;
}

int lb_fail(char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, err_size, fmt, ap);
	va_end(ap);
	return LB_EXIT_FAILURE;
}
