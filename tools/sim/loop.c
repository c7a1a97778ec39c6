/* SPDX-License-Identifier: MIT */
/*
 * The compute-only loop (loop.h), a port of run_compute_only
 * (python/rtsched/sim/compute_only.py) that keeps its order of operations:
 *
 * 1. at an instant, every event of that time in push order: the end of a
 *    running thread's stretch (a DONE whose version is the thread's, else
 *    stale), releases (a job of an idle thread becomes ready with the next
 *    ready seq, else it is pending);
 * 2. each thread whose stretch ended completes its job (COMPLETE, perhaps
 *    DEADLINE_MISS), then begins its oldest pending job at once, recording
 *    its RELEASE and START on the same CPU, or leaves its CPU;
 * 3. each dirty domain, the last marked first (Python's list.pop()), is
 *    dispatched: the most urgent ready thread (smallest key, then seq) takes
 *    an idle CPU (the one it last ran on first, else the first in the
 *    domain's order), else preempts the least urgent running thread (largest
 *    key, then largest seq) when strictly more urgent;
 * 4. each thread given a CPU, in the order they were given one, resumes its
 *    stretch or starts its job (RELEASE, START, its computes drawn in order).
 *
 * Invariants (as the Python threads'): a RUNNING thread's slot holds it in
 * its domain's running array; a READY thread has exactly one live entry in
 * its domain's ready heap (queued equal to its count) with its current key;
 * an IDLE thread has nothing pending; a DONE event is live exactly when its
 * version is the thread's and the thread runs.
 */
#include "loop.h"

#include <errno.h>
#include <rtsched/trace.h>
#include <stdlib.h>
#include <string.h>

#include "heaps.h"
#include "pyrandom.h"

enum thread_state { ST_IDLE, ST_READY, ST_RUNNING, ST_FINISHED };

#define NO_SLOT (-1)
#define IDLE_SLOT UINT32_MAX
/* xorshift64*'s state for a seed of 0: the C runner's (src/task/taskset.c) and draws.py's. */
#define GAP_DEFAULT_STATE 0x9e3779b97f4a7c15ull

struct domain {
	const struct sim_spec_domain *spec;
	uint32_t *running; /* per slot (index in spec->cpus): the running thread, IDLE_SLOT */
	struct ready_heap ready;
	bool dirty;
};

struct thread {
	const struct sim_spec_task *task;
	struct domain *domain;
	int state;
	int64_t key; /* smaller is more urgent: -priority, or the job's absolute deadline under EDF */
	uint64_t seq, queued, version, released;
	int slot; /* the CPU it runs on or last ran on, as a slot of its domain; NO_SLOT before */
	int64_t run_since, remaining;
	bool begun; /* the current job has recorded its START (Python: pc >= 0) */
	uint32_t job;
	int64_t job_release, job_deadline, job_cpu_ns;
	int64_t fixed_work_ns; /* -1: drawn per job */
	int64_t *pending;      /* a ring of nominal releases of jobs released but not begun */
	size_t pending_head, pending_n, pending_cap;
	uint64_t gap_state, gap_modulo; /* gap_modulo 0: periodic */
	struct py_random rng;
	struct sim_trace *trace; /* NULL: not recording */
};

struct sim {
	const struct sim_spec *spec;
	struct thread *threads;
	struct domain *domains;
	struct event_heap events;
	uint32_t *dirty, *ended, *started;
	size_t n_dirty, n_ended, n_started, cap_started;
	uint64_t ready_seq, completed;
	bool failed;          /* out of memory: the run stops at the end of the instant */
	int error;            /* a trace's append failed (errno value): the run stops likewise */
	const char *spill_dir; /* where the traces spill (spill.h); NULL: they stay in memory */
};

static void record(struct sim *s, struct thread *t, int64_t time_ns, uint16_t type, uint16_t cpu, uint32_t arg0,
		   int64_t arg1)
{
	if (!t->trace || s->error)
		return;
	struct rts_trace_event_rec event = {
		.time_ns = time_ns, .type = type, .cpu = cpu, .job = t->job, .arg0 = arg0, .arg1 = arg1};
	s->error = sim_trace_append(t->trace, s->spill_dir, &event);
}

static uint16_t cpu_of(const struct thread *t)
{
	return t->domain->spec->cpus[t->slot];
}

static void push_event(struct sim *s, int64_t time_ns, uint32_t kind, uint32_t thread, int64_t arg)
{
	if (event_heap_push(&s->events, time_ns, kind, thread, arg))
		s->failed = true;
}

