/* SPDX-License-Identifier: MIT */
/*
 * rtspin: LITMUS^RT's synthetic periodic task, on -llitmus, with liblitmus's options.
 *
 *   rtspin [OPTIONS] WCET_MS PERIOD_MS DURATION_S
 *   rtspin [OPTIONS] -C FILE[:COLUMN] WCET_MS PERIOD_MS [DURATION_S]
 *   rtspin -l | -B [-m PAGES] | -a 0
 *
 * liblitmus's options: -w (wait for release_ts), -p DOMAIN, -q PRIORITY,
 * -c hrt|srt|be, -d DEADLINE_MS, -o OFFSET_MS (phase), -e (enforcement),
 * -s SCALE (fraction of the job's WCET to spin, default 0.95), -u SLACK_MS /
 * -U FRACTION (random under-run), -m PAGES (touch a data footprint), -C
 * FILE[:COLUMN] (per-job execution times in ms from a CSV column), -A
 * FILE[:COLUMN] (inter-arrival times in ms, implies -T), -S[FILE] (a job per
 * read from FILE or stdin), -O[FILE] (a line per completed job to FILE or
 * stdout), -T (clock_nanosleep to the next release instead of
 * sleep_next_period), -D / -E MAX / MIN inter-arrival ms (imply -T),
 * -X PROTOCOL -L CS_MS -Q ID (a lock per job; its file: -F FILE, rtsched's,
 * default ./rtspin-locks as liblitmus), -v, -i (as -v; interrupt counts need
 * LITMUS's control page: not shown), -l (check the spin loop), -B
 * (background loop), -a CYCLES (accepted; spinning is by CPU time, so no
 * calibration: -a 0 says so), -h. Refused with the reason: -r VCPU and -R
 * (reservations are LITMUS^RT's P-RES).
 *
 * Each job spins for SCALE x its execution time of the thread's own CPU
 * time (so preemption does not shorten it and no calibration is needed).
 * Jobs run until DURATION_S seconds have passed since the first release
 * (-w: since the synchronous release). -v prints one line per job:
 * "rtspin/PID:JOB cpu=CPU"; the last line is always
 * "rtspin/PID: JOBS jobs, last job JOB". Exit 1: bad option; 2: the library
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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <litmus.h>

#define RTSPIN_CSV_ROWS_MAX 100000

struct rtspin_opts {
	bool wait;
	int cpu;            /* -1: not given */
	int priority;       /* 0: not given */
	task_class_t cls;
	bool enforce;
	bool verbose;
	bool loop_check;
	bool background;
	int protocol;       /* -1: no lock */
	double cs_ms;
	int lock_id;
	const char *lock_file;
	double wcet_ms, period_ms, duration_s;
	double deadline_ms, offset_ms;
	double scale;       /* fraction of a job's execution time spun */
	double underrun_ms, underrun_frac;
	long pages;         /* -m: data footprint */
	const char *cost_csv, *arrival_csv;
	int cost_column, arrival_column;
	bool linux_sleep;   /* -T */
	double iat_min_ms, iat_max_ms;
	int event_fd;       /* -S: -1 none */
	int output_fd;      /* -O: -1 none */
};

