/* SPDX-License-Identifier: MIT */
/* The human view: seed 001 Table I layout, one table per case and unit. */
#include <inttypes.h>
#include <sched.h>
#include <string.h>

#include <rtsched/version.h>

#include "subjects.h"
#include "views.h"

const char *lb_ratio_verdict(const struct lb_ratio *q)
{
	if (!q->available)
		return "n/a";
	if (q->target_max <= 0)
		return "info";
	return q->value <= q->target_max ? "PASS" : "MISS";
}

bool lb_targets_met(const struct lb_ratio *q, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		if (q[i].target_max <= 0 || !q[i].available)
			continue;
		any = true;
		if (q[i].value > q[i].target_max)
			return false;
	}
	return any;
}

/* A figure in a fixed width: integers from 1000 up, one decimal below. */
static void cell(FILE *out, double v, bool ns)
{
	if (ns && v < 1000)
		fprintf(out, " %8.1f", v);
	else
		fprintf(out, " %8.0f", v);
}

static void dist3(FILE *out, const struct lb_results *r, const struct lb_dist *d, bool ns)
{
	double f = ns ? lb_ns(r, 1) : 1;
	cell(out, d->avg * f, ns);
	cell(out, d->p99 * f, ns);
	cell(out, d->max * f, ns);
}

/* A group title centred over three columns of 9 characters: "---- Lock ----". */
static void group(FILE *out, const char *title)
{
	int dashes = 26 - ((int)strlen(title) + 2);
	int left = dashes / 2, right = dashes - left;
	fputc(' ', out);
	for (int i = 0; i < left; i++)
		fputc('-', out);
	fprintf(out, " %s ", title);
	for (int i = 0; i < right; i++)
		fputc('-', out);
}

static void rule(FILE *out, int width)
{
	for (int i = 0; i < width; i++)
		fputc('-', out);
	fputc('\n', out);
}

static void skipped_line(FILE *out, const struct lb_results *r, enum lb_subject s)
{
	fprintf(out, "%-28s %s\n", lb_subject_label(s),
		r->skipped[s][0] ? r->skipped[s] : "not measured");
}

static void uncontended_table(FILE *out, const struct lb_results *r, bool ns)
{
	const char *unit = ns ? "ns" : "cycles";
	fprintf(out, "\nUncontended, %s (%zu samples per operation)\n", unit, r->opts.iterations);
	fprintf(out, "%-28s", "");
	group(out, "Lock");
	fputs("  ", out);
	group(out, "Unlock");
	fprintf(out, "  %9s\n", "Pair");
	fprintf(out, "%-28s %8s %8s %8s   %8s %8s %8s   %8s\n", "protocol", "avg", "99%", "max",
		"avg", "99%", "max", "avg");
	rule(out, 28 + 27 + 2 + 27 + 2 + 9);
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		if (!r->opts.selected[s])
			continue;
		const struct lb_uncontended *u = &r->unc[s];
		if (!u->measured) {
			skipped_line(out, r, s);
			continue;
		}
		fprintf(out, "%-28s", lb_subject_label(s));
		dist3(out, r, &u->lock, ns);
		fputs("  ", out);
		dist3(out, r, &u->unlock, ns);
		fputs("  ", out);
		cell(out, u->pair.avg * (ns ? lb_ns(r, 1) : 1), ns);
		fputc('\n', out);
	}
}

static void contended_table(FILE *out, const struct lb_results *r, bool ns)
{
	const char *unit = ns ? "ns" : "cycles";
	fprintf(out, "\nContended, %s (%zu rounds, one CPU: high thread locks while low holds)\n",
		unit, r->opts.rounds);
	fprintf(out, "%-28s", "");
	group(out, "Lock (high)");
	fputs("  ", out);
	group(out, "Unlock (low)");
	fprintf(out, "  %10s\n", "contended");
	fprintf(out, "%-28s %8s %8s %8s   %8s %8s %8s   %9s\n", "protocol", "avg", "99%", "max",
		"avg", "99%", "max", "rounds");
	rule(out, 28 + 27 + 2 + 27 + 2 + 10);
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		if (!r->opts.selected[s] || !lb_mutex_ops(s)->handover)
			continue;
		const struct lb_contended *c = &r->con[s];
		if (!c->measured) {
			skipped_line(out, r, s);
			continue;
		}
		fprintf(out, "%-28s", lb_subject_label(s));
		if (c->contended == 0) {
			fprintf(out, " %8s %8s %8s   %8s %8s %8s   %9s\n", "-", "-", "-", "-", "-",
				"-", "0");
			continue;
		}
		dist3(out, r, &c->lock, ns);
		fputs("  ", out);
		dist3(out, r, &c->unlock, ns);
		fprintf(out, "  %9zu\n", c->contended);
	}
}

