/* SPDX-License-Identifier: MIT */
/*
 * Scenarios for the ult backend's tests: a task set on a named ult form,
 * each task a row (CPU, offset, period, deadline, busy time, jobs), run
 * until every task has done its jobs, with its trace read back per stream
 * (stream i is task i) and merged in time order.
 *
 * Jobs are busy for a wall-clock time from their start: a job that is
 * preempted still ends at start + busy, so timings in a scenario need only
 * be far apart (milliseconds), never exact.
 */
#ifndef RTSCHED_TESTS_ULT_SCENARIO_H
#define RTSCHED_TESTS_ULT_SCENARIO_H

#include <rtsched/task.h>
#include <rtsched/trace.h>

#include "harness.h"
#include "ult_arch.h"
#include "ult_disturbance.h"
#include "internal/trace.h"
#include "internal/trace_format.h"

#define MS (1000 * 1000LL)
#define SC_MAX_TASKS 16
#define SC_MAX_EVENTS 65536

struct sc_task {
	const char *name;
	int cpu;             /* -1: no affinity given */
	int64_t offset_ms, period_ms, deadline_ms, busy_us;
	int jobs;            /* 0: until the set is stopped */
	int priority;        /* FP forms: the SCHED_FIFO priority */
	int64_t sporadic_extra_us; /* > 0: sporadic, gaps of period + [0, this] */
	int64_t budget_us;   /* > 0: the CPU-time budget per job */
	void (*job)(struct sc_task *t); /* the job's body; NULL: busy for busy_us of wall time */
	void *arg;           /* the body's */
	/* Filled by the run. */
	atomic_uint cpus_seen; /* bit per CPU a job body ran on */
	atomic_int jobs_run;
	struct rts_task_stats stats;
};

struct sc_event {
	struct rts_trace_event_rec rec;
	int task;     /* its stream: the task's index */
	uint32_t seq; /* its place in the file: a stream's events are in recording order */
};

struct sc_run {
	size_t n;
	struct sc_event ev[SC_MAX_EVENTS];
};

static void sc_busy_wall_us(int64_t us)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + us * 1000;
	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
}

static void sc_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct sc_task *t = arg;
	int cpu = sched_getcpu();
	if (cpu >= 0 && cpu < 32)
		atomic_fetch_or(&t->cpus_seen, 1u << cpu);
	if (t->job)
		t->job(t);
	else
		sc_busy_wall_us(t->busy_us);
	atomic_fetch_add(&t->jobs_run, 1);
}

static int sc_by_time(const void *a, const void *b)
{
	const struct sc_event *x = a, *y = b;
	if (x->rec.time_ns != y->rec.time_ns)
		return x->rec.time_ns < y->rec.time_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq; /* equal times: file order */
}

static void sc_read(const char *path, struct sc_run *run)
{
	FILE *f = fopen(path, "rb");
	CHECK_MSG(f, "cannot open %s: %s", path, strerror(errno));
	struct rts_trace_file_header h;
	CHECK_EQ(fread(&h, sizeof(h), 1, f), 1);
	CHECK(memcmp(h.magic, RTS_TRACE_MAGIC, 8) == 0);
	CHECK_LE(h.n_streams, 2 * SC_MAX_TASKS);
	/* A stream's `task`: tasks (task_id >= 0) count 0, 1, ... in stream order; the others
	 * (reservations, docs/reservations.md) -1, -2, ... in theirs. */
	int task_of[2 * SC_MAX_TASKS], tasks = 0, others = 0;
	CHECK_EQ(fseek(f, (long)h.header_size, SEEK_SET), 0);
	for (uint32_t i = 0; i < h.n_streams; i++) {
		struct rts_trace_stream_record s;
		CHECK_EQ(fread(&s, sizeof(s), 1, f), 1);
		task_of[i] = s.task_id >= 0 ? tasks++ : -1 - others++;
	}
	CHECK_EQ(fseek(f, (long)(h.header_size + h.n_streams * h.stream_record_size), SEEK_SET), 0);
	run->n = 0;
	struct rts_trace_chunk_header ch;
	while (fread(&ch, sizeof(ch), 1, f) == 1) {
		CHECK_EQ(ch.magic, RTS_TRACE_CHUNK_MAGIC);
		CHECK_EQ(ch.lost_total, 0);
		CHECK_LE(run->n + ch.n_events, SC_MAX_EVENTS);
		for (uint32_t i = 0; i < ch.n_events; i++, run->n++) {
			CHECK_EQ(fread(&run->ev[run->n].rec, sizeof(run->ev[0].rec), 1, f), 1);
			CHECK_LT(ch.stream_id, h.n_streams);
			run->ev[run->n].task = task_of[ch.stream_id];
			run->ev[run->n].seq = (uint32_t)run->n;
		}
	}
	fclose(f);
	qsort(run->ev, run->n, sizeof(run->ev[0]), sc_by_time);
}

