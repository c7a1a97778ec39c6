/* SPDX-License-Identifier: MIT */
/* rtsched-lockbench: parse the options, run the core, print one view. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"
#include "cpus.h"
#include "options.h"
#include "views.h"

/* The CPU to use when --cpu was not given: the highest one this process may run on. */
static int default_cpu(int ncpus, const cpu_set_t *allowed)
{
	for (int cpu = ncpus - 1; cpu > 0; cpu--)
		if (CPU_ISSET(cpu, allowed))
			return cpu;
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = "rtsched-lockbench";
	int ncpus = rts_ncpus();
	struct lb_options opts;
	char err[256];
	int ret = lb_options_parse(argc, argv, ncpus, &opts, err, sizeof(err));
	if (ret != LB_EXIT_OK) {
		fprintf(stderr, "%s: %s\n", prog, err);
		return ret;
	}
	if (opts.help) {
		lb_options_usage(stdout, prog);
		return LB_EXIT_OK;
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
		if (!opts.cpu_given)
			opts.cpu = default_cpu(ncpus, &allowed);
		if (!CPU_ISSET(opts.cpu, &allowed)) {
			fprintf(stderr, "%s: --cpu: CPU %d is not in this process's affinity mask\n",
				prog, opts.cpu);
			return LB_EXIT_USAGE;
		}
	}

	struct lb_results *r = malloc(sizeof(*r));
	if (!r) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return LB_EXIT_FAILURE;
	}
	ret = lb_run(&opts, r, err, sizeof(err));
	if (ret != LB_EXIT_OK) {
		fprintf(stderr, "%s: %s\n", prog, err);
		free(r);
		return ret;
	}
	if (opts.json)
		lb_view_json(stdout, r);
	else
		lb_view_table(stdout, r);
	free(r);
	if (fflush(stdout) != 0) {
		perror(prog);
		return LB_EXIT_FAILURE;
	}
	return LB_EXIT_OK;
}
