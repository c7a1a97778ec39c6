/* SPDX-License-Identifier: MIT */
/*
 * rtspin: LITMUS^RT's synthetic periodic task, on -llitmus.
 *
 *   rtspin [-w] [-p CPU] [-q PRIORITY] [-c CLASS] [-e] [-v]
 *          [-X PROTOCOL -L CS_MS [-Q LOCK_ID] [-F FILE]] WCET_MS PERIOD_MS DURATION_S
 *   rtspin -l
 *
 * Each job spins for 90% of WCET_MS of the thread's own CPU time (so
 * preemption does not shorten it and no calibration is needed), holding
 * lock LOCK_ID of FILE (protocol PROTOCOL: FMLP, SRP, PCP, MPCP) for CS_MS
 * of it when -X is given, then calls sleep_next_period. Jobs run until
 * DURATION_S seconds have passed since the first release (-w: since the
 * synchronous release, see release_ts). -v prints one line per job:
 * "rtspin/PID:JOB cpu=CPU"; the last line is always
 * "rtspin/PID: JOBS jobs, last job JOB". -l checks the CPU-time loop
 * (requested vs. consumed) and exits. Exit 1: bad option; 2: the library
 * refused (its reason is printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <litmus.h>

struct rtspin_opts {
	bool wait;
	int cpu;            /* -1: not given */
	int priority;       /* 0: not given */
	task_class_t cls;
	bool enforce;
	bool verbose;
	bool loop_check;
	int protocol;       /* -1: no lock */
	double cs_ms;
	int lock_id;
	const char *lock_file;
	double wcet_ms, period_ms, duration_s;
};

static void usage(const char *why)
{
	fprintf(stderr,
		"rtspin: %s\n"
		"usage: rtspin [-w] [-p CPU] [-q PRIORITY] [-c hard|soft|be] [-e] [-v]\n"
		"              [-X FMLP|SRP|PCP|MPCP -L CS_MS [-Q LOCK_ID] [-F FILE]]\n"
		"              WCET_MS PERIOD_MS DURATION_S\n"
		"       rtspin -l\n",
		why);
	exit(1);
}

static double parse_number(const char *s, const char *what)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < 0) {
		char why[128];
		snprintf(why, sizeof(why), "%s: \"%s\" is not a non-negative number", what, s);
		usage(why);
	}
	return v;
}

static void bail(const char *what)
{
	fprintf(stderr, "rtspin: %s: %s (%s)\n", what, litmus_last_error(), strerror(errno));
	exit(2);
}

/* Busy for ns of this thread's CPU time; touches a small array like LITMUS's loop. */
static void spin_cpu_ns(lt_t ns)
{
	static volatile int work[1024];
	double until = cputime() + 1e-9 * (double)ns;
	while (cputime() < until)
		for (int i = 0; i < 1024; i++)
			work[i] += i;
}

static void check_loop(void)
{
	for (int ms = 10; ms <= 50; ms += 10) {
		double t0 = cputime();
		spin_cpu_ns(ms2ns(ms));
		double used_ms = 1e3 * (cputime() - t0);
		printf("requested %3d ms of CPU time: consumed %.3f ms (error %+.2f%%)\n", ms, used_ms,
		       100.0 * (used_ms - ms) / ms);
	}
}