static void push_ready(struct sim *s, struct thread *t)
{
	struct sim_ready entry = {t->key, t->seq, t->queued, (uint32_t)(t - s->threads)};
	if (ready_heap_push(&t->domain->ready, entry))
		s->failed = true;
}

static void mark_dirty(struct sim *s, struct domain *d)
{
	if (!d->dirty) {
		d->dirty = true;
		s->dirty[s->n_dirty++] = (uint32_t)(d - s->domains);
	}
}

static int pending_push(struct thread *t, int64_t release_ns)
{
	if (t->pending_n == t->pending_cap) {
		size_t cap = t->pending_cap ? t->pending_cap * 2 : 8;
		int64_t *ring = malloc(cap * sizeof(*ring));
		if (!ring)
			return -1;
		for (size_t i = 0; i < t->pending_n; i++)
			ring[i] = t->pending[(t->pending_head + i) % t->pending_cap];
		free(t->pending);
		t->pending = ring;
		t->pending_cap = cap;
		t->pending_head = 0;
	}
	t->pending[(t->pending_head + t->pending_n++) % t->pending_cap] = release_ns;
	return 0;
}

static int64_t pending_pop(struct thread *t)
{
	int64_t release_ns = t->pending[t->pending_head];
	t->pending_head = (t->pending_head + 1) % t->pending_cap;
	t->pending_n--;
	return release_ns;
}

/* draws.py's SporadicGaps.next_extra_ns: xorshift64* as the C runner's. */
static int64_t next_gap_ns(struct thread *t)
{
	uint64_t x = t->gap_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->gap_state = x;
	return (int64_t)((x * 0x2545f4914f6cdd1dull) % t->gap_modulo);
}

/* compute_only.py's _job_work: the job's computes, each drawn in order (draws.py's ExecutionTimes). */
static int64_t job_work_ns(struct thread *t)
{
	if (t->fixed_work_ns >= 0)
		return t->fixed_work_ns;
	const struct sim_spec_task *task = t->task;
	int64_t sum = 0;
	for (size_t i = 0; i < task->n_computes; i++) {
		uint64_t ns = (uint64_t)task->computes_ns[i];
		uint64_t low = (uint64_t)(((unsigned __int128)ns * (uint64_t)task->low_ppm + 999999u) / 1000000u);
		sum += (int64_t)py_random_randint(&t->rng, low > 1 ? low : 1, ns);
	}
	return sum;
}

/* The job becomes the thread's current one, ready to start (Engine._begin and make_ready). */
static void release_job(struct sim *s, struct thread *t, int64_t release_ns)
{
	t->job_release = release_ns;
	t->job_deadline = release_ns + t->task->deadline_ns;
	t->job_cpu_ns = 0;
	t->begun = false;
	if (t->task->is_edf)
		t->key = t->job_deadline;
	t->state = ST_READY;
	t->seq = ++s->ready_seq;
	t->queued++;
	push_ready(s, t);
	mark_dirty(s, t->domain);
}

/* The job's START, its CPU time drawn, its stretch's end pushed. */
static void start_job(struct sim *s, struct thread *t, int64_t now)
{
	t->job++;
	record(s, t, t->job_release, RTS_EV_RELEASE, cpu_of(t), 0, t->job_deadline);
	record(s, t, now, RTS_EV_START, cpu_of(t), 0, 0);
	t->remaining = job_work_ns(t);
	t->begun = true;
}

static void push_done(struct sim *s, struct thread *t, int64_t now)
{
	t->version++;
	push_event(s, now + t->remaining, SIM_DONE, (uint32_t)(t - s->threads), (int64_t)t->version);
}

/* Step 1, a release: the next one pushed (sporadic gap drawn), this one begun or pending. */
static void on_release(struct sim *s, struct thread *t, int64_t nominal_ns)
{
	const struct sim_spec_task *task = t->task;
	t->released++;
	if (!task->max_jobs || t->released < task->max_jobs) {
		int64_t following = nominal_ns + task->period_ns;
		if (t->gap_modulo)
			following += next_gap_ns(t);
		if (following < s->spec->end_ns)
			push_event(s, following, SIM_RELEASE, (uint32_t)(t - s->threads), following);
	}
	if (t->state != ST_IDLE) {
		if (pending_push(t, nominal_ns))
			s->failed = true;
		return;
	}
	release_job(s, t, nominal_ns);
}

