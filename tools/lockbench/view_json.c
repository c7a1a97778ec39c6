/* SPDX-License-Identifier: MIT */
/* The machine view: every figure, units in the key names. */
#include <sched.h>

#include <rtsched/version.h>

#include "jsonw.h"
#include "subjects.h"
#include "views.h"

/* Members of the current object: jw_key and its value in one call. */
static void kv_string(struct jw *w, const char *key, const char *value)
{
	jw_key(w, key);
	if (value)
		jw_string(w, value);
	else
		jw_null(w);
}

static void kv_number(struct jw *w, const char *key, double value)
{
	jw_key(w, key);
	jw_double(w, value);
}

static void kv_int(struct jw *w, const char *key, int64_t value)
{
	jw_key(w, key);
	jw_int(w, value);
}

static void kv_bool(struct jw *w, const char *key, bool value)
{
	jw_key(w, key);
	jw_bool(w, value);
}

static void kv_null(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_null(w);
}

static void kv_object(struct jw *w, const char *key)
{
	if (key)
		jw_key(w, key);
	jw_object_begin(w);
}

static void dist(struct jw *j, const struct lb_results *r, const char *key,
		 const struct lb_dist *d)
{
	if (!d->n) {
		kv_null(j, key);
		return;
	}
	double ns = lb_ns(r, 1);
	kv_object(j, key);
	kv_int(j, "samples", (int64_t)d->n);
	kv_number(j, "avg_cycles", d->avg);
	kv_number(j, "p50_cycles", d->p50);
	kv_number(j, "p99_cycles", d->p99);
	kv_number(j, "max_cycles", d->max);
	kv_number(j, "min_cycles", d->min);
	kv_number(j, "avg_ns", d->avg * ns);
	kv_number(j, "p50_ns", d->p50 * ns);
	kv_number(j, "p99_ns", d->p99 * ns);
	kv_number(j, "max_ns", d->max * ns);
	kv_number(j, "min_ns", d->min * ns);
	jw_object_end(j);
}

static void note(struct jw *j, const char *key, const char *text)
{
	kv_string(j, key, text[0] ? text : NULL);
}

static void header(struct jw *j, const struct lb_results *r)
{
	const struct lb_machine *m = &r->machine;
	const struct lb_options *o = &r->opts;
	kv_string(j, "tool", "rtsched-lockbench");
	kv_string(j, "version", RTSCHED_VERSION_STRING);
	kv_object(j, "machine");
	kv_string(j, "cpu_model", m->cpu_model);
	kv_int(j, "cpus", m->ncpus);
	kv_string(j, "kernel", m->kernel);
	kv_string(j, "glibc", m->glibc);
	kv_number(j, "tsc_hz", m->tsc_hz);
	kv_int(j, "tsc_calibration_ms", m->calibration_ms);
	jw_object_end(j);

	kv_object(j, "config");
	kv_int(j, "iterations", (int64_t)o->iterations);
	kv_int(j, "rounds", (int64_t)o->rounds);
	kv_int(j, "warmup", (int64_t)o->warmup);
	kv_bool(j, "quick", o->quick);
	kv_int(j, "cpu", o->cpu);
	kv_string(j, "policy", r->policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER");
	note(j, "policy_note", r->policy_note);
	if (r->policy == SCHED_FIFO) {
		kv_int(j, "priority", o->priority);
		kv_int(j, "contended_high_priority", o->priority + 1);
		kv_int(j, "protect_ceiling", o->priority + 1);
	} else {
		kv_null(j, "priority");
		kv_null(j, "contended_high_priority");
		kv_null(j, "protect_ceiling");
	}
	kv_bool(j, "mlocked", r->mlocked);
	note(j, "mlock_note", r->mlock_note);
	kv_int(j, "pair_batch", LB_PAIR_BATCH);
	kv_string(j, "timer", "rdtscp+lfence");
	jw_object_end(j);
	dist(j, r, "timer_overhead", &r->timer);
}

static void mutexes(struct jw *j, const struct lb_results *r)
{
	kv_object(j, "uncontended");
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		const struct lb_uncontended *u = &r->unc[s];
		if (!u->measured)
			continue;
		kv_object(j, lb_subject_name(s));
		kv_string(j, "label", lb_subject_label(s));
		dist(j, r, "lock", &u->lock);
		dist(j, r, "unlock", &u->unlock);
		dist(j, r, "pair", &u->pair);
		jw_object_end(j);
	}
	jw_object_end(j);

	kv_object(j, "contended");
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		const struct lb_contended *c = &r->con[s];
		if (!c->measured)
			continue;
		kv_object(j, lb_subject_name(s));
		kv_string(j, "label", lb_subject_label(s));
		kv_int(j, "rounds", (int64_t)c->rounds);
		kv_int(j, "contended_rounds", (int64_t)c->contended);
		dist(j, r, "lock", &c->lock);
		dist(j, r, "unlock", &c->unlock);
		jw_object_end(j);
	}
	jw_object_end(j);
}