static void parse(int argc, char **argv, struct rtspin_opts *o)
{
	*o = (struct rtspin_opts){ .cpu = -1, .cls = RT_CLASS_SOFT, .protocol = -1,
				   .lock_file = ".rtspin-locks" };
	int opt;
	while ((opt = getopt(argc, argv, "wp:q:c:evlX:L:Q:F:")) != -1) {
		switch (opt) {
		case 'w': o->wait = true; break;
		case 'p': o->cpu = (int)parse_number(optarg, "-p CPU"); break;
		case 'q': o->priority = (int)parse_number(optarg, "-q PRIORITY"); break;
		case 'c':
			o->cls = str2class(optarg);
			if ((int)o->cls == -1)
				usage("-c: the class is hard, soft or be");
			break;
		case 'e': o->enforce = true; break;
		case 'v': o->verbose = true; break;
		case 'l': o->loop_check = true; break;
		case 'X':
			o->protocol = lock_protocol_for_name(optarg);
			if (o->protocol < 0)
				usage("-X: unknown protocol (FMLP, SRP, PCP, MPCP)");
			break;
		case 'L': o->cs_ms = parse_number(optarg, "-L CS_MS"); break;
		case 'Q': o->lock_id = (int)parse_number(optarg, "-Q LOCK_ID"); break;
		case 'F': o->lock_file = optarg; break;
		default: usage("unknown option");
		}
	}
	if (o->loop_check)
		return;
	if (argc - optind != 3)
		usage("expected WCET_MS PERIOD_MS DURATION_S");
	o->wcet_ms = parse_number(argv[optind], "WCET_MS");
	o->period_ms = parse_number(argv[optind + 1], "PERIOD_MS");
	o->duration_s = parse_number(argv[optind + 2], "DURATION_S");
	if (o->wcet_ms <= 0 || o->period_ms <= 0)
		usage("WCET_MS and PERIOD_MS must be positive");
	if (o->wcet_ms > o->period_ms)
		usage("WCET_MS must not exceed PERIOD_MS");
	if (o->protocol >= 0 && o->cs_ms >= o->wcet_ms * 0.9)
		usage("-L CS_MS must be shorter than the job's 90% of WCET_MS");
	if (o->protocol < 0 && o->cs_ms > 0)
		usage("-L needs -X PROTOCOL");
}

static int open_lock(const struct rtspin_opts *o)
{
	int cpu = o->cpu < 0 ? 0 : o->cpu;
	int od = litmus_open_lock((obj_type_t)o->protocol, o->lock_id, o->lock_file,
				  o->protocol == PCP_SEM ? &cpu : NULL);
	if (od < 0)
		bail("opening the lock");
	return od;
}

int main(int argc, char **argv)
{
	struct rtspin_opts o;
	parse(argc, argv, &o);
	if (o.loop_check) {
		check_loop();
		return 0;
	}
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = (lt_t)(o.wcet_ms * 1e6);
	p.period = (lt_t)(o.period_ms * 1e6);
	p.relative_deadline = p.period;
	p.cls = o.cls;
	p.budget_policy = o.enforce ? PRECISE_ENFORCEMENT : NO_ENFORCEMENT;
	p.release_policy = TASK_PERIODIC;
	if (o.priority)
		p.priority = (unsigned)o.priority;
	if (o.cpu >= 0) { /* -p names a domain: a CPU, or a C-EDF cluster by its first CPU */
		int first_cpu = domain_to_first_cpu(o.cpu);
		if (first_cpu < 0)
			bail("-p: the domain");
		p.cpu = (unsigned)first_cpu;
		if (be_migrate_to_domain(o.cpu) < 0)
			bail("migrating to the partition");
	}
	if (init_litmus() < 0)
		bail("init_litmus");
	if (set_rt_task_param(gettid(), &p) < 0)
		bail("set_rt_task_param");
	if (task_mode(LITMUS_RT_TASK) < 0)
		bail("task_mode(LITMUS_RT_TASK)");
	/* Opened by the real-time task: the ceiling protocols take their ceilings from openers. */
	int od = o.protocol >= 0 ? open_lock(&o) : -1;
	if (o.wait && wait_for_ts_release() < 0)
		bail("wait_for_ts_release");
	lt_t end = litmus_clock() + (lt_t)(o.duration_s * 1e9);
	lt_t body = (lt_t)(o.wcet_ms * 0.9e6), cs = (lt_t)(o.cs_ms * 1e6);
	unsigned jobs = 0, job = 0;
	while (litmus_clock() < end) {
		get_job_no(&job);
		if (o.verbose)
			printf("rtspin/%d:%u cpu=%d\n", (int)getpid(), job, sched_getcpu());
		if (od >= 0) {
			spin_cpu_ns((body - cs) / 2);
			if (litmus_lock(od) < 0)
				bail("litmus_lock");
			spin_cpu_ns(cs);
			if (litmus_unlock(od) < 0)
				bail("litmus_unlock");
			spin_cpu_ns(body - cs - (body - cs) / 2);
		} else {
			spin_cpu_ns(body);
		}
		jobs++;
		if (sleep_next_period() < 0)
			bail("sleep_next_period");
	}
	if (task_mode(BACKGROUND_TASK) < 0)
		bail("task_mode(BACKGROUND_TASK)");
	printf("rtspin/%d: %u jobs, last job %u\n", (int)getpid(), jobs, job);
	if (od >= 0)
		od_close(od);
	exit_litmus();
	return 0;
}
