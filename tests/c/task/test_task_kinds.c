/* SPDX-License-Identifier: MIT */
/*
 * Task kinds beyond the timer (<rtsched/task.h>): self-paced tasks, whose
 * next job comes with the last one's completion (or their least gap), and
 * event-triggered tasks, whose jobs come with activations, kept or lost as
 * their activation_queue says (rt-app's lost signal, a semaphore's count).
 * Orders and counts only: which activation released which job, which were
 * lost, and the exact release times the runtime reports.
 */
#include <rtsched/task.h>

#include "harness.h"

#define MS (1000 * 1000LL)
#define MAX_JOBS 64

struct record {
	atomic_int jobs;
	struct rts_job seen[MAX_JOBS];
	int64_t ended_ns[MAX_JOBS]; /* when the body returned */
};

static void record_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	struct record *r = arg;
	int n = atomic_load(&r->jobs);
	if (n < MAX_JOBS) {
		r->seen[n] = *job;
		r->ended_ns[n] = clock_ns(CLOCK_MONOTONIC);
	}
	atomic_fetch_add(&r->jobs, 1);
}

static struct rts_task_params params_on(const char *name, enum rts_task_kind kind, int cpu, int priority)
{
	static cpu_set_t cpus[4];
	static int next;
	cpu_set_t *set = &cpus[next++ % 4];
	CPU_ZERO(set);
	CPU_SET(cpu, set);
	struct rts_task_params p = {
		.name = name,
		.kind = kind,
		.period_ns = 10 * MS,
		.deadline_ns = 10 * MS,
		.policy = RTS_POLICY_FIFO,
		.priority = priority,
		.cpus = set,
	};
	return p;
}

static int64_t soon(void)
{
	return clock_ns(CLOCK_MONOTONIC) + 20 * MS;
}

static void check_refused(rts_taskset_t *set, const struct rts_task_params *p, const char *words)
{
	struct record r = { 0 };
	CHECK_ERR(EINVAL, rts_task_create(set, p, record_job, &r, NULL));
	const char *why = rts_taskset_error(set);
	CHECK_MSG(strstr(why, p->name) && strstr(why, words), "error text: %s", why);
}

static void test_bad_kind_params_are_explained(void)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = params_on("negative-gap", RTS_TASK_SELF_PACED, 0, 10);
	p.period_ns = -1;
	check_refused(set, &p, "least gap");
	p = params_on("event-offset", RTS_TASK_EVENT, 0, 10);
	p.offset_ns = MS;
	check_refused(set, &p, "no offset");
	p = params_on("start-periodic", RTS_TASK_PERIODIC, 0, 10);
	p.activated_at_start = true;
	check_refused(set, &p, "activated_at_start is for event tasks");
	p = params_on("start-event", RTS_TASK_EVENT, 0, 10);
	p.started_by_activation = true;
	check_refused(set, &p, "started_by_activation is for periodic");
	p = params_on("queue-periodic", RTS_TASK_PERIODIC, 0, 10);
	p.activation_queue = 1;
	check_refused(set, &p, "activation_queue");
	p = params_on("queue-huge", RTS_TASK_EVENT, 0, 10);
	p.activation_queue = RTS_TASK_ACTIVATION_QUEUE_MAX + 1;
	check_refused(set, &p, "at most");
	p = params_on("bad-kind", (enum rts_task_kind)9, 0, 10);
	check_refused(set, &p, "self-paced or event");
	CHECK_ERR(EINVAL, rts_task_activate(NULL));
	rts_taskset_destroy(set);
}

static void test_self_paced_jobs_follow_completions_and_the_least_gap(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	rts_task_t *task;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = params_on("loop", RTS_TASK_SELF_PACED, rt_cpu, 10);
	p.period_ns = 2 * MS; /* the least gap: most jobs take less, some (preempted) more */
	p.max_jobs = 30;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, &task));
	int64_t t0 = soon();
	CHECK_OK(rts_taskset_release(set, t0));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&r.jobs), 30);
	CHECK_EQ(r.seen[0].release_ns, t0);
	for (int k = 1; k < 30; k++) {
		const struct rts_job *job = &r.seen[k], *last = &r.seen[k - 1];
		CHECK_EQ(job->number, (uint32_t)k + 1);
		CHECK_GE(job->release_ns, last->release_ns + p.period_ns);
		/* released at the least gap, or at the completion that came later */
		CHECK_MSG(job->release_ns == last->release_ns + p.period_ns || job->release_ns >= r.ended_ns[k - 1],
			  "job %d released at %lld: neither the gap's end %lld nor after the completion %lld", k + 1,
			  (long long)job->release_ns, (long long)(last->release_ns + p.period_ns),
			  (long long)r.ended_ns[k - 1]);
		CHECK_LE(job->release_ns, job->start_ns);
		CHECK_EQ(job->deadline_ns, job->release_ns + p.deadline_ns);
	}
	rts_taskset_destroy(set);
}