/* Step 2, one thread whose stretch ended at now. */
static void on_ended(struct sim *s, struct thread *t, int64_t now)
{
	const struct sim_spec_task *task = t->task;
	record(s, t, now, RTS_EV_COMPLETE, cpu_of(t), 0, t->job_cpu_ns);
	if (now > t->job_deadline)
		record(s, t, now, RTS_EV_DEADLINE_MISS, cpu_of(t), 0, now - t->job_deadline);
	s->completed++;
	struct domain *d = t->domain;
	bool finished = task->max_jobs && t->job >= task->max_jobs;
	if (finished || !t->pending_n) { /* it leaves its CPU */
		t->version++;
		d->running[t->slot] = IDLE_SLOT;
		mark_dirty(s, d);
		t->state = finished ? ST_FINISHED : ST_IDLE;
		return;
	}
	int64_t release_ns = pending_pop(t);
	t->job_release = release_ns;
	t->job_deadline = release_ns + task->deadline_ns;
	t->job_cpu_ns = 0;
	if (task->is_edf && t->key != t->job_deadline) {
		t->key = t->job_deadline;
		mark_dirty(s, d);
	}
	start_job(s, t, now);
	push_done(s, t, now);
}

static bool less_urgent(const struct thread *a, const struct thread *b)
{
	return a->key > b->key || (a->key == b->key && a->seq > b->seq);
}

static void started_push(struct sim *s, uint32_t thread)
{
	if (s->n_started == s->cap_started) {
		size_t cap = s->cap_started * 2;
		uint32_t *started = realloc(s->started, cap * sizeof(*started));
		if (!started) {
			s->failed = true;
			return;
		}
		s->started = started;
		s->cap_started = cap;
	}
	s->started[s->n_started++] = thread;
}

/* Step 3, one domain (dispatch.py's rule, as compute_only.py inlines it). */
static void dispatch(struct sim *s, struct domain *d, int64_t now)
{
	struct ready_heap *ready = &d->ready;
	size_t n_cpus = d->spec->n_cpus;
	while (ready->n) {
		struct sim_ready head = ready->at[0];
		struct thread *t = &s->threads[head.thread];
		if (head.queued != t->queued || t->state != ST_READY) {
			ready_heap_pop(ready);
			continue;
		}
		int slot;
		struct thread *current = NULL;
		if (n_cpus == 1) {
			slot = 0;
			if (d->running[0] != IDLE_SLOT)
				current = &s->threads[d->running[0]];
		} else { /* an idle CPU, its last one first, else the least urgent running thread's */
			slot = t->slot;
			if (slot == NO_SLOT || d->running[slot] != IDLE_SLOT) {
				slot = NO_SLOT;
				for (size_t c = 0; c < n_cpus; c++) {
					if (d->running[c] == IDLE_SLOT) {
						slot = (int)c;
						current = NULL;
						break;
					}
					struct thread *r = &s->threads[d->running[c]];
					if (!current || less_urgent(r, current))
						current = r;
				}
				if (current)
					slot = current->slot;
			}
		}
		if (current) {
			if (head.key >= current->key)
				break;
			int64_t elapsed = now - current->run_since;
			current->remaining -= elapsed;
			current->job_cpu_ns += elapsed;
			current->version++;
			current->state = ST_READY;
			current->queued++; /* back at the head of its key: it keeps its seq */
			push_ready(s, current);
		}
		ready_heap_pop(ready); /* t's entry: current's, just pushed, has a larger key */
		t->state = ST_RUNNING;
		t->slot = slot;
		t->run_since = now;
		d->running[slot] = head.thread;
		started_push(s, head.thread);
	}
	d->dirty = false;
}

static void run_instant(struct sim *s, int64_t now)
{
	/* 1. the events of this instant */
	while (s->events.n && s->events.at[0].time_ns == now) {
		struct sim_event e = event_heap_pop(&s->events);
		struct thread *t = &s->threads[e.thread];
		if (e.kind == SIM_DONE) {
			if ((uint64_t)e.arg == t->version && t->state == ST_RUNNING) {
				t->job_cpu_ns += now - t->run_since;
				t->run_since = now;
				t->remaining = 0;
				s->ended[s->n_ended++] = e.thread; /* one live DONE per thread: n_ended <= n */
			}
			continue;
		}
		on_release(s, t, e.arg);
	}
	/* 2. completions */
	for (size_t i = 0; i < s->n_ended; i++)
		on_ended(s, &s->threads[s->ended[i]], now);
	s->n_ended = 0;
	/* 3. dispatch */
	while (s->n_dirty)
		dispatch(s, &s->domains[s->dirty[--s->n_dirty]], now);
	/* 4. threads given a CPU run */
	for (size_t i = 0; i < s->n_started; i++) {
		struct thread *t = &s->threads[s->started[i]];
		if (t->state != ST_RUNNING)
			continue;
		if (!t->begun)
			start_job(s, t, now);
		push_done(s, t, now);
	}
	s->n_started = 0;
}