static void condvar_table(FILE *out, const struct lb_results *r)
{
	fprintf(out, "\nCondition variable ping-pong, round trip (%zu rounds, two threads, one CPU;\n"
		     "syscalls: made by one of the two threads per round)\n", r->opts.rounds);
	fprintf(out, "%-28s", "");
	group(out, "cycles");
	fputs("  ", out);
	group(out, "ns");
	fprintf(out, "  %9s\n", "syscalls");
	fprintf(out, "%-28s %8s %8s %8s   %8s %8s %8s   %9s\n", "condvar + mutex", "avg", "99%",
		"max", "avg", "99%", "max", "per round");
	rule(out, 28 + 27 + 2 + 27 + 2 + 10);
	for (int s = LB_NR_MUTEX_SUBJECTS; s < LB_NR_SUBJECTS; s++) {
		if (!r->opts.selected[s])
			continue;
		if (!r->cv[s].measured) {
			skipped_line(out, r, s);
			continue;
		}
		fprintf(out, "%-28s", lb_subject_label(s));
		dist3(out, r, &r->cv[s].round, false);
		fputs("  ", out);
		dist3(out, r, &r->cv[s].round, true);
		if (r->cv[s].syscalls_counted)
			fprintf(out, "  %9.2f\n",
				(double)r->cv[s].syscalls / (double)r->cv[s].syscall_rounds);
		else
			fprintf(out, "  %9s\n", "n/a");
	}
}

/* ---- the workload: seed 001 Table I, rows = metrics, columns = subjects ---- */

#define WL_ROW_LABEL 22
#define WL_COLUMN    10

static const char *const wl_class_titles[LB_NR_WL_CLASSES] = { "uniprocessor", "multiprocessor" };
static const char *const wl_op_titles[LB_NR_WL_OPS] = { "Lock", "Unlock", "Job start" };

/* The subjects measured in a class, in table order; returns how many. */
static int wl_columns(const struct lb_workload_class *wc, enum lb_subject cols[LB_NR_MUTEX_SUBJECTS])
{
	int n = 0;
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++)
		if (wc->subject[s].measured)
			cols[n++] = s;
	return n;
}

static void wl_heading(FILE *out, const enum lb_subject *cols, int n)
{
	fprintf(out, "%-*s", WL_ROW_LABEL, "");
	for (int i = 0; i < n; i++)
		fprintf(out, " %*s", WL_COLUMN - 1, lb_subject_column(cols[i]));
	fputc('\n', out);
	rule(out, WL_ROW_LABEL + WL_COLUMN * n);
}

static void wl_value(FILE *out, double v, bool ns)
{
	if (ns && v < 1000)
		fprintf(out, " %*.1f", WL_COLUMN - 1, v);
	else
		fprintf(out, " %*.0f", WL_COLUMN - 1, v);
}

static bool has_job_start(const enum lb_subject *cols, int n)
{
	for (int i = 0; i < n; i++)
		if (lb_mutex_ops(cols[i])->job_start)
			return true;
	return false;
}

/* avg, 99% and max rows of one operation and contention, and its sample count. */
static void wl_dist_rows(FILE *out, const struct lb_results *r, const struct lb_workload_class *wc,
			 const enum lb_subject *cols, int n, enum lb_wl_op op, int con, bool ns)
{
	static const char *const stat_titles[3] = { "avg", "99%", "max" };
	double f = ns ? lb_ns(r, 1) : 1;
	for (int stat = 0; stat < 3; stat++) {
		char label[40];
		snprintf(label, sizeof(label), "  %s (%s)", wl_op_titles[op], stat_titles[stat]);
		fprintf(out, "%-*s", WL_ROW_LABEL, label);
		for (int i = 0; i < n; i++) {
			const struct lb_dist *d = &wc->subject[cols[i]].dist[op][con];
			bool applies = op != LB_WL_JOB_START || lb_mutex_ops(cols[i])->job_start;
			if (!applies || d->n == 0) {
				fprintf(out, " %*s", WL_COLUMN - 1, "-");
				continue;
			}
			wl_value(out, (stat == 0 ? d->avg : stat == 1 ? d->p99 : d->max) * f, ns);
		}
		fputc('\n', out);
	}
}