/*
 * An activator: each of its jobs waits until the event task has run every
 * job released so far, activates it until one activation is kept (the event
 * task may not be back at its wait yet: without a queue those are lost, and
 * counted apart), then activates it once more at once: the event task, below
 * it on its CPU, cannot run in between, so that one finds it not waiting.
 */
struct activator {
	rts_task_t *target;
	const struct record *record;
	atomic_int kept, lost, early, other;
	int64_t before_ns[MAX_JOBS], after_ns[MAX_JOBS]; /* around each kept activation */
};

static void pause_ms(int ms)
{
	struct timespec pause = { .tv_nsec = ms * MS };
	nanosleep(&pause, NULL);
}

static int activate(struct activator *a)
{
	int n = atomic_load(&a->kept);
	int64_t before = clock_ns(CLOCK_MONOTONIC);
	int err = rts_task_activate(a->target);
	if (err == 0 && n < MAX_JOBS) {
		a->before_ns[n] = before;
		a->after_ns[n] = clock_ns(CLOCK_MONOTONIC);
	}
	if (err == 0)
		atomic_fetch_add(&a->kept, 1);
	return err;
}

static void activate_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	(void)job;
	struct activator *a = arg;
	for (int i = 0; i < 2000 && atomic_load(&a->record->jobs) < atomic_load(&a->kept); i++)
		pause_ms(1);
	int err, tries = 0;
	while ((err = activate(a)) == EAGAIN && ++tries < 2000) {
		atomic_fetch_add(&a->early, 1);
		pause_ms(1);
	}
	if (err)
		atomic_fetch_add(&a->other, 1);
	err = activate(a);
	if (err)
		atomic_fetch_add(err == EAGAIN ? &a->lost : &a->other, 1);
}

/* The activator (priority 30) and the event task (priority 20) on one CPU, 5 rounds. */
static void run_activations(uint32_t queue, struct record *r, struct activator *a, struct rts_task_stats *stats)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	rts_task_t *event;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params e = params_on("event", RTS_TASK_EVENT, rt_cpu, 20);
	e.activation_queue = queue;
	e.period_ns = 0;
	CHECK_OK(rts_task_create(set, &e, record_job, r, &event));
	struct rts_task_params p = params_on("activator", RTS_TASK_PERIODIC, rt_cpu, 30);
	p.max_jobs = 5;
	a->target = event;
	a->record = r;
	CHECK_OK(rts_task_create(set, &p, activate_job, a, NULL));
	CHECK_OK(rts_taskset_release(set, soon()));
	WAIT_FOR(atomic_load(&a->kept) + atomic_load(&a->lost) + atomic_load(&a->other) == 10 &&
		 atomic_load(&r->jobs) == atomic_load(&a->kept), 10000);
	CHECK_OK(rts_taskset_stop(set)); /* the event task waits for an activation that never comes */
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&a->other), 0);
	CHECK_OK(rts_task_stats(event, stats));
	CHECK_EQ(stats->activations_lost, (uint32_t)(atomic_load(&a->lost) + atomic_load(&a->early)));
	rts_taskset_destroy(set);
}

static void check_releases_are_the_activations(const struct record *r, const struct activator *a)
{
	for (int k = 0; k < atomic_load(&r->jobs); k++) {
		CHECK_EQ(r->seen[k].number, (uint32_t)k + 1);
		CHECK_GE(r->seen[k].release_ns, a->before_ns[k]);
		CHECK_LE(r->seen[k].release_ns, a->after_ns[k]);
		CHECK_LE(r->seen[k].release_ns, r->seen[k].start_ns);
	}
}

static void test_an_activation_that_finds_no_waiter_is_lost_without_a_queue(void)
{
	struct record r = { 0 };
	struct activator a = { 0 };
	struct rts_task_stats stats;
	run_activations(0, &r, &a, &stats);
	CHECK_EQ(atomic_load(&a.kept), 5);
	CHECK_EQ(atomic_load(&a.lost), 5); /* every second activation of a round */
	CHECK_EQ(atomic_load(&r.jobs), 5);
	CHECK_EQ(stats.jobs_completed, 5u);
	check_releases_are_the_activations(&r, &a);
}

