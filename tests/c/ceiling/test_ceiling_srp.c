/* SPDX-License-Identifier: MIT */
/*
 * Stack resource policy (RTS_PROTO_SRP), on one CPU:
 *  - a job does not start while the system ceiling is at or above its
 *    preemption level (rts_lock_gate), and the holder runs at the job's
 *    priority meanwhile; a job above the ceiling starts at once;
 *  - the same with declared preemption levels (rts_lock_set_self_level),
 *    which must be what counts, not the SCHED_FIFO priorities;
 *  - the same through rts_job_next (a task set releases the job);
 *  - once started, a job never blocks on a lock: three tasks with nested
 *    resources released many times, and every lock a started job asks for is
 *    free (trylock never says EBUSY).
 */
#include "gate_scenario.h"

#include <rtsched/task.h>

#include <stdbool.h>
#include <sys/resource.h>

#define LOW 10
#define MID 20
#define HIGH 30

static const struct gate_params gate_table[] = {
	/* name, proto, variant, ceiling, holder prio/level, job prio/level, uses, gated */
	{ "srp_job_at_ceiling_waits", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, MID, LOW, 0, MID, 0,
	  true, true },
	{ "srp_job_above_ceiling_starts", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, MID, LOW, 0, HIGH, 0,
	  false, false },
	{ "srp_eager_job_at_ceiling_waits", RTS_PROTO_SRP, RTS_CEILING_EAGER, MID, LOW, 0, MID, 0,
	  true, true },
	{ "srp_eager_job_above_ceiling_starts", RTS_PROTO_SRP, RTS_CEILING_EAGER, MID, LOW, 0, HIGH,
	  0, false, false },
	/* Declared levels: 200 is at the ceiling 200 (waits) and above 150 (starts),
	 * although the priorities (10, 20) are below both. */
	{ "srp_levels_job_at_ceiling_waits", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, 200, LOW, 100,
	  MID, 200, true, true },
	{ "srp_levels_job_above_ceiling_starts", RTS_PROTO_SRP, RTS_CEILING_DEFERRED, 150, LOW, 100,
	  MID, 200, false, false },
};

static void test_srp_gate(int i)
{
	gate_scenario(&gate_table[i]);
}

/* ---- rts_job_next gates the job ------------------------------------------ */

struct job_next_run {
	rts_mutex_t s;
	struct ev_log log;
	pid_t low_tid, high_tid;
	int low_locked, low_go, high_ret;
};

static void low_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct job_next_run *r = arg;
	H_STORE(&r->low_tid, h_gettid());
	int ret = rts_mutex_lock(&r->s);
	if (ret)
		FAIL("low job: lock: %s", h_errname(ret));
	ev(&r->log, 'L', EV_ACQUIRED, 1);
	H_STORE(&r->low_locked, 1);
	spin_until(&r->low_go);
	ev(&r->log, 'L', EV_RELEASING, 1);
	ret = rts_mutex_unlock(&r->s);
	if (ret)
		FAIL("low job: unlock: %s", h_errname(ret));
}

static void high_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct job_next_run *r = arg;
	ev(&r->log, 'H', EV_JOB_START, 0);
	H_STORE(&r->high_tid, h_gettid());
	int ret = rts_mutex_trylock(&r->s);
	if (ret == 0)
		ret = rts_mutex_unlock(&r->s);
	H_STORE(&r->high_ret, ret);
}

