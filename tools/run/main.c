/* SPDX-License-Identifier: MIT */
/*
 * rtsched-run: execute a resolved task set (docs/runner-input.md) on this
 * machine with synthetic job bodies, and write its trace.
 *
 *   rtsched-run SPEC.json [--quiet | --json]
 *   rtsched-run --cleanup          remove what an interrupted run left behind
 *
 * At the end of a run it prints, per task, its jobs, misses, overruns and
 * largest response, tardiness and release latency, and per CPU with
 * reservations the time its scheduler spent on them: as a table, or with
 * --json as one JSON object (print_figures_json), which `rtsched run` reads.
 *
 * Exit codes: 0 the run completed; 1 the run could not be set up (the kernel
 * refused a task, cpusets failed, ...); 2 usage or input error; 128+signal
 * when SIGINT / SIGTERM / SIGHUP ended it early (after a clean teardown).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include <rtsched/reservation.h>
#include <rtsched/task.h>
#include <rtsched/trace.h>

#include "body.h"
#include "cpusets.h"
#include "taskgroups.h"
#include "reservations.h"
#include "spec.h"
#include "clock_ns.h"
#include "jsonw.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_SETUP_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_TRACE_FAILED = 3, /* the run went to its end, but its trace could not be written whole */
};

struct options {
	const char *spec_file;
	bool cleanup_only;
	bool quiet;
	bool json; /* the end-of-run figures as one JSON object on stdout */
};

static int usage(const char *message)
{
	if (message)
		fprintf(stderr, "rtsched-run: %s\n", message);
	fprintf(stderr, "usage: rtsched-run SPEC.json [--quiet | --json]\n"
			"       rtsched-run --cleanup\n");
	return EXIT_USAGE;
}

static int parse_options(int argc, char **argv, struct options *options)
{
	memset(options, 0, sizeof(*options));
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cleanup") == 0)
			options->cleanup_only = true;
		else if (strcmp(argv[i], "--quiet") == 0)
			options->quiet = true;
		else if (strcmp(argv[i], "--json") == 0)
			options->json = true;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return usage(NULL), -1;
		else if (argv[i][0] == '-')
			return -2;
		else if (options->spec_file)
			return -3;
		else
			options->spec_file = argv[i];
	}
	if (!options->cleanup_only && !options->spec_file)
		return -4;
	return 0;
}

static sigset_t stop_signals(void)
{
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGHUP);
	return signals;
}

/* Sleep until `end_ns` or a stop signal; the signal number, or 0. */
static int wait_for_end(int64_t end_ns)
{
	sigset_t signals = stop_signals();
	for (;;) {
		int64_t left = end_ns - clock_ns(CLOCK_MONOTONIC);
		if (left <= 0)
			return 0;
		struct timespec timeout = ns_timespec(left);
		int signo = sigtimedwait(&signals, NULL, &timeout);
		if (signo > 0)
			return signo;
		if (errno != EAGAIN && errno != EINTR)
			return 0;
	}
}

/*
 * The thread that ends the run waits above every task: under SCHED_OTHER, a
 * task that keeps its CPU busy past the end (and other work on the other
 * CPUs) held it off for 50 ms on a loaded 2-CPU VM, and the starved tasks
 * then started jobs released after the end. It only sleeps until then. With
 * less than the highest priority allowed (RLIMIT_RTPRIO), the highest it may
 * take; with none, it stays as it is (the report leaves out jobs released
 * after the end either way: report/jobs.py).
 */
static void wait_above_the_tasks(void)
{
	struct sched_param param = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };
	struct rlimit limit;
	if (sched_setscheduler(0, SCHED_FIFO, &param) == 0 || getrlimit(RLIMIT_RTPRIO, &limit) != 0 ||
	    limit.rlim_cur == 0)
		return;
	param.sched_priority = limit.rlim_cur < (rlim_t)param.sched_priority ? (int)limit.rlim_cur
									 : param.sched_priority;
	(void)sched_setscheduler(0, SCHED_FIFO, &param);
}

