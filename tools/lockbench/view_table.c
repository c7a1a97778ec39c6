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
		if (!r->opts.selected[s])
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
	if (any_mutex)
		syscall_table(out, r);
	ratio_lines(out, r);
}