static const char *sc_type_name(uint16_t type)
{
	const char *name = rts_trace_type_name(type);
	return name ? name : "?";
}

static void sc_dump(const struct sc_run *run, const struct sc_task *tasks)
{
	for (size_t i = 0; i < run->n; i++) {
		const struct rts_trace_event_rec *r = &run->ev[i].rec;
		fprintf(stderr, "  %3zu %-4s %-14s job %u cpu %u arg0 %u arg1 %lld t %lld\n", i,
			run->ev[i].task >= 0 ? tasks[run->ev[i].task].name : "(reservation)", sc_type_name(r->type), r->job, r->cpu,
			r->arg0, (long long)r->arg1, (long long)r->time_ns);
	}
}

/* A trace file of this process in $TMPDIR (or /tmp) and the set that writes it. */
struct sc_traced_set {
	char path[256];
	char why[256];
	struct rts_trace *trace;
	rts_taskset_t *set;
};

/* Open the trace file named by `tag` and a task set on backend `form` writing to it
 * (skipped where this architecture refuses the form). */
static void sc_open_traced_set(struct sc_traced_set *s, const char *form, const char *tag)
{
	const char *dir = getenv("TMPDIR");
	snprintf(s->path, sizeof(s->path), "%s/rtsched-%s-%d.rtst", dir && *dir ? dir : "/tmp", tag,
		 (int)getpid());
	s->why[0] = '\0';
	struct rts_trace_config config = {.path = s->path, .name = form, .error_buf = s->why,
					  .error_buf_size = sizeof(s->why)};
	CHECK_MSG(rts_trace_open(&s->trace, &config) == 0, "rts_trace_open: %s", s->why);
	CHECK_OK(rts_taskset_create(&s->set, s->trace));
	ult_set_backend_or_skip(s->set, form);
}

/* Destroy the set (joined), close its trace and read it into run; the file is removed. */
/*
 * The wall time the run's tasks ran, at most: START or RESUME to the PREEMPT or COMPLETE after
 * it, an interval with anything in it that may block or sleep left out (ult_disturbance.h).
 */
static int64_t sc_tasks_ran_ns(const struct sc_run *run)
{
	int64_t total = 0, since[SC_MAX_TASKS];
	for (int t = 0; t < SC_MAX_TASKS; t++)
		since[t] = -1;
	for (size_t i = 0; i < run->n; i++) {
		int t = run->ev[i].task;
		if (t < 0 || t >= SC_MAX_TASKS)
			continue;
		uint16_t type = run->ev[i].rec.type;
		if (type == RTS_EV_START || type == RTS_EV_RESUME)
			since[t] = run->ev[i].rec.time_ns;
		else if ((type == RTS_EV_PREEMPT || type == RTS_EV_COMPLETE) && since[t] >= 0)
			total += run->ev[i].rec.time_ns - since[t];
		if (type != RTS_EV_START && type != RTS_EV_RESUME && type != RTS_EV_MIGRATE &&
		    type != RTS_EV_MARKER)
			since[t] = -1;
	}
	return total;
}

static void sc_close_traced_set(struct sc_traced_set *s, struct sc_run *run)
{
	rts_taskset_destroy(s->set);
	CHECK_MSG(rts_trace_close(s->trace) == 0, "rts_trace_close: %s", s->why);
	sc_read(s->path, run);
	unlink(s->path);
	sc_note_tasks_ran(sc_tasks_ran_ns(run));
}

/*
 * Run tasks[0..n) on backend `form`; skips without real-time privilege.
 * Returns when every task has done its jobs (stop_after_ms > 0: when the set,
 * stopped that long after its release, has ended); run holds the trace.
 */