/* why NULL: -h, the usage on stdout and exit 0; else the reason, on stderr, exit 1. */
__attribute__((noreturn)) static void usage(const char *why)
{
	fprintf(why ? stderr : stdout,
		"%s%s%s"
		"usage: rtspin [-w] [-p DOMAIN] [-q PRIORITY] [-c hrt|srt|be] [-d DEADLINE_MS]\n"
		"              [-o OFFSET_MS] [-e] [-s SCALE] [-u SLACK_MS | -U FRACTION] [-m PAGES]\n"
		"              [-C FILE[:COL]] [-A FILE[:COL]] [-S[FILE]] [-O[FILE]] [-T]\n"
		"              [-D MAX_MS] [-E MIN_MS] [-X PROTOCOL -L CS_MS [-Q ID] [-F FILE]] [-v] [-i]\n"
		"              WCET_MS PERIOD_MS DURATION_S\n"
		"       rtspin -l | -B [-m PAGES] | -a 0 | -h\n",
		why ? "rtspin: " : "", why ? why : "", why ? "\n" : "");
	exit(why ? 1 : 0);
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

/* FILE[:COLUMN] (COLUMN from 1, default 1): the file name is cut at the last ':'. */
static int split_column(char *arg, const char *what)
{
	char *colon = strrchr(arg, ':');
	if (!colon)
		return 1;
	*colon = '\0';
	double c = parse_number(colon + 1, what);
	if (c < 1)
		usage("the CSV column counts from 1");
	return (int)c;
}

/* Column `column` of every line of a CSV file, as numbers; exits with the line on bad input. */
static double *csv_column(const char *path, int column, int *rows)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "rtspin: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	double *v = malloc(sizeof(*v) * RTSPIN_CSV_ROWS_MAX);
	char line[4096];
	int n = 0, line_no = 0;
	while (v && n < RTSPIN_CSV_ROWS_MAX && fgets(line, sizeof(line), f)) {
		line_no++;
		char *field = line;
		for (int c = 1; c < column && field; c++) {
			field = strchr(field, ',');
			field = field ? field + 1 : NULL;
		}
		char *end;
		double x = field ? strtod(field, &end) : 0;
		if (!field || end == field || x < 0) {
			fprintf(stderr, "rtspin: %s:%d: no non-negative number in column %d\n", path,
				line_no, column);
			exit(1);
		}
		v[n++] = x;
	}
	fclose(f);
	if (!v || n == 0) {
		fprintf(stderr, "rtspin: %s: no rows\n", path);
		exit(1);
	}
	*rows = n;
	return v;
}

static int open_or(const char *path, int flags, int fallback, const char *what)
{
	if (!path || strcmp(path, "-") == 0)
		return fallback;
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "rtspin: %s %s: %s\n", what, path, strerror(errno));
		exit(1);
	}
	return fd;
}