static void test_srp_job_next_waits_for_ceiling(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct job_next_run *r = calloc(1, sizeof(*r));
	CHECK(r);
	ceil_mutex_init(&r->s, RTS_PROTO_SRP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(rt_cpu, &cpus);
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params low = {
		.name = "low", .period_ns = 1000000000, .deadline_ns = 1000000000,
		.max_jobs = 1, .policy = RTS_POLICY_FIFO, .priority = LOW, .cpus = &cpus,
	};
	/* High is released 300 ms after low, which by then holds S (it holds it
	 * until told; 300 ms leaves room for a sanitizer build on a VM whose
	 * host steals time): the release is what is checked. */
	struct rts_task_params high = low;
	high.name = "high";
	high.priority = HIGH;
	high.offset_ns = 300000000;
	rts_task_t *lt, *ht;
	CHECK_OK(rts_task_create(set, &low, low_job, r, &lt));
	CHECK_OK(rts_task_create(set, &high, high_job, r, &ht));
	CHECK_OK(rts_taskset_release(set, clock_ns(CLOCK_MONOTONIC) + 5000000));
	WAIT_FOR(H_LOAD(&r->low_locked), 2000);
	pid_t ltid = H_LOAD(&r->low_tid);
	/* High's release comes while low holds S: high's rts_job_next blocks in the
	 * gate and lends low its priority. */
	WAIT_FOR(effective_fifo_prio(ltid) == HIGH, 3000);
	CHECK(ev_find(&r->log, 'H', EV_JOB_START, -1) < 0);
	CHECK_EQ(base_fifo_prio(ltid), LOW);
	H_STORE(&r->low_go, 1);
	CHECK_OK(rts_taskset_join(set));
	CHECK_OK(H_LOAD(&r->high_ret));
	CHECK_EV_BEFORE(&r->log, 'L', EV_RELEASING, 1, 'H', EV_JOB_START, 0);
	rts_taskset_destroy(set);
	free(r);
}

/* ---- once started, never blocked ------------------------------------------ */

/*
 * Resources and users: R1 {L, H} ceiling HIGH, R2 {L, M} ceiling MID,
 * R3 {M, H} ceiling HIGH. L runs jobs back to back (it keeps the CPU), M and
 * H are released by short sleeps; every job passes the gate, then takes its
 * resources nested. Under SRP each lock a started job asks for is free (no
 * owner), and the lock call never waits: no lower thread makes progress (its
 * tick counter, advanced only in its own code) between request and return.
 *
 * SRP's guarantee assumes jobs that do not suspend themselves. The kernel
 * can suspend a thread in a page fault (a first-touched stack or shadow
 * page, mmap_lock taken by another thread): under ThreadSanitizer, whose
 * shadow pages fault in lazily, H was seen to fault inside rts_mutex_lock,
 * sleep, and let M run 10 ticks (or M then found R3 held by the sleeping
 * H). A finding in a job during which any of the three threads took a page
 * fault is therefore not judged (counted as `faulted`, and bounded: a
 * protocol that made jobs wait would show in the jobs without a fault).
 */
#define SRP_JOBS 400

struct never_blocked {
	rts_mutex_t r1, r2, r3;
	int stop, exit_now;
	pid_t tid[3];
	long ticks[3];          /* advanced by each thread in its critical sections */
	long jobs[3];
	long held_at_request[3]; /* locks asked for while owned by another thread */
	long waited[3];          /* lock calls during which a lower thread ran */
	long released_over[3];   /* releases that found a lower job holding a resource */
	long faulted[3];         /* findings excused: a thread took a page fault during the job */
	long faults[3];          /* each thread's page faults, as it last read them */
	long faults_at_gate[3];  /* all threads' faults when the thread's current job passed the gate */
	int done[3];
	int ret[3];
};

struct nb_thread {
	struct never_blocked *s;
	int who; /* 0 L, 1 M, 2 H */
};

static long lower_ticks(struct never_blocked *s, int who)
{
	long sum = 0;
	for (int i = 0; i < who; i++)
		sum += H_LOAD(&s->ticks[i]);
	return sum;
}

/* The calling thread's page faults so far (minor and major). */
static long thread_faults(void)
{
	struct rusage ru;
	CHECK(getrusage(RUSAGE_THREAD, &ru) == 0);
	return ru.ru_minflt + ru.ru_majflt;
}

/* Read the caller's page faults into s; all threads' faults as last read. */
static long all_faults(struct never_blocked *s, int who)
{
	H_STORE(&s->faults[who], thread_faults());
	long sum = 0;
	for (int i = 0; i < 3; i++)
		sum += H_LOAD(&s->faults[i]);
	return sum;
}

/*
 * A finding about the current job: counted in *finding, or as faulted if a
 * thread took a page fault during the job (each thread reads its faults
 * after each lock call, so a holder suspended in a lock has read its fault
 * before the blocked job returns from its own lock).
 */
static void judge(struct never_blocked *s, int who, long *finding)
{
	if (all_faults(s, who) != s->faults_at_gate[who])
		s->faulted[who]++;
	else
		(*finding)++;
}

static int lock_unwaited(struct never_blocked *s, int who, rts_mutex_t *m)
{
	bool held = mutex_owner(m) != 0;
	long before = lower_ticks(s, who);
	int ret = rts_mutex_lock(m);
	H_STORE(&s->faults[who], thread_faults());
	if (held)
		judge(s, who, &s->held_at_request[who]);
	if (lower_ticks(s, who) != before)
		judge(s, who, &s->waited[who]);
	if (ret)
		FAIL("%c: lock of R%d: %s", "LMH"[who], m == &s->r1 ? 1 : m == &s->r2 ? 2 : 3,
		     h_errname(ret));
	return ret;
}

static void work_ticks(struct never_blocked *s, int who, int n)
{
	for (int i = 0; i < n; i++) {
		burn_loops(100);
		H_STORE(&s->ticks[who], s->ticks[who] + 1);
	}
}

static int job_nested(struct never_blocked *s, int who, rts_mutex_t *outer, rts_mutex_t *inner,
		      int work)
{
	int ret = lock_unwaited(s, who, outer);
	if (ret)
		return ret;
	work_ticks(s, who, work);
	ret = lock_unwaited(s, who, inner);
	if (ret == 0) {
		work_ticks(s, who, work);
		ret = rts_mutex_unlock(inner);
	}
	int r2 = rts_mutex_unlock(outer);
	return ret ? ret : r2;
}

static void *nb_main(void *arg)
{
	struct nb_thread *t = arg;
	struct never_blocked *s = t->s;
	H_STORE(&s->tid[t->who], h_gettid());
	int ret = 0;
	for (long j = 0; ret == 0 && (t->who == 0 ? !H_LOAD(&s->stop) : j < SRP_JOBS); j++) {
		if (t->who > 0) {
			h_sleep_us(t->who == 1 ? 300 : 170);
			if (mutex_owner(&s->r1) || mutex_owner(&s->r2) || mutex_owner(&s->r3))
				s->released_over[t->who]++;
		}
		ret = rts_lock_gate();
		if (ret)
			break;
		s->faults_at_gate[t->who] = all_faults(s, t->who);
		if (t->who == 0)
			ret = job_nested(s, 0, &s->r2, &s->r1, 50);
		else if (t->who == 1)
			ret = job_nested(s, 1, &s->r2, &s->r3, 10);
		else
			ret = job_nested(s, 2, &s->r3, &s->r1, 3);
		s->jobs[t->who]++;
	}
	H_STORE(&s->ret[t->who], ret);
	H_STORE(&s->done[t->who], 1);
	sleep_until(&s->exit_now);
	return NULL;
}

static void test_srp_started_job_never_blocks(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	struct never_blocked *s = calloc(1, sizeof(*s));
	CHECK(s);
	ceil_mutex_init(&s->r1, RTS_PROTO_SRP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&s->r2, RTS_PROTO_SRP, MID, rt_cpu, RTS_CEILING_DEFERRED);
	ceil_mutex_init(&s->r3, RTS_PROTO_SRP, HIGH, rt_cpu, RTS_CEILING_DEFERRED);
	static const int prio[3] = { LOW, MID, HIGH };
	pthread_t th[3];
	struct nb_thread args[3];
	for (int i = 0; i < 3; i++) {
		args[i] = (struct nb_thread){ s, i };
		h_thread_start(&th[i], nb_main, &args[i], prio[i], rt_cpu);
	}
	WAIT_FOR(H_LOAD(&s->done[1]) && H_LOAD(&s->done[2]), 30000);
	H_STORE(&s->stop, 1);
	WAIT_FOR(H_LOAD(&s->done[0]), 5000);
	for (int i = 0; i < 3; i++)
		CHECK_OK(H_LOAD(&s->ret[i]));
	H_LOG("jobs L %ld M %ld H %ld; released over a held resource: M %ld H %ld; findings in "
	      "jobs that took a page fault: M %ld H %ld",
	      s->jobs[0], s->jobs[1], s->jobs[2], s->released_over[1], s->released_over[2],
	      s->faulted[1], s->faulted[2]);
	CHECK_MSG(s->held_at_request[1] + s->held_at_request[2] == 0,
		  "started jobs asked for a lock another thread held: M %ld, H %ld times",
		  s->held_at_request[1], s->held_at_request[2]);
	CHECK_MSG(s->waited[1] + s->waited[2] == 0,
		  "started jobs waited in a lock while a lower job ran: M %ld, H %ld times",
		  s->waited[1], s->waited[2]);
	CHECK_MSG(s->faulted[1] + s->faulted[2] <= SRP_JOBS / 20,
		  "%ld findings excused by page faults: more than the %d a few faults explain",
		  s->faulted[1] + s->faulted[2], SRP_JOBS / 20);
	CHECK_GT(s->jobs[0], 0);
	CHECK_EQ(s->jobs[1], SRP_JOBS);
	CHECK_EQ(s->jobs[2], SRP_JOBS);
	/* The releases really came while lower jobs held resources. */
	CHECK_GE(s->released_over[1] + s->released_over[2], SRP_JOBS / 10);
	for (int i = 0; i < 3; i++)
		CHECK_AT_BASE(H_LOAD(&s->tid[i]), prio[i]);
	H_STORE(&s->exit_now, 1);
	for (int i = 0; i < 3; i++)
		h_join(th[i], 2000);
	free(s);
}

static const struct h_case cases[] = {
	{ "srp_job_at_ceiling_waits", NULL, 15000, test_srp_gate, 0 },
	{ "srp_job_above_ceiling_starts", NULL, 15000, test_srp_gate, 1 },
	{ "srp_eager_job_at_ceiling_waits", NULL, 15000, test_srp_gate, 2 },
	{ "srp_eager_job_above_ceiling_starts", NULL, 15000, test_srp_gate, 3 },
	{ "srp_levels_job_at_ceiling_waits", NULL, 15000, test_srp_gate, 4 },
	{ "srp_levels_job_above_ceiling_starts", NULL, 15000, test_srp_gate, 5 },
	H_CASE(test_srp_job_next_waits_for_ceiling, 15000),
	H_CASE(test_srp_started_job_never_blocks, 60000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