static void test_a_queue_keeps_activations_and_releases_them_in_order(void)
{
	struct record r = { 0 };
	struct activator a = { 0 };
	struct rts_task_stats stats;
	run_activations(2, &r, &a, &stats);
	CHECK_EQ(atomic_load(&a.kept), 10);
	CHECK_EQ(atomic_load(&a.lost) + atomic_load(&a.early), 0); /* a queue keeps even an early one */
	CHECK_EQ(atomic_load(&r.jobs), 10);
	CHECK_EQ(stats.activations_lost, 0u);
	check_releases_are_the_activations(&r, &a);
}

static void test_activating_a_task_that_is_not_event_triggered_is_refused(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	rts_task_t *task;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = params_on("periodic", RTS_TASK_PERIODIC, rt_cpu, 10);
	p.max_jobs = 1;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, &task));
	CHECK_ERR(EINVAL, rts_task_activate(task));
	CHECK_OK(rts_taskset_release(set, soon()));
	CHECK_OK(rts_taskset_join(set));
	rts_taskset_destroy(set);
}

/* activated_at_start: job 1 at t0 + offset with no activation (its timer's cause), then
 * activations only; one that comes during job 1 finds it not waiting and is lost. */
static void test_an_event_task_activated_at_start_runs_its_first_job_unasked(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	rts_task_t *event;
	struct record r = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params e = params_on("starter", RTS_TASK_EVENT, rt_cpu, 20);
	e.activated_at_start = true;
	e.offset_ns = 2 * MS;
	e.max_jobs = 1;
	CHECK_OK(rts_task_create(set, &e, record_job, &r, &event));
	int64_t t0 = soon();
	CHECK_OK(rts_taskset_release(set, t0));
	CHECK_OK(rts_taskset_join(set)); /* its one job needed no activation */
	CHECK_EQ(atomic_load(&r.jobs), 1);
	CHECK_EQ(r.seen[0].number, 1u);
	CHECK_EQ(r.seen[0].release_ns, t0 + 2 * MS);
	struct rts_task_stats stats;
	CHECK_OK(rts_task_stats(event, &stats));
	CHECK_EQ(stats.jobs_completed, 1u);
	rts_taskset_destroy(set);
}

struct starter {
	rts_task_t *target;
	atomic_int results[2]; /* rts_task_activate's, first and second */
	int64_t at_ns;         /* just before the first */
};

/* One job: activate the target twice (its start, then one it loses). */
static void start_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	(void)job;
	struct starter *s = arg;
	s->at_ns = clock_ns(CLOCK_MONOTONIC);
	atomic_store(&s->results[0], rts_task_activate(s->target));
	atomic_store(&s->results[1], rts_task_activate(s->target));
}

/* started_by_activation: a periodic task's job 1 comes with its activation, job 2 one period later
 * (its own timer from there); a second activation is lost. */
static void test_a_periodic_task_started_by_an_activation_keeps_its_period_from_there(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	rts_taskset_t *set;
	rts_task_t *started;
	struct record r = { 0 };
	struct starter s = { 0 };
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = params_on("started", RTS_TASK_PERIODIC, rt_cpu, 20);
	p.started_by_activation = true;
	p.period_ns = 4 * MS;
	p.max_jobs = 3;
	CHECK_OK(rts_task_create(set, &p, record_job, &r, &started));
	struct rts_task_params a = params_on("starter", RTS_TASK_PERIODIC, rt_cpu, 30);
	a.offset_ns = 5 * MS;
	a.max_jobs = 1;
	s.target = started;
	CHECK_OK(rts_task_create(set, &a, start_job, &s, NULL));
	int64_t t0 = soon();
	CHECK_OK(rts_taskset_release(set, t0));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&s.results[0]), 0);
	CHECK_EQ(atomic_load(&s.results[1]), EAGAIN);
	CHECK_EQ(atomic_load(&r.jobs), 3);
	CHECK_GE(r.seen[0].release_ns, s.at_ns);
	CHECK_GE(r.seen[0].release_ns, t0 + 5 * MS);
	CHECK_EQ(r.seen[1].release_ns, r.seen[0].release_ns + 4 * MS);
	CHECK_EQ(r.seen[2].release_ns, r.seen[0].release_ns + 8 * MS);
	rts_taskset_destroy(set);
}

static const struct h_case cases[] = {
	H_CASE(test_bad_kind_params_are_explained, 5000),
	H_CASE(test_self_paced_jobs_follow_completions_and_the_least_gap, 10000),
	H_CASE(test_an_activation_that_finds_no_waiter_is_lost_without_a_queue, 10000),
	H_CASE(test_a_queue_keeps_activations_and_releases_them_in_order, 10000),
	H_CASE(test_activating_a_task_that_is_not_event_triggered_is_refused, 5000),
	H_CASE(test_an_event_task_activated_at_start_runs_its_first_job_unasked, 5000),
	H_CASE(test_a_periodic_task_started_by_an_activation_keeps_its_period_from_there, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
