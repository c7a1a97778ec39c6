/* SPDX-License-Identifier: MIT */
/* rtsched-latency: scheduling latency by the cyclictest method. */
#include "cpus.h"
#include "latency.h"
#include "options.h"
#include "views.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct lat_run run; /* large (histogram pointers, per-thread state): not on the stack */

static void on_signal(int sig)
{
	(void)sig;
	lat_request_stop();
}

int main(int argc, char *argv[])
{
	struct lat_options opts;
	char err[256];
	int rc = lat_options_parse(argc, argv, rts_ncpus(), &opts, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rtsched-latency: %s (see --help)\n", err);
		return rc;
	}
	if (opts.help) {
		lat_options_usage(stdout, "rtsched-latency");
		return LAT_EXIT_OK;
	}
	FILE *out = stdout;
	if (opts.output) {
		out = fopen(opts.output, "w");
		if (!out) {
			fprintf(stderr, "rtsched-latency: --output: cannot write %s: %s\n", opts.output, strerror(errno));
			return LAT_EXIT_FAILURE;
		}
	}
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: a sleep returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int e = lat_run(&opts, &run, opts.progress ? lat_view_progress : NULL, NULL);
	lat_view_json(out, &run);
	if (fflush(out) || (out != stdout && fclose(out))) {
		fprintf(stderr, "rtsched-latency: writing the result failed: %s\n", strerror(errno));
		e = e ? e : EIO;
	}
	if (e) {
		for (int i = 0; i < run.nthreads; i++) {
			const struct lat_thread *t = &run.threads[i];
			if (t->error) {
				fprintf(stderr, "rtsched-latency: CPU %d: %s: %s%s\n", t->cpu, t->error_what,
					strerror(t->error),
					t->error == EPERM ? " (real-time policies need root or CAP_SYS_NICE)"
					: t->error == EINVAL && !strncmp(t->error_what, "pinning", 7)
					? " (the CPU is outside this process's cpuset: is a shield up? see `rtsched shield --status`)"
					: "");
				break;
			}
		}
	}
	lat_run_free(&run);
	return e ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
}
