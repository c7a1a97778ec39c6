/* SPDX-License-Identifier: MIT */
/* rtsched-overhead: calibrate the loop, run it N times, write each T_x as JSON. */
#include "cpus.h"
#include "jsonw.h"
#include "loop.h"
#include "options.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "clock_ns.h"

static atomic_bool stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop_requested, true);
}

static void sleep_ms(double ms)
{
	struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(((uint64_t)(ms * 1e6)) % 1000000000ull)};
	nanosleep(&ts, NULL);
}

static volatile uint64_t sink;

/* One run of the loop: its length; its start (CLOCK_MONOTONIC) in *start_ns when not NULL. */
static uint64_t time_loop(uint64_t n, uint64_t *start_ns)
{
	uint64_t t0 = (uint64_t)clock_ns(CLOCK_MONOTONIC);
	sink = ovh_loop(n);
	if (start_ns)
		*start_ns = t0;
	return (uint64_t)clock_ns(CLOCK_MONOTONIC) - t0;
}

/*
 * Steps for target_ms: grow n until one run lasts >= 10 ms, then scale, and
 * take the fastest of five runs at that size (the least disturbed one).
 */
static uint64_t calibrate(double target_ms)
{
	uint64_t n = 100000, t = 0;
	while ((t = time_loop(n, NULL)) < 10000000ull && n < (1ull << 40))
		n *= 2;
	uint64_t best = t;
	for (int i = 0; i < 5; i++) {
		uint64_t ti = time_loop(n, NULL);
		if (ti < best)
			best = ti;
	}
	double steps = (double)n * (target_ms * 1e6) / (double)best;
	return steps < 1 ? 1 : (uint64_t)steps;
}

int main(int argc, char *argv[])
{
	struct ovh_options o;
	char err[256];
	int rc = ovh_options_parse(argc, argv, rts_ncpus(), &o, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "rtsched-overhead: %s (see --help)\n", err);
		return rc;
	}
	if (o.help) {
		ovh_options_usage(stdout, "rtsched-overhead");
		return OVH_EXIT_OK;
	}
	FILE *out = stdout;
	if (o.output && !(out = fopen(o.output, "w"))) {
		fprintf(stderr, "rtsched-overhead: --output: cannot write %s: %s\n", o.output, strerror(errno));
		return OVH_EXIT_FAILURE;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int e = 0;
	const char *what = NULL;
	cpu_set_t one_cpu;
	CPU_ZERO(&one_cpu);
	CPU_SET(o.cpu, &one_cpu);
	if (o.cpuset && (e = rts_cpuset_join_self(o.cpuset, NULL, 0)))
		what = "joining the cpuset";
	if (!e && (e = rts_affinity_set_self(&one_cpu, NULL, 0)))
		what = "pinning to the CPU";
	bool mlocked = !e && mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
	struct rts_sched_params p = {.policy = o.policy, .priority = o.priority};
	if (!e && (e = rts_sched_apply_self(&p, NULL, 0)))
		what = "setting the policy (sched_setattr)";
	if (e) {
		fprintf(stderr, "rtsched-overhead: %s: %s%s\n", what, strerror(e),
			e == EPERM ? " (SCHED_FIFO needs root or CAP_SYS_NICE)" : "");
		return OVH_EXIT_FAILURE;
	}

	uint64_t steps = o.steps ? o.steps : calibrate(o.target_ms);
	uint64_t *samples = calloc(o.iterations, sizeof(*samples));
	uint64_t *starts = calloc(o.iterations, sizeof(*starts));
	if (!samples || !starts)
		return OVH_EXIT_FAILURE;
	uint64_t done = 0;
	for (; done < o.iterations && !atomic_load(&stop_requested); done++) {
		samples[done] = time_loop(steps, &starts[done]);
		if (o.progress) {
			fprintf(stderr, "progress %llu %llu\n", (unsigned long long)done + 1,
				(unsigned long long)o.iterations);
			fflush(stderr);
		}
		if (o.gap_ms > 0)
			sleep_ms(o.gap_ms);
	}
	rts_sched_reset_self();

	uint64_t min = UINT64_MAX, max = 0;
	double sum = 0;
	for (uint64_t i = 0; i < done; i++) {
		min = samples[i] < min ? samples[i] : min;
		max = samples[i] > max ? samples[i] : max;
		sum += (double)samples[i];
	}
	struct jw w;
	jw_init(&w, out);
	jw_object_begin(&w);
	jw_key(&w, "format");
	jw_string(&w, "rtsched-overhead/1");
	jw_key(&w, "config");
	jw_object_begin(&w);
	jw_key(&w, "cpu");
	jw_int(&w, o.cpu);
	jw_key(&w, "policy");
	jw_string(&w, rts_policy_name(o.policy));
	jw_key(&w, "priority");
	if (o.policy == RTS_POLICY_FIFO)
		jw_int(&w, o.priority);
	else
		jw_null(&w);
	jw_key(&w, "target_ms");
	jw_double(&w, o.target_ms);
	jw_key(&w, "iterations");
	jw_uint(&w, o.iterations);
	jw_key(&w, "gap_ms");
	jw_double(&w, o.gap_ms);
	jw_key(&w, "cpuset");
	if (o.cpuset)
		jw_string(&w, o.cpuset);
	else
		jw_null(&w);
	jw_object_end(&w);
	jw_key(&w, "mlockall");
	jw_bool(&w, mlocked);
	jw_key(&w, "calibrated");
	jw_bool(&w, o.steps == 0);
	jw_key(&w, "loop_steps");
	jw_uint(&w, steps);
	jw_key(&w, "completed");
	jw_uint(&w, done);
	jw_key(&w, "min_ns");
	done ? jw_uint(&w, min) : jw_null(&w);
	jw_key(&w, "max_ns");
	done ? jw_uint(&w, max) : jw_null(&w);
	jw_key(&w, "avg_ns");
	done ? jw_double(&w, sum / (double)done) : jw_null(&w);
	jw_key(&w, "samples_ns");
	jw_array_begin(&w);
	for (uint64_t i = 0; i < done; i++)
		jw_uint(&w, samples[i]);
	jw_array_end(&w);
	/* Where each window lies on CLOCK_MONOTONIC, and which thread ran the loop: what took
	 * the CPU from it can then be read off a kernel schedule of the same time. */
	jw_key(&w, "starts_ns");
	jw_array_begin(&w);
	for (uint64_t i = 0; i < done; i++)
		jw_uint(&w, starts[i]);
	jw_array_end(&w);
	jw_key(&w, "tid");
	jw_int(&w, (int64_t)gettid());
	jw_object_end(&w);
	fputc('\n', out);
	free(samples);
	free(starts);
	if (fflush(out) || (out != stdout && fclose(out)))
		return OVH_EXIT_FAILURE;
	return OVH_EXIT_OK;
}