static void sc_run_set_until(const char *form, struct sc_task *tasks, int n, int64_t stop_after_ms,
			     struct sc_run *run)
{
	struct sc_traced_set traced;
	sc_open_traced_set(&traced, form, "ult");
	rts_taskset_t *set = traced.set;
	static cpu_set_t cpus[SC_MAX_TASKS];
	rts_task_t *made[SC_MAX_TASKS];
	for (int i = 0; i < n; i++) {
		struct sc_task *t = &tasks[i];
		CPU_ZERO(&cpus[i]);
		if (t->cpu >= 0)
			CPU_SET(t->cpu, &cpus[i]);
		struct rts_task_params p = {
			.name = t->name,
			.kind = t->sporadic_extra_us ? RTS_TASK_SPORADIC : RTS_TASK_PERIODIC,
			.sporadic_max_extra_ns = t->sporadic_extra_us * 1000,
			.seed = (uint64_t)i + 1,
			.period_ns = t->period_ms * MS,
			.deadline_ns = t->deadline_ms * MS,
			.offset_ns = t->offset_ms * MS,
			.budget_ns = t->budget_us * 1000,
			.max_jobs = (uint32_t)t->jobs,
			.policy = t->priority ? RTS_POLICY_FIFO : RTS_POLICY_OTHER,
			.priority = t->priority,
			.cpus = t->cpu >= 0 ? &cpus[i] : NULL,
			.trace_task_id = i,
		};
		int err = rts_task_create(set, &p, sc_job, t, &made[i]);
		if (err == EPERM)
			SKIP("%s", rts_taskset_error(set));
		CHECK_MSG(err == 0, "task %s: %s: %s", t->name, h_errname(err), rts_taskset_error(set));
	}
	int64_t t0 = clock_ns(CLOCK_MONOTONIC) + 20 * MS;
	struct sc_machine_sample before;
	sc_sample_machine(&before);
	CHECK_OK(rts_trace_start(traced.trace, t0, 0));
	CHECK_OK(rts_taskset_release(set, t0));
	if (stop_after_ms > 0) {
		h_sleep_ms(20 + stop_after_ms);
		CHECK_OK(rts_taskset_stop(set));
	}
	CHECK_OK(rts_taskset_join(set));
	sc_note_disturbance(&before, clock_ns(CLOCK_MONOTONIC) - t0);
	for (int i = 0; i < n; i++)
		CHECK_OK(rts_task_stats(made[i], &tasks[i].stats));
	sc_close_traced_set(&traced, run);
	if (h_verbose())
		sc_dump(run, tasks);
}

__attribute__((unused)) static void sc_run_set(const char *form, struct sc_task *tasks, int n, struct sc_run *run)
{
	sc_run_set_until(form, tasks, n, 0, run);
}

/* Index of the first event at or after `from` of task with type (job 0: any); -1 if none. */
static ssize_t sc_find(const struct sc_run *run, size_t from, int task, uint16_t type, uint32_t job)
{
	for (size_t i = from; i < run->n; i++)
		if (run->ev[i].task == task && run->ev[i].rec.type == type &&
		    (job == 0 || run->ev[i].rec.job == job))
			return (ssize_t)i;
	return -1;
}

static size_t sc_count(const struct sc_run *run, int task, uint16_t type)
{
	size_t n = 0;
	for (size_t i = 0; i < run->n; i++)
		n += run->ev[i].task == task && run->ev[i].rec.type == type;
	return n;
}

/* Index of an event that must be there. */
__attribute__((unused)) static size_t sc_must_find(const struct sc_run *run, const struct sc_task *tasks, size_t from,
			   int task, uint16_t type, uint32_t job)
{
	ssize_t i = sc_find(run, from, task, type, job);
	if (i < 0) {
		sc_dump(run, tasks);
		CHECK_MSG(false, "no %s of task %s job %u after event %zu", sc_type_name(type),
			  tasks[task].name, job, from);
	}
	return (size_t)i;
}

/*
 * Job by job, `victim` is preempted exactly when `preemptor` started inside it (between its START
 * and its COMPLETE), and at least one of its `jobs` jobs was: a scene's "released 3 ms into the
 * job" holds only if the machine started the job in time, which a busy VM does not always do.
 */
__attribute__((unused)) static void sc_check_preempted_when_inside(const struct sc_run *run,
								   const struct sc_task *tasks, int victim,
								   int preemptor, uint32_t jobs)
{
	int inside_jobs = 0;
	for (uint32_t job = 1; job <= jobs; job++) {
		size_t start = sc_must_find(run, tasks, 0, victim, RTS_EV_START, job);
		size_t done = sc_must_find(run, tasks, start, victim, RTS_EV_COMPLETE, job);
		size_t other = sc_must_find(run, tasks, 0, preemptor, RTS_EV_START, job);
		ssize_t preempt = sc_find(run, start, victim, RTS_EV_PREEMPT, 0);
		bool inside = start < other && other < done;
		bool preempted = preempt >= 0 && (size_t)preempt < done;
		CHECK_MSG(preempted == inside, "%s job %u: %s started inside it: %d, preempted: %d",
			  tasks[victim].name, job, tasks[preemptor].name, inside, preempted);
		inside_jobs += inside;
	}
	CHECK_MSG(inside_jobs > 0, "no %s job had started when %s was released (the machine stalled the set)",
		  tasks[victim].name, tasks[preemptor].name);
}

#endif