/* While tasks are joined, keep waking jobs that wait on condvars. */
struct unblocker {
	struct run_world *world;
	atomic_bool done;
};

static void *unblock_waits(void *arg)
{
	struct unblocker *unblocker = arg;
	while (!atomic_load(&unblocker->done)) {
		run_world_stop(unblocker->world);
		struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void stop_and_join(rts_taskset_t *set, struct run_world *world)
{
	struct unblocker unblocker = { .world = world };
	pthread_t thread;
	run_world_stop(world);
	rts_taskset_stop(set);
	bool helper = pthread_create(&thread, NULL, unblock_waits, &unblocker) == 0;
	rts_taskset_join(set);
	atomic_store(&unblocker.done, true);
	if (helper)
		pthread_join(thread, NULL);
}

static void print_summary(const struct run_spec *spec, rts_task_t **tasks, size_t n_tasks)
{
	printf("%-20s %8s %8s %8s %14s %14s %14s\n", "task", "jobs", "misses", "overruns",
	       "max resp (us)", "max tard (us)", "max rel lat (us)");
	for (size_t i = 0; i < n_tasks; i++) {
		struct rts_task_stats stats;
		rts_task_stats(tasks[i], &stats);
		printf("%-20s %8u %8u %8u %14.1f %14.1f %14.1f\n", spec->tasks[i].name,
		       stats.jobs_completed, stats.deadline_misses, stats.budget_overruns,
		       stats.max_response_ns / 1e3, stats.max_tardiness_ns / 1e3,
		       stats.max_release_latency_ns / 1e3);
	}
}

/* Whether reservation i is the first top-level one on its CPU (the overhead is its
 * CPU scheduler's, reported once per CPU). */
static bool first_on_its_cpu(const struct run_spec *spec, size_t i)
{
	const struct run_reservation *res = &spec->reservations[i];
	if (res->parent >= 0)
		return false;
	for (size_t j = 0; j < i; j++)
		if (spec->reservations[j].parent < 0 && spec->reservations[j].cpu == res->cpu)
			return false;
	return true;
}

/* Per CPU with reservations: the time its scheduler spent on them and on the budget
 * controller, beside the run's length (docs/reservations.md, "Overhead"). */
static void print_reservation_overhead(const struct run_spec *spec)
{
	for (size_t i = 0; i < spec->n_reservations; i++) {
		const struct run_reservation *res = &spec->reservations[i];
		struct rts_reservation_overhead o;
		if (!first_on_its_cpu(spec, i) || rts_reservation_overhead(res->handle, &o) != 0)
			continue;
		double run_ns = (double)spec->duration_ns;
		printf("reservations on CPU %d: %llu decisions, %.3f ms (%.4f%% of the run); "
		       "controller: %u runs, %.3f ms (%.4f%%)\n", res->cpu, (unsigned long long)o.decisions,
		       o.decision_ns / 1e6, 100.0 * o.decision_ns / run_ns, o.controls, o.control_ns / 1e6,
		       100.0 * o.control_ns / run_ns);
	}
}

/*
 * The same figures as one JSON object on one line, in ns (docs/run.md, "The runner's figures"):
 *   {"tasks": [{"name", "jobs_completed", "deadline_misses", "budget_overruns",
 *               "max_response_ns", "max_tardiness_ns", "max_release_latency_ns"}, ...],
 *    "reservation_overhead": [{"cpu", "decisions", "decision_ns", "controls", "control_ns"}, ...]}
 */
static void print_figures_json(const struct run_spec *spec, rts_task_t **tasks, size_t n_tasks)
{
	struct jw w;
	jw_init(&w, stdout);
	jw_object_begin(&w);
	jw_key(&w, "tasks");
	jw_array_begin(&w);
	for (size_t i = 0; i < n_tasks; i++) {
		struct rts_task_stats stats;
		rts_task_stats(tasks[i], &stats);
		jw_object_begin(&w);
		jw_key(&w, "name");
		jw_string(&w, spec->tasks[i].name);
		jw_key(&w, "jobs_completed");
		jw_uint(&w, stats.jobs_completed);
		jw_key(&w, "deadline_misses");
		jw_uint(&w, stats.deadline_misses);
		jw_key(&w, "budget_overruns");
		jw_uint(&w, stats.budget_overruns);
		jw_key(&w, "max_response_ns");
		jw_int(&w, stats.max_response_ns);
		jw_key(&w, "max_tardiness_ns");
		jw_int(&w, stats.max_tardiness_ns);
		jw_key(&w, "max_release_latency_ns");
		jw_int(&w, stats.max_release_latency_ns);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_key(&w, "reservation_overhead");
	jw_array_begin(&w);
	for (size_t i = 0; i < spec->n_reservations; i++) {
		const struct run_reservation *res = &spec->reservations[i];
		struct rts_reservation_overhead o;
		if (!first_on_its_cpu(spec, i) || rts_reservation_overhead(res->handle, &o) != 0)
			continue;
		jw_object_begin(&w);
		jw_key(&w, "cpu");
		jw_int(&w, res->cpu);
		jw_key(&w, "decisions");
		jw_uint(&w, o.decisions);
		jw_key(&w, "decision_ns");
		jw_int(&w, (int64_t)o.decision_ns);
		jw_key(&w, "controls");
		jw_uint(&w, o.controls);
		jw_key(&w, "control_ns");
		jw_int(&w, (int64_t)o.control_ns);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_object_end(&w);
	fputc('\n', stdout);
}

struct run {
	struct run_spec spec;
	struct run_world world;
	struct run_cpusets cpusets;
	struct run_taskgroups taskgroups;
	struct rts_trace *trace;
	rts_taskset_t *set;
	rts_task_t **tasks;
	struct run_task_context *contexts;
	char error[1024];
};

static int open_trace(struct run *run)
{
	if (!run->spec.trace_path[0])
		return 0;
	struct rts_trace_config config = {
		.path = run->spec.trace_path,
		.name = run->spec.name,
		.buffer_events = run->spec.trace_buffer_events,
		.ftrace_markers = run->spec.trace_ftrace_markers,
		.error_buf = run->error,
		.error_buf_size = sizeof(run->error),
	};
	int err = rts_trace_open(&run->trace, &config);
	if (err && !run->error[0])
		snprintf(run->error, sizeof(run->error), "trace %s: %s", run->spec.trace_path,
			 strerror(err));
	return err;
}

/*
 * The set's backend (docs/runner-input.md `backend`). The ult backend splits
 * the process's CPU affinity, as it is when the backend is chosen, into its
 * clusters, so the runner narrows its affinity to the run's CPUs for that
 * moment (the workers pin themselves), then gives this thread back the CPUs
 * it had: it stops the run at its end, and on the run's CPUs, under
 * SCHED_OTHER, it would wait behind SCHED_FIFO workers that keep an
 * overloaded CPU busy until RT throttling lets it in (up to a second late).
 */
static int choose_backend(struct run *run)
{
	const struct run_spec *spec = &run->spec;
	if (strcmp(spec->backend, "threads") == 0)
		return 0;
	cpu_set_t before;
	if (sched_getaffinity(0, sizeof(before), &before) != 0) {
		int err = errno;
		snprintf(run->error, sizeof(run->error), "backend %s: cannot read the runner's CPUs: %s",
			 spec->backend, strerror(err));
		return err;
	}
	if (sched_setaffinity(0, sizeof(spec->cpus), &spec->cpus) != 0) {
		int err = errno;
		snprintf(run->error, sizeof(run->error),
			 "backend %s: cannot restrict the runner to the run's CPUs: %s", spec->backend,
			 strerror(err));
		return err;
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && !CPU_EQUAL(&allowed, &spec->cpus)) {
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (CPU_ISSET(cpu, &spec->cpus) && !CPU_ISSET(cpu, &allowed)) {
				snprintf(run->error, sizeof(run->error),
					 "backend %s: CPU %d is not one the runner may use (its cpuset "
					 "leaves it out: a CPU shield or another exclusive cpuset holds it)",
					 spec->backend, cpu);
				return EINVAL;
			}
		}
	}
	int err = rts_taskset_set_backend(run->set, spec->backend);
	if (err) {
		snprintf(run->error, sizeof(run->error), "backend %s: %s", spec->backend,
			 rts_taskset_error(run->set)[0] ? rts_taskset_error(run->set) : strerror(err));
		return err;
	}
	if (sched_setaffinity(0, sizeof(before), &before) != 0) {
		err = errno;
		snprintf(run->error, sizeof(run->error),
			 "backend %s: cannot give the runner back its CPUs: %s", spec->backend,
			 strerror(err));
	}
	return err;
}

static int create_tasks(struct run *run)
{
	const struct run_spec *spec = &run->spec;
	run->tasks = calloc(spec->n_tasks ? spec->n_tasks : 1, sizeof(*run->tasks));
	run->contexts = calloc(spec->n_tasks ? spec->n_tasks : 1, sizeof(*run->contexts));
	if (!run->tasks || !run->contexts)
		return ENOMEM;
	int err = rts_taskset_create(&run->set, run->trace);
	if (err) {
		snprintf(run->error, sizeof(run->error), "cannot create the task set: %s",
			 strerror(err));
		return err;
	}
	err = choose_backend(run);
	if (err)
		return err;
	run->world.tasks = run->tasks;
	err = run_reservations_create(run->set, &run->spec, &run->cpusets, run->error, sizeof(run->error));
	if (!err) /* before the tasks: their streams come first, as their ids do */
		err = run_servers_create(run->world.servers, spec->n_servers, run->set, run->error,
					 sizeof(run->error));
	if (err)
		return err;
	for (size_t i = 0; i < spec->n_tasks; i++) {
		struct run_task *task = &spec->tasks[i];
		struct run_task_context *context = &run->contexts[i];
		context->world = &run->world;
		context->task = task;
		context->held = calloc(spec->n_resources ? spec->n_resources : 1, sizeof(bool));
		if (!context->held || run_prem_memory_init(&context->prem, task) != 0)
			return ENOMEM;
		err = run_writes_init(&context->writes, task, i, run->error, sizeof(run->error));
		if (err)
			return err;
		task->params.cpuset = task->cpuset >= 0 ? run->cpusets.dirs[task->cpuset] : NULL;
		task->params.cgroup = task->taskgroup; /* its whole path (taskgroups.c) */
		task->params.trace_task_id = (int32_t)i;
		err = rts_task_create(run->set, &task->params, run_job_body, context, &run->tasks[i]);
		if (err) {
			snprintf(run->error, sizeof(run->error), "%s", rts_taskset_error(run->set));
			return err;
		}
	}
	return 0;
}

/* Stops and frees everything; true when the trace could not be written whole (the
 * reason is printed: a full disk leaves a trace cut short, never to be taken as the run). */
static bool tear_down(struct run *run)
{
	bool trace_failed = false;
	if (run->set) {
		stop_and_join(run->set, &run->world);
		rts_taskset_destroy(run->set);
		run->set = NULL;
	}
	if (run->world.servers) /* after the set (its server tasks too) is joined */
		run_servers_destroy(run->world.servers, run->spec.n_servers);
	if (run->trace) {
		uint64_t lost = rts_trace_lost_events(run->trace);
		run->error[0] = '\0'; /* the trace's own explanation goes here (open_trace's error_buf) */
		if (rts_trace_close(run->trace) != 0) {
			fprintf(stderr, "rtsched-run: writing the trace %s failed: %s\n", run->spec.trace_path,
				run->error[0] ? run->error : "unknown error");
			trace_failed = true;
		}
		if (lost)
			fprintf(stderr, "rtsched-run: %llu trace events lost (rings full): "
					"raise trace.buffer_events\n", (unsigned long long)lost);
		run->trace = NULL;
	}
	run_cpusets_remove(&run->cpusets);
	run_taskgroups_remove(&run->taskgroups); /* the set's threads have ended */
	for (size_t i = 0; run->contexts && i < run->spec.n_tasks; i++) {
		free(run->contexts[i].held);
		run_prem_memory_destroy(&run->contexts[i].prem);
		run_writes_report(&run->contexts[i].writes, &run->spec.tasks[i]);
		run_writes_destroy(&run->contexts[i].writes);
	}
	free(run->contexts);
	free(run->tasks);
	run_world_destroy(&run->world);
	run_spec_free(&run->spec);
	return trace_failed;
}

/* Under the ult backend, when the tasks' CPU time was not read from the perf page
 * extrapolated (a system call or a wall-clock read per switch instead), why: once, on
 * stderr (summary.json's runner_messages). */
static void note_cpu_clock(const rts_taskset_t *set)
{
	const char *why = "";
	const char *method = rts_taskset_cpu_clock(set, &why);
	if (method && strcmp(method, "perf-mmap") != 0)
		fprintf(stderr, "rtsched-run: note: ult CPU clock %s: %s\n", method, why);
}

static int execute(struct run *run, const struct options *options)
{
	const struct run_spec *spec = &run->spec;
	if (run_cpusets_create(spec, &run->cpusets, run->error, sizeof(run->error)) != 0 ||
	    run_taskgroups_create(&run->spec, &run->taskgroups, run->error, sizeof(run->error)) != 0)
		return EXIT_SETUP_FAILED;
	if (run_world_init(&run->world, spec) != 0 || open_trace(run) != 0 ||
	    run_servers_init(run->world.servers, spec, &run->world.stopping,
			     run_world_waits_poll_for_stop(&run->world), run->error,
			     sizeof(run->error)) != 0 ||
	    create_tasks(run) != 0)
		return EXIT_SETUP_FAILED;

	int64_t t0 = clock_ns(CLOCK_MONOTONIC) + spec->release_delay_ns;
	if (run->trace && rts_trace_start(run->trace, t0, spec->duration_ns) != 0)
		return EXIT_SETUP_FAILED;
	wait_above_the_tasks();
	rts_taskset_release(run->set, t0);
	int signo = wait_for_end(t0 + spec->duration_ns);
	stop_and_join(run->set, &run->world);
	note_cpu_clock(run->set);
	if (options->json) {
		print_figures_json(spec, run->tasks, spec->n_tasks);
	} else if (!options->quiet) {
		print_summary(spec, run->tasks, spec->n_tasks);
		print_reservation_overhead(spec);
	}
	if (signo) {
		fprintf(stderr, "rtsched-run: stopped early by %s; cleaned up\n", strsignal(signo));
		return 128 + signo;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct options options;
	switch (parse_options(argc, argv, &options)) {
	case 0:
		break;
	case -1:
		return EXIT_OK;
	case -2:
		return usage("unknown option");
	case -3:
		return usage("one SPEC.json at a time");
	default:
		return usage("missing SPEC.json");
	}
	static struct run run;
	if (run_cpusets_clean_leftovers(run.error, sizeof(run.error)) != 0) {
		fprintf(stderr, "rtsched-run: %s\n", run.error);
		return EXIT_SETUP_FAILED;
	}
	if (options.cleanup_only)
		return EXIT_OK;
	if (run_spec_load(options.spec_file, &run.spec, run.error, sizeof(run.error)) != 0) {
		fprintf(stderr, "rtsched-run: %s\n", run.error);
		return EXIT_USAGE;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
		fprintf(stderr, "rtsched-run: warning: mlockall failed (%s): page faults may delay "
				"jobs; raise RLIMIT_MEMLOCK or run as root\n", strerror(errno));
	sigset_t signals = stop_signals();
	pthread_sigmask(SIG_BLOCK, &signals, NULL); /* task threads inherit it; main takes them */

	int code = execute(&run, &options);
	if (code == EXIT_SETUP_FAILED)
		fprintf(stderr, "rtsched-run: %s\n", run.error[0] ? run.error : "set-up failed");
	if (tear_down(&run) && code == EXIT_OK)
		code = EXIT_TRACE_FAILED;
	return code;
}