static void wl_count_row(FILE *out, const struct lb_workload_class *wc, const enum lb_subject *cols,
			 int n, enum lb_wl_op op, int con)
{
	char label[40];
	snprintf(label, sizeof(label), "  %s samples", wl_op_titles[op]);
	fprintf(out, "%-*s", WL_ROW_LABEL, label);
	for (int i = 0; i < n; i++) {
		bool applies = op != LB_WL_JOB_START || lb_mutex_ops(cols[i])->job_start;
		if (applies)
			fprintf(out, " %*zu", WL_COLUMN - 1, wc->subject[cols[i]].dist[op][con].n);
		else
			fprintf(out, " %*s", WL_COLUMN - 1, "-");
	}
	fputc('\n', out);
}

static void wl_syscall_row(FILE *out, const struct lb_workload_class *wc, const enum lb_subject *cols,
			   int n, enum lb_wl_op op, int con)
{
	char label[40];
	snprintf(label, sizeof(label), "  syscalls / %s", wl_op_titles[op]);
	fprintf(out, "%-*s", WL_ROW_LABEL, label);
	for (int i = 0; i < n; i++) {
		const struct lb_wl_result *w = &wc->subject[cols[i]];
		bool applies = op != LB_WL_JOB_START || lb_mutex_ops(cols[i])->job_start;
		if (!applies || !w->syscalls_counted || w->counted_ops[op][con] == 0)
			fprintf(out, " %*s", WL_COLUMN - 1, applies && w->syscalls_counted ? "-" : "n/a");
		else
			fprintf(out, " %*.2f", WL_COLUMN - 1,
				(double)w->syscalls[op][con] / (double)w->counted_ops[op][con]);
	}
	fputc('\n', out);
}

static void wl_table(FILE *out, const struct lb_results *r, enum lb_wl_class cls, bool ns)
{
	const struct lb_workload_class *wc = &r->wl.cls[cls];
	enum lb_subject cols[LB_NR_MUTEX_SUBJECTS];
	int n = wl_columns(wc, cols);
	fprintf(out, "\nWorkload, %s, %s (%u runs of %u ms per subject)\n", wl_class_titles[cls],
		ns ? "ns" : "cycles", r->wl.slices, r->wl.slice_ms);
	wl_heading(out, cols, n);
	bool gates = has_job_start(cols, n);
	for (int con = 0; con < 2; con++) {
		fprintf(out, "%s\n", con ? "Contended (blocking time removed)" : "Uncontended");
		for (int op = 0; op < LB_NR_WL_OPS; op++) {
			if (op == LB_WL_JOB_START && !gates)
				continue;
			wl_dist_rows(out, r, wc, cols, n, op, con, ns);
			if (ns)
				continue;
			wl_count_row(out, wc, cols, n, op, con);
			wl_syscall_row(out, wc, cols, n, op, con);
		}
	}
	fprintf(out, "Per job (job start + lock + unlock, every job)\n");
	double f = ns ? lb_ns(r, 1) : 1;
	static const char *const stat_titles[3] = { "avg", "99%", "max" };
	for (int stat = 0; stat < 3; stat++) {
		char label[40];
		snprintf(label, sizeof(label), "  Job (%s)", stat_titles[stat]);
		fprintf(out, "%-*s", WL_ROW_LABEL, label);
		for (int i = 0; i < n; i++) {
			const struct lb_dist *d = &wc->subject[cols[i]].per_job;
			wl_value(out, (stat == 0 ? d->avg : stat == 1 ? d->p99 : d->max) * f, ns);
		}
		fputc('\n', out);
	}
}

static void wl_section(FILE *out, const struct lb_results *r, enum lb_wl_class cls)
{
	const struct lb_workload_class *wc = &r->wl.cls[cls];
	fprintf(out, "\nWorkload, %s: ", wl_class_titles[cls]);
	if (!wc->run) {
		fprintf(out, "not run: %s\n", wc->skipped);
		return;
	}
	const struct lb_wl_taskset *ts = &wc->first;
	fprintf(out, "%d periodic SCHED_FIFO tasks sharing one lock, first task set:\n", ts->ntasks);
	for (int i = 0; i < ts->ntasks; i++) {
		const struct lb_wl_task *t = &ts->task[i];
		fprintf(out, "  CPU %d  prio %2d  period %4.0f us  exec %5.1f us  critical section %4.1f us\n",
			t->cpu, t->priority, (double)t->period_ns / 1000, (double)t->exec_ns / 1000,
			(double)t->cs_ns / 1000);
	}
	fprintf(out, "  ceilings: local %d, global %d; new random parameters per run (seed %" PRIu64
		     ")\n", ts->params.local_ceiling, ts->params.global_ceiling, r->opts.seed);
	enum lb_subject cols[LB_NR_MUTEX_SUBJECTS];
	int n = wl_columns(wc, cols);
	fprintf(out, "  jobs measured (late: releases skipped after a job overran its period):\n  ");
	for (int i = 0; i < n; i++)
		fprintf(out, " %s %" PRIu64 " (late %" PRIu64 ")%s", lb_subject_column(cols[i]),
			wc->subject[cols[i]].jobs, wc->subject[cols[i]].overruns,
			i + 1 == n ? "\n" : i % 4 == 3 ? ",\n  " : ",");
	wl_table(out, r, cls, false);
	wl_table(out, r, cls, true);
}