static const char *const wl_class_keys[LB_NR_WL_CLASSES] = { "uniprocessor", "multiprocessor" };
static const char *const wl_op_keys[LB_NR_WL_OPS] = { "lock", "unlock", "job_start" };
static const char *const contention_keys[2] = { "uncontended", "contended" };

static void wl_tasks(struct jw *j, const struct lb_wl_taskset *ts)
{
	jw_key(j, "tasks");
	jw_array_begin(j);
	for (int i = 0; i < ts->ntasks; i++) {
		const struct lb_wl_task *t = &ts->task[i];
		kv_object(j, NULL);
		kv_int(j, "cpu", t->cpu);
		kv_int(j, "priority", t->priority);
		kv_number(j, "period_us", (double)t->period_ns / 1000);
		kv_number(j, "exec_us", (double)t->exec_ns / 1000);
		kv_number(j, "cs_us", (double)t->cs_ns / 1000);
		jw_object_end(j);
	}
	jw_array_end(j);
	kv_int(j, "local_ceiling", ts->params.local_ceiling);
	kv_int(j, "global_ceiling", ts->params.global_ceiling);
}

static void wl_subject(struct jw *j, const struct lb_results *r, enum lb_subject s,
		       const struct lb_wl_result *w)
{
	kv_object(j, lb_subject_name(s));
	kv_string(j, "label", lb_subject_label(s));
	if (lb_mutex_ops(s)->eager != s)
		kv_string(j, "eager_form", lb_subject_name(lb_mutex_ops(s)->eager));
	kv_int(j, "jobs", (int64_t)w->jobs);
	kv_int(j, "overruns", (int64_t)w->overruns);
	for (int op = 0; op < LB_NR_WL_OPS; op++) {
		if (op == LB_WL_JOB_START && !lb_mutex_ops(s)->job_start) {
			kv_null(j, wl_op_keys[op]);
			continue;
		}
		kv_object(j, wl_op_keys[op]);
		for (int con = 0; con < 2; con++)
			dist(j, r, contention_keys[con], &w->dist[op][con]);
		jw_object_end(j);
	}
	dist(j, r, "per_job", &w->per_job);
	kv_object(j, "syscalls_per_op");
	for (int op = 0; op < LB_NR_WL_OPS; op++) {
		if (!w->syscalls_counted || (op == LB_WL_JOB_START && !lb_mutex_ops(s)->job_start)) {
			kv_null(j, wl_op_keys[op]);
			continue;
		}
		kv_object(j, wl_op_keys[op]);
		for (int con = 0; con < 2; con++) {
			if (w->counted_ops[op][con])
				kv_number(j, contention_keys[con],
					  (double)w->syscalls[op][con] / (double)w->counted_ops[op][con]);
			else
				kv_null(j, contention_keys[con]);
		}
		jw_object_end(j);
	}
	jw_object_end(j);
	jw_object_end(j);
}

static void workload(struct jw *j, const struct lb_results *r)
{
	const struct lb_workload *wl = &r->wl;
	kv_object(j, "workload");
	kv_int(j, "slices", wl->slices);
	kv_int(j, "slice_ms", wl->slice_ms);
	kv_int(j, "syscall_count_ms", wl->count_ms);
	kv_string(j, "sample",
		  "not switched out: TSC from request to return; switched out: the caller's "
		  "on-CPU time in the call (perf time_running), the blocking time removed");
	for (int cls = 0; cls < LB_NR_WL_CLASSES; cls++) {
		const struct lb_workload_class *wc = &wl->cls[cls];
		kv_object(j, wl_class_keys[cls]);
		kv_bool(j, "run", wc->run);
		note(j, "skipped", wc->skipped);
		if (wc->run) {
			wl_tasks(j, &wc->first);
			kv_object(j, "subjects");
			for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++)
				if (wc->subject[s].measured)
					wl_subject(j, r, s, &wc->subject[s]);
			jw_object_end(j);
		}
		jw_object_end(j);
	}
	jw_object_end(j);
}