static int setup(struct sim *s, const struct sim_spec *spec, bool record_events, struct sim_result *result)
{
	size_t n = spec->n_tasks;
	s->spec = spec;
	s->threads = calloc(n ? n : 1, sizeof(*s->threads));
	s->domains = calloc(spec->n_domains, sizeof(*s->domains));
	s->dirty = calloc(spec->n_domains, sizeof(*s->dirty));
	s->ended = calloc(n ? n : 1, sizeof(*s->ended));
	s->cap_started = n ? 2 * n : 2;
	s->started = calloc(s->cap_started, sizeof(*s->started));
	if (record_events) {
		result->traces = calloc(n ? n : 1, sizeof(*result->traces));
		result->n_traces = result->traces ? n : 0;
		for (size_t i = 0; i < result->n_traces; i++)
			sim_trace_init(&result->traces[i]);
	}
	if (!s->threads || !s->domains || !s->dirty || !s->ended || !s->started || (record_events && !result->traces))
		return ENOMEM;
	for (size_t i = 0; i < spec->n_domains; i++) {
		struct domain *d = &s->domains[i];
		d->spec = &spec->domains[i];
		d->running = malloc(d->spec->n_cpus * sizeof(*d->running));
		if (!d->running)
			return ENOMEM;
		for (size_t c = 0; c < d->spec->n_cpus; c++)
			d->running[c] = IDLE_SLOT;
	}
	for (size_t i = 0; i < n; i++) { /* Engine.__init__: the releases at the offsets, in task order */
		const struct sim_spec_task *task = &spec->tasks[i];
		struct thread *t = &s->threads[i];
		t->task = task;
		t->domain = &s->domains[task->domain];
		t->key = task->is_edf ? 0 : -task->priority;
		t->slot = NO_SLOT;
		t->trace = record_events ? &result->traces[i] : NULL;
		t->fixed_work_ns = -1;
		if (task->low_ppm < 0) {
			t->fixed_work_ns = 0;
			for (size_t k = 0; k < task->n_computes; k++)
				t->fixed_work_ns += task->computes_ns[k];
		} else {
			py_random_seed(&t->rng, task->seed_words, task->n_seed_words);
		}
		if (task->gap_max_ns >= 0) {
			t->gap_state = task->gap_seed ? task->gap_seed : GAP_DEFAULT_STATE;
			t->gap_modulo = (uint64_t)task->gap_max_ns + 1;
		}
		if (task->offset_ns < spec->end_ns)
			push_event(s, task->offset_ns, SIM_RELEASE, (uint32_t)i, task->offset_ns);
	}
	for (size_t i = 0; i < n; i++) { /* each fixed priority at t0, as the engine records it */
		struct thread *t = &s->threads[i];
		if (!t->task->is_edf)
			record(s, t, 0, RTS_EV_PRIORITY, RTS_TRACE_CPU_UNKNOWN, (uint32_t)t->task->priority, 0);
	}
	return s->failed ? ENOMEM : s->error;
}

static void teardown(struct sim *s)
{
	if (s->threads)
		for (size_t i = 0; i < s->spec->n_tasks; i++)
			free(s->threads[i].pending);
	if (s->domains)
		for (size_t i = 0; i < s->spec->n_domains; i++) {
			free(s->domains[i].running);
			free(s->domains[i].ready.at);
		}
	free(s->threads);
	free(s->domains);
	free(s->events.at);
	free(s->dirty);
	free(s->ended);
	free(s->started);
}

int sim_run(const struct sim_spec *spec, bool record_events, const char *spill_dir, struct sim_result *result)
{
	struct sim s = {.spill_dir = spill_dir};
	memset(result, 0, sizeof(*result));
	int rc = setup(&s, spec, record_events, result);
	while (!rc && s.events.n) {
		int64_t now = s.events.at[0].time_ns;
		if (now > spec->end_ns)
			break;
		run_instant(&s, now);
		rc = s.failed ? ENOMEM : s.error;
	}
	result->jobs_completed = s.completed;
	teardown(&s);
	if (rc)
		sim_result_free(result);
	return rc;
}

void sim_result_free(struct sim_result *result)
{
	for (size_t i = 0; i < result->n_traces; i++)
		sim_trace_free(&result->traces[i]);
	free(result->traces);
	memset(result, 0, sizeof(*result));
}