static void syscall_table(FILE *out, const struct lb_results *r)
{
	const struct lb_syscall_check *sys = &r->sys;
	fprintf(out, "\nSystem calls of the uncontended loop (perf counter on raw_syscalls:sys_enter, "
		     "this thread only)\n");
	if (!sys->available) {
		fprintf(out, "n/a: %s\n", sys->reason);
		return;
	}
	if (sys->note[0])
		fprintf(out, "note: %s\n", sys->note);
	fprintf(out, "self-check: %" PRIu64 " getppid() calls counted as %" PRId64 ": %s\n",
		sys->getppid_calls, sys->getppid_counted, sys->self_check_ok ? "ok" : "WRONG");
	fprintf(out, "%-28s %10s %10s %10s\n", "protocol", "pairs", "syscalls", "per pair");
	rule(out, 28 + 3 * 11);
	for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
		const struct lb_uncontended *u = &r->unc[s];
		if (!u->syscalls_counted)
			continue;
		fprintf(out, "%-28s %10" PRIu64 " %10" PRId64 " %10.2f\n", lb_subject_label(s),
			u->syscall_pairs, u->syscalls, (double)u->syscalls / (double)u->syscall_pairs);
	}
}

static void syscall_target_lines(FILE *out, const struct lb_results *r)
{
	struct lb_syscall_target q[LB_MAX_RATIOS];
	size_t n = lb_syscall_targets(r, q);
	for (size_t i = 0; i < n; i++) {
		char what[80];
		snprintf(what, sizeof(what), "uncontended lock+unlock, %s: system calls per pair",
			 lb_subject_label(q[i].subject));
		if (q[i].available)
			fprintf(out, "  %-72s %6.2f   target 0        %s\n", what, q[i].per_pair,
				q[i].met ? "PASS" : "MISS");
		else
			fprintf(out, "  %-72s    n/a   (%s)\n", what, r->sys.reason);
	}
}

/*
 * Deferred against eager, side by side: the workload's contended operations
 * and the protocol's cost per job (which moves between the operations: the
 * deferred forms block at job start, the eager ones at unlock).
 */
static void deferred_vs_eager(FILE *out, const struct lb_results *r)
{
	static const struct {
		const char *title;
		enum lb_wl_op op; /* LB_NR_WL_OPS: per job */
	} rows[] = {
		{ "contended lock", LB_WL_LOCK },
		{ "contended unlock", LB_WL_UNLOCK },
		{ "contended job start", LB_WL_JOB_START },
		{ "per job (all jobs)", LB_NR_WL_OPS },
	};
	bool header = false;
	for (int cls = 0; cls < LB_NR_WL_CLASSES; cls++) {
		const struct lb_workload_class *wc = &r->wl.cls[cls];
		for (int s = 0; s < LB_NR_MUTEX_SUBJECTS; s++) {
			enum lb_subject e = lb_mutex_ops(s)->eager;
			if (!lb_mutex_ops(s)->deferred || e == (enum lb_subject)s ||
			    !wc->subject[s].measured || !wc->subject[e].measured)
				continue;
			if (!header) {
				fprintf(out, "\nDeferred against eager, workload, cycles (job start: the "
					     "deferred forms only; per job: start + lock + unlock)\n");
				fprintf(out, "%-16s %-20s %9s %9s  %9s %9s  %9s %9s %9s\n", "protocol", "",
					"def avg", "eager avg", "def 99%", "eager 99%", "def max",
					"eager max", "max ratio");
				rule(out, 16 + 21 + 20 + 2 + 20 + 2 + 30);
				header = true;
			}
			for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
				const struct lb_dist *d = rows[i].op == LB_NR_WL_OPS
								  ? &wc->subject[s].per_job
								  : &wc->subject[s].dist[rows[i].op][1];
				const struct lb_dist *g = rows[i].op == LB_NR_WL_OPS
								  ? &wc->subject[e].per_job
								  : &wc->subject[e].dist[rows[i].op][1];
				fprintf(out, "%-16s %-20s", i == 0 ? lb_subject_label(s) : "", rows[i].title);
				const double dv[3] = { d->avg, d->p99, d->max }, gv[3] = { g->avg, g->p99, g->max };
				for (int stat = 0; stat < 3; stat++) {
					if (d->n)
						fprintf(out, " %9.0f", dv[stat]);
					else
						fprintf(out, " %9s", "-");
					if (g->n)
						fprintf(out, " %9.0f", gv[stat]);
					else
						fprintf(out, " %9s", "-");
					if (stat < 2)
						fputc(' ', out);
				}
				if (d->n && g->n && g->max > 0)
					fprintf(out, " %8.2fx", d->max / g->max);
				fputc('\n', out);
			}
		}
	}
}