static void condvars(struct jw *j, const struct lb_results *r)
{
	kv_object(j, "condvar");
	for (int s = LB_NR_MUTEX_SUBJECTS; s < LB_NR_SUBJECTS; s++) {
		if (!r->cv[s].measured)
			continue;
		kv_object(j, lb_subject_name(s));
		kv_string(j, "label", lb_subject_label(s));
		dist(j, r, "round_trip", &r->cv[s].round);
		if (r->cv[s].syscalls_counted) {
			kv_object(j, "syscalls_thread_a");
			kv_int(j, "rounds", (int64_t)r->cv[s].syscall_rounds);
			kv_int(j, "syscalls", r->cv[s].syscalls);
			kv_number(j, "per_round",
				  (double)r->cv[s].syscalls / (double)r->cv[s].syscall_rounds);
			jw_object_end(j);
		} else {
			kv_null(j, "syscalls_thread_a");
		}
		jw_object_end(j);
	}
	jw_object_end(j);
}

static void syscalls(struct jw *j, const struct lb_results *r)
{
	const struct lb_syscall_check *sys = &r->sys;
	kv_object(j, "syscalls");
	kv_bool(j, "available", sys->available);
	kv_string(j, "method", "perf_event_open on tracepoint raw_syscalls:sys_enter, this thread");
	note(j, "reason", sys->reason);
	note(j, "note", sys->note);
	if (sys->available) {
		kv_int(j, "counter_overhead", (int64_t)sys->overhead);
		kv_object(j, "self_check");
		kv_int(j, "getppid_calls", (int64_t)sys->getppid_calls);
		kv_int(j, "counted", sys->getppid_counted);
		kv_bool(j, "ok", sys->self_check_ok);
		jw_object_end(j);
	}
	kv_object(j, "per_pair");
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		const struct lb_uncontended *u = &r->unc[s];
		if (u->syscalls_counted)
			kv_number(j, lb_subject_name(s),
				       (double)u->syscalls / (double)u->syscall_pairs);
	}
	jw_object_end(j);
	kv_object(j, "counts");
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		const struct lb_uncontended *u = &r->unc[s];
		if (!u->syscalls_counted)
			continue;
		kv_object(j, lb_subject_name(s));
		kv_int(j, "pairs", (int64_t)u->syscall_pairs);
		kv_int(j, "syscalls", u->syscalls);
		jw_object_end(j);
	}
	jw_object_end(j);
	jw_object_end(j);
}

static void ratios(struct jw *j, const struct lb_results *r)
{
	struct lb_ratio q[LB_MAX_RATIOS];
	size_t n = lb_ratios(r, q);
	kv_object(j, "ratios");
	for (size_t i = 0; i < n; i++) {
		kv_object(j, q[i].key);
		kv_string(j, "description", q[i].what);
		kv_string(j, "numerator", lb_subject_name(q[i].num));
		kv_string(j, "denominator", lb_subject_name(q[i].den));
		kv_string(j, "of", "avg");
		if (q[i].available)
			kv_number(j, "value", q[i].value);
		else
			kv_null(j, "value");
		if (q[i].target_max > 0)
			kv_number(j, "target_max", q[i].target_max);
		else
			kv_null(j, "target_max");
		if (q[i].target_max > 0 && q[i].available)
			kv_bool(j, "met", q[i].value <= q[i].target_max);
		else
			kv_null(j, "met");
		jw_object_end(j);
	}
	jw_object_end(j);
	struct lb_syscall_target t[LB_MAX_RATIOS];
	size_t nt = lb_syscall_targets(r, t);
	bool syscalls_met = true;
	kv_object(j, "syscall_targets");
	for (size_t i = 0; i < nt; i++) {
		kv_object(j, lb_subject_name(t[i].subject));
		kv_string(j, "description", "uncontended lock+unlock: system calls per pair, target 0");
		if (t[i].available) {
			kv_number(j, "per_pair", t[i].per_pair);
			kv_bool(j, "met", t[i].met);
			syscalls_met &= t[i].met;
		} else {
			kv_null(j, "per_pair");
			kv_null(j, "met");
		}
		jw_object_end(j);
	}
	jw_object_end(j);
	kv_bool(j, "targets_met", lb_targets_met(q, n) && syscalls_met);
}

void lb_view_json(FILE *out, const struct lb_results *r)
{
	struct jw j;
	jw_init(&j, out);
	kv_object(&j, NULL);
	header(&j, r);
	mutexes(&j, r);
	condvars(&j, r);
	workload(&j, r);
	syscalls(&j, r);
	kv_object(&j, "skipped");
	for (int s = 0; s < LB_NR_SUBJECTS; s++)
		if (r->opts.selected[s] && r->skipped[s][0])
			kv_string(&j, lb_subject_name(s), r->skipped[s]);
	jw_object_end(&j);
	ratios(&j, r);
	jw_object_end(&j);
	fputc('\n', out);
}
