/* SPDX-License-Identifier: MIT */
/* rtsched-calibrate: the overheads the analysis needs, measured on one CPU under SCHED_FIFO, as JSON. */
#include "cpus.h"
#include "jsonw.h"
#include "measures.h"
#include "options.h"
#include "pinned.h"

#include <rtsched/sched.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static const char *const json_names[] = {"context_switch", "rpc_call", "rpc_call_client", "trace_event"};
enum { R_SWITCH, R_RPC, R_RPC_CLIENT, R_TRACE, NR_RESULTS };

static void write_summary(struct jw *w, const char *key, const struct cal_summary *s)
{
	jw_key(w, key);
	jw_object_begin(w);
	jw_key(w, "samples");
	jw_uint(w, s->n);
	jw_key(w, "min_ns");
	jw_uint(w, s->min_ns);
	jw_key(w, "p50_ns");
	jw_uint(w, s->p50_ns);
	jw_key(w, "p99_ns");
	jw_uint(w, s->p99_ns);
	jw_key(w, "max_ns");
	jw_uint(w, s->max_ns);
	jw_key(w, "avg_ns");
	jw_double(w, s->avg_ns);
	jw_object_end(w);
}

static void write_json(FILE *out, const struct cal_options *o, bool mlocked, const bool have[NR_RESULTS],
		       const struct cal_summary sum[NR_RESULTS], uint64_t trace_lost)
{
	struct jw w;
	jw_init(&w, out);
	jw_object_begin(&w);
	jw_key(&w, "format");
	jw_string(&w, "rtsched-calibrate/1");
	jw_key(&w, "config");
	jw_object_begin(&w);
	jw_key(&w, "cpu");
	jw_int(&w, o->cpu);
	jw_key(&w, "priority");
	jw_int(&w, o->priority);
	jw_key(&w, "rpc_server_priority");
	jw_int(&w, o->priority - 1);
	jw_key(&w, "samples");
	jw_uint(&w, o->samples);
	jw_key(&w, "batch");
	jw_uint(&w, CAL_BATCH);
	jw_key(&w, "pause_ns");
	jw_uint(&w, CAL_PAUSE_NS);
	jw_key(&w, "clock");
	jw_string(&w, "CLOCK_MONOTONIC");
	jw_object_end(&w);
	jw_key(&w, "mlockall");
	jw_bool(&w, mlocked);
	jw_key(&w, "trace_lost_events");
	if (have[R_TRACE])
		jw_uint(&w, trace_lost);
	else
		jw_null(&w);
	jw_key(&w, "measurements");
	jw_object_begin(&w);
	for (int r = 0; r < NR_RESULTS; r++)
		if (have[r])
			write_summary(&w, json_names[r], &sum[r]);
	jw_object_end(&w);
	jw_object_end(&w);
	fputc('\n', out);
}

/* Pin the calling thread and make it SCHED_FIFO; on failure a message on stderr. */
static int become_realtime(const struct cal_options *o)
{
	char why[256] = "";
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(o->cpu, &one);
	int err = rts_affinity_set_self(&one, why, sizeof(why));
	if (err) {
		fprintf(stderr, "rtsched-calibrate: pinning to CPU %d: %s%s%s\n", o->cpu, strerror(err),
			why[0] ? ": " : "", why);
		return err;
	}
	struct rts_sched_params p = {.policy = RTS_POLICY_FIFO, .priority = o->priority};
	if (!(err = rts_sched_apply_self(&p, why, sizeof(why))))
		return 0;
	if (err == EPERM) {
		struct rlimit rl = {0};
		getrlimit(RLIMIT_RTPRIO, &rl);
		fprintf(stderr,
			"rtsched-calibrate: SCHED_FIFO priority %d refused (EPERM): it needs CAP_SYS_NICE "
			"(run as root) or RLIMIT_RTPRIO >= %d (`ulimit -r` is %llu here)\n",
			o->priority, o->priority, (unsigned long long)rl.rlim_cur);
	} else {
		fprintf(stderr, "rtsched-calibrate: setting SCHED_FIFO %d: %s%s%s\n", o->priority,
			strerror(err), why[0] ? ": " : "", why);
	}
	return err;
}

int main(int argc, char *argv[])
{
	struct cal_options o;
	char err_text[256];
	int rc = cal_options_parse(argc, argv, rts_ncpus(), &o, err_text, sizeof(err_text));
	if (rc) {
		fprintf(stderr, "rtsched-calibrate: %s (see --help)\n", err_text);
		return rc;
	}
	if (o.help) {
		cal_options_usage(stdout, "rtsched-calibrate");
		return CAL_EXIT_OK;
	}
	if (!rts_cpu_online(o.cpu)) {
		fprintf(stderr, "rtsched-calibrate: --cpu: CPU %d is offline\n", o.cpu);
		return CAL_EXIT_USAGE;
	}
	bool mlocked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
	if (become_realtime(&o))
		return CAL_EXIT_FAILURE;
	FILE *out = stdout; /* opened once the measurement can run: a refusal leaves no empty file */
	if (o.output && !(out = fopen(o.output, "w"))) {
		fprintf(stderr, "rtsched-calibrate: --output: cannot write %s: %s\n", o.output, strerror(errno));
		return CAL_EXIT_FAILURE;
	}

	struct cal_samples s[NR_RESULTS];
	for (int r = 0; r < NR_RESULTS; r++)
		if (cal_samples_init(&s[r], o.samples)) {
			fprintf(stderr, "rtsched-calibrate: no memory for %llu samples\n",
				(unsigned long long)o.samples);
			return CAL_EXIT_FAILURE;
		}
	bool have[NR_RESULTS] = {false};
	uint64_t trace_lost = 0;
	char why[256] = "";
	int err = 0;
	const char *failed = NULL;
	if (o.selected[CAL_CONTEXT_SWITCH] && !(err = cal_context_switch(&o, &s[R_SWITCH], why, sizeof(why))))
		have[R_SWITCH] = true;
	else if (err)
		failed = cal_measure_name(CAL_CONTEXT_SWITCH);
	if (!err && o.selected[CAL_RPC_CALL]) {
		if (!(err = cal_rpc_call(&o, &s[R_RPC], &s[R_RPC_CLIENT], why, sizeof(why))))
			have[R_RPC] = have[R_RPC_CLIENT] = true;
		else
			failed = cal_measure_name(CAL_RPC_CALL);
	}
	if (!err && o.selected[CAL_TRACE_EVENT]) {
		if (!(err = cal_trace_event(&o, &s[R_TRACE], &trace_lost, why, sizeof(why))))
			have[R_TRACE] = true;
		else
			failed = cal_measure_name(CAL_TRACE_EVENT);
	}
	rts_sched_reset_self();
	if (err) {
		fprintf(stderr, "rtsched-calibrate: %s: %s: %s\n", failed, why, strerror(err));
		return CAL_EXIT_FAILURE;
	}
	struct cal_summary sum[NR_RESULTS];
	for (int r = 0; r < NR_RESULTS; r++) {
		sum[r] = cal_samples_summarise(&s[r]);
		cal_samples_free(&s[r]);
	}
	write_json(out, &o, mlocked, have, sum, trace_lost);
	if (fflush(out) || (out != stdout && fclose(out))) {
		fprintf(stderr, "rtsched-calibrate: writing the JSON: %s\n", strerror(errno));
		return CAL_EXIT_FAILURE;
	}
	return CAL_EXIT_OK;
}