static void ratio_lines(FILE *out, const struct lb_results *r)
{
	struct lb_ratio q[LB_MAX_RATIOS];
	size_t n = lb_ratios(r, q);
	fprintf(out, "\nRatios of averages, measured in this run\n");
	for (size_t i = 0; i < n; i++) {
		if (!q[i].available)
			continue;
		fprintf(out, "  %-72s %6.2fx", q[i].what, q[i].value);
		if (q[i].target_max > 0)
			fprintf(out, "  target <= %.1fx  %s\n", q[i].target_max, lb_ratio_verdict(&q[i]));
		else
			fputc('\n', out);
	}
	syscall_target_lines(out, r);
}

void lb_view_table(FILE *out, const struct lb_results *r)
{
	const struct lb_machine *m = &r->machine;
	const struct lb_options *o = &r->opts;
	fprintf(out, "rtsched-lockbench %s: lock/unlock overheads, seed 001 Table I layout\n",
		RTSCHED_VERSION_STRING);
	fprintf(out, "machine   %s, %d CPUs; %s; glibc %s\n", m->cpu_model, m->ncpus, m->kernel,
		m->glibc);
	fprintf(out, "TSC       %.1f MHz, calibrated against CLOCK_MONOTONIC over %u ms in this run\n",
		m->tsc_hz / 1e6, m->calibration_ms);
	if (r->policy == SCHED_FIFO)
		fprintf(out, "threads   SCHED_FIFO %d (contended high thread and PRIO_PROTECT ceiling: "
			     "%d), pinned to CPU %d, %s\n",
			o->priority, o->priority + 1, o->cpu,
			r->mlocked ? "mlockall" : "NOT mlocked");
	else
		fprintf(out, "threads   SCHED_OTHER, pinned to CPU %d, %s\n          %s\n", o->cpu,
			r->mlocked ? "mlockall" : "NOT mlocked", r->policy_note);
	if (!r->mlocked)
		fprintf(out, "          %s\n", r->mlock_note);
	fprintf(out, "timer     rdtscp+lfence; two back-to-back reads: avg %.0f / 99%% %.0f / max %.0f "
		     "cycles, included in every lock and unlock figure\n",
		r->timer.avg, r->timer.p99, r->timer.max);
	fprintf(out, "pair      lock+unlock timed in batches of %d (timer cost amortised)\n",
		LB_PAIR_BATCH);

	bool any_mutex = false, any_cond = false;
	for (int s = 0; s < LB_NR_SUBJECTS; s++) {
		if (o->selected[s] && lb_subject_is_cond(s))
			any_cond = true;
		else if (o->selected[s])
			any_mutex = true;
	}
	if (any_mutex) {
		uncontended_table(out, r, false);
		uncontended_table(out, r, true);
		contended_table(out, r, false);
		contended_table(out, r, true);
	}
	if (any_cond)
		condvar_table(out, r);
	if (any_mutex && r->opts.workload_ms) {
		fprintf(out, "\nPeriodic task workload (seed 001 sec. VI-A, periods x%d): one sample per "
			     "operation; not switched out: TSC\nfrom the request (lock: or the holder's "
			     "release, if later) to the return; switched out: the caller's\n"
			     "on-CPU time in the call (perf time_running), the blocking time removed. "
			     "syscalls: a separate run.\n", LB_WL_PERIOD_SCALE);
		fprintf(out, "Columns: rts-* and protocol names are rtsched (deferred form unless -E, "
			     "eager); g-* glibc PTHREAD_PRIO_*.\n");
		for (int cls = 0; cls < LB_NR_WL_CLASSES; cls++)
			wl_section(out, r, cls);
	}
	if (any_mutex) {
		syscall_table(out, r);
		deferred_vs_eager(out, r);
	}
	ratio_lines(out, r);
}