static void parse(int argc, char **argv, struct rtspin_opts *o)
{
	*o = (struct rtspin_opts){ .cpu = -1, .cls = RT_CLASS_HARD, .protocol = -1,
				   .lock_file = "./rtspin-locks", .scale = 0.95, .cost_column = 1,
				   .arrival_column = 1, .event_fd = -1, .output_fd = -1 };
	int opt;
	while ((opt = getopt(argc, argv, "p:c:wlveo:s:m:q:r:X:L:Q:iRu:U:Bhd:C:S::O::TD:E:A:a:F:")) != -1) {
		switch (opt) {
		case 'w': o->wait = true; break;
		case 'p': o->cpu = (int)parse_number(optarg, "-p DOMAIN"); break;
		case 'q':
			o->priority = (int)parse_number(optarg, "-q PRIORITY");
			if (!litmus_is_valid_fixed_prio(o->priority))
				usage("-q: a priority is 1 (highest) .. 511 (lowest)");
			break;
		case 'c':
			o->cls = str2class(optarg);
			if ((int)o->cls == -1)
				usage("-c: the class is hrt, srt or be");
			break;
		case 'e': o->enforce = true; break;
		case 'v': o->verbose = true; break;
		case 'i': o->verbose = true; break; /* interrupt counts: LITMUS's control page */
		case 'l': o->loop_check = true; break;
		case 'B': o->background = true; break;
		case 'h': usage(NULL);
		case 'a':
			if (parse_number(optarg, "-a CYCLES") == 0) {
				printf("rtspin spins by the thread's CPU time: no calibration needed\n");
				exit(0);
			}
			break;
		case 'r':
		case 'R':
			fprintf(stderr, "rtspin: -%c: reservations are LITMUS^RT's P-RES plugin; a stock "
					"kernel has none (docs/from-litmus.md)\n", opt);
			exit(2);
		case 'd': o->deadline_ms = parse_number(optarg, "-d DEADLINE_MS"); break;
		case 'o': o->offset_ms = parse_number(optarg, "-o OFFSET_MS"); break;
		case 's': o->scale = parse_number(optarg, "-s SCALE"); break;
		case 'u': o->underrun_ms = parse_number(optarg, "-u SLACK_MS"); break;
		case 'U':
			o->underrun_frac = parse_number(optarg, "-U FRACTION");
			if (o->underrun_frac <= 0 || o->underrun_frac > 1)
				usage("-U: the fraction is in (0, 1]");
			break;
		case 'm': o->pages = (long)parse_number(optarg, "-m PAGES"); break;
		case 'C':
			o->cost_column = split_column(optarg, "-C FILE:COLUMN");
			o->cost_csv = optarg;
			break;
		case 'A':
			o->arrival_column = split_column(optarg, "-A FILE:COLUMN");
			o->arrival_csv = optarg;
			o->linux_sleep = true;
			break;
		case 'S': o->event_fd = open_or(optarg, O_RDONLY, STDIN_FILENO, "-S"); break;
		case 'O': o->output_fd = open_or(optarg, O_WRONLY | O_APPEND, STDOUT_FILENO, "-O"); break;
		case 'T': o->linux_sleep = true; break;
		case 'D':
			o->iat_max_ms = parse_number(optarg, "-D MAX_MS");
			o->linux_sleep = true;
			break;
		case 'E':
			o->iat_min_ms = parse_number(optarg, "-E MIN_MS");
			o->linux_sleep = true;
			break;
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
	if (o->loop_check || o->background)
		return;
	int args = argc - optind;
	if (args != 3 && !(args == 2 && o->cost_csv))
		usage("expected WCET_MS PERIOD_MS DURATION_S");
	o->wcet_ms = parse_number(argv[optind], "WCET_MS");
	o->period_ms = parse_number(argv[optind + 1], "PERIOD_MS");
	o->duration_s = args == 3 ? parse_number(argv[optind + 2], "DURATION_S") : 0;
	if (o->wcet_ms <= 0 || o->period_ms <= 0)
		usage("WCET_MS and PERIOD_MS must be positive");
	if (!o->cost_csv && o->wcet_ms > o->period_ms)
		usage("WCET_MS must not exceed PERIOD_MS");
	if (o->protocol >= 0 && o->cs_ms >= o->wcet_ms * o->scale)
		usage("-L CS_MS must be shorter than the job's spin (SCALE x WCET_MS)");
	if (o->protocol < 0 && o->cs_ms > 0)
		usage("-L needs -X PROTOCOL");
	if (o->underrun_frac > 0)
		o->underrun_ms = o->underrun_frac * o->wcet_ms;
	if (o->iat_min_ms == 0)
		o->iat_min_ms = o->period_ms;
	if (o->iat_max_ms < o->iat_min_ms)
		o->iat_max_ms = o->iat_min_ms;
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

/* -m: a footprint of pages, locked and touched once; each job touches one at random. */
static char *footprint;
static long footprint_pages;

static void footprint_make(long pages)
{
	if (pages <= 0)
		return;
	long page = sysconf(_SC_PAGESIZE);
	footprint = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
			 MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (footprint == MAP_FAILED) {
		fprintf(stderr, "rtspin: -m %ld: %s\n", pages, strerror(errno));
		exit(1);
	}
	mlock(footprint, (size_t)(pages * page));
	memset(footprint, 1, (size_t)(pages * page));
	footprint_pages = pages;
}

static void footprint_touch(void)
{
	if (footprint_pages <= 0)
		return;
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = footprint + (lrand48() % footprint_pages) * page;
	for (long i = 0; i < page; i += 64)
		p[i]++;
}

/* This job's spin: from -C's column or WCET less a random under-run, times SCALE (ms). */
static double job_exec_ms(const struct rtspin_opts *o, const double *costs, int n_costs,
			  unsigned job_index)
{
	double ms = costs ? costs[job_index % (unsigned)n_costs]
			  : o->wcet_ms - drand48() * o->underrun_ms;
	return (ms < 0 ? 0 : ms) * o->scale;
}

static void job_body(int od, lt_t body, lt_t cs)
{
	footprint_touch();
	if (od < 0) {
		spin_cpu_ns(body);
		return;
	}
	spin_cpu_ns((body - cs) / 2);
	if (litmus_lock(od) < 0)
		bail("litmus_lock");
	spin_cpu_ns(cs);
	if (litmus_unlock(od) < 0)
		bail("litmus_unlock");
	spin_cpu_ns(body - cs - (body - cs) / 2);
}

int main(int argc, char **argv)
{
	struct rtspin_opts o;
	parse(argc, argv, &o);
	if (o.loop_check) {
		check_loop();
		return 0;
	}
	footprint_make(o.pages);
	if (o.background) {
		for (;;) {
			footprint_touch();
			spin_cpu_ns(ms2ns(1));
		}
	}
	int n_costs = 0, n_arrivals = 0;
	double *costs = o.cost_csv ? csv_column(o.cost_csv, o.cost_column, &n_costs) : NULL;
	double *arrivals = o.arrival_csv ? csv_column(o.arrival_csv, o.arrival_column, &n_arrivals)
					 : NULL;
	/* One pass over the file, as liblitmus: one job per row. The time bound alone would let a
	 * job more run when the first release came before `next_release` is read below. */
	unsigned job_limit = 0;
	if (costs && o.duration_s == 0) {
		o.duration_s = n_costs * o.period_ms * 1e-3;
		job_limit = (unsigned)n_costs;
	}
	srand48(getpid());
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = (lt_t)(o.wcet_ms * 1e6);
	p.period = (lt_t)(o.period_ms * 1e6);
	p.relative_deadline = (lt_t)(o.deadline_ms * 1e6);
	p.phase = (lt_t)(o.offset_ms * 1e6);
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
	lt_t next_release = litmus_clock();
	lt_t end = next_release + (lt_t)(o.duration_s * 1e9);
	lt_t cs = (lt_t)(o.cs_ms * 1e6);
	unsigned jobs = 0, job = 0;
	char input[4096];
	while (litmus_clock() < end && (!job_limit || jobs < job_limit)) {
		if (o.event_fd >= 0) { /* -S: a job per read */
			ssize_t got = read(o.event_fd, input, sizeof(input) - 1);
			if (got <= 0)
				break;
		}
		get_job_no(&job);
		if (o.verbose)
			printf("rtspin/%d:%u cpu=%d\n", (int)getpid(), job, sched_getcpu());
		lt_t body = (lt_t)(job_exec_ms(&o, costs, n_costs, jobs) * 1e6);
		job_body(od, body < cs ? cs : body, cs);
		if (o.output_fd >= 0)
			dprintf(o.output_fd, "(rtspin/%d:%u completed @ %llu ns)\n", (int)getpid(), job,
				(unsigned long long)litmus_clock());
		jobs++;
		if (o.event_fd >= 0)
			continue; /* sporadic: the next read releases the next job */
		if (o.linux_sleep) { /* -T: a self-suspension as the plugin sees it */
			double iat_ms = arrivals ? arrivals[(jobs - 1) % (unsigned)n_arrivals]
						 : o.iat_min_ms + drand48() * (o.iat_max_ms - o.iat_min_ms);
			next_release += (lt_t)(iat_ms * 1e6);
			lt_sleep_until(next_release);
		} else if (sleep_next_period() < 0) {
			bail("sleep_next_period");
		}
	}
	if (task_mode(BACKGROUND_TASK) < 0)
		bail("task_mode(BACKGROUND_TASK)");
	printf("rtspin/%d: %u jobs, last job %u\n", (int)getpid(), jobs, job);
	if (od >= 0)
		od_close(od);
	exit_litmus();
	free(costs);
	free(arrivals);
	return 0;
}
