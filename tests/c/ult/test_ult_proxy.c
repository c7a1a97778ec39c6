/* SPDX-License-Identifier: MIT */
/*
 * Blocking system calls under the ult backend (<rtsched/blocking.h>,
 * docs/ult.md "Blocking system calls"): a ULT that blocks in read() on a
 * pipe leaves its worker to the other ULTs, whose jobs run on the same
 * worker kernel thread while it waits, and gets the writer's bytes exactly
 * when they come; results and errno come back from the proxy (EBADF, an
 * errno the call leaves alone); stopping the set interrupts a read that
 * waits (EINTR, as under the threads backend), and so does one interrupt,
 * after which the proxy serves the next call; and a stress of readers,
 * writers and busy ULTs on two CPUs loses and reorders no byte.
 */
#include <fcntl.h>
#include <unistd.h>

#include <rtsched/blocking.h>

#include "ult_actors.h"

static const char MESSAGE[] = "bytes through the pipe";

/* ---- a reader blocked in read() does not stop its worker -------------------- */

enum { R_CALLS = 1, O_JOB, O_WRITES, R_RETURNS, O_AFTER };

#define OTHER_JOBS 4

struct pipe_scene {
	int fds[2];
	atomic_int reader_done;
	pid_t reader_tid;     /* the worker kernel thread the reader called from */
	int reader_cpu;
	atomic_int other_tids_same; /* jobs of `other` on the reader's worker thread while it waited */
	atomic_int other_jobs_while_waiting;
	ssize_t got;
	char buf[64];
	int64_t read_wall_ns, read_cpu_ns; /* across the read: its wait, the reader's CPU time */
};

static void pipe_reader(struct actor *a)
{
	struct pipe_scene *s = a->scene;
	s->reader_tid = gettid();
	s->reader_cpu = rts_current_cpu();
	log_tag(R_CALLS);
	int64_t wall0 = now_ns(), cpu0 = rts_task_cputime_ns();
	s->got = rts_blocking_read(s->fds[0], s->buf, sizeof(s->buf));
	s->read_cpu_ns = rts_task_cputime_ns() - cpu0;
	s->read_wall_ns = now_ns() - wall0;
	log_tag(R_RETURNS);
	atomic_store(&s->reader_done, 1);
}

static void pipe_other(struct actor *a)
{
	struct pipe_scene *s = a->scene;
	int job = atomic_fetch_add(&a->step, 1) + 1;
	if (!atomic_load(&s->reader_done)) {
		atomic_fetch_add(&s->other_jobs_while_waiting, 1);
		if (gettid() == s->reader_tid && rts_current_cpu() == s->reader_cpu)
			atomic_fetch_add(&s->other_tids_same, 1);
	}
	if (job < OTHER_JOBS) {
		log_tag(O_JOB);
		return;
	}
	log_tag(O_WRITES);
	CHECK_EQ(write(s->fds[1], MESSAGE, sizeof(MESSAGE)), (ssize_t)sizeof(MESSAGE));
	/* The reader, of higher priority on this CPU, must come back through the
	 * wake path and preempt this busy job. */
	CHECK(busy_until(&s->reader_done, 1));
	log_tag(O_AFTER);
}

static void test_reader_in_read_does_not_stop_its_worker(void)
{
	static struct pipe_scene s;
	memset(&s, 0, sizeof(s));
	CHECK_SYS(pipe2(s.fds, O_CLOEXEC));
	struct actor actors[] = {
		{.name = "reader", .priority = 50, .cpu = 0, .play = pipe_reader, .scene = &s},
		{.name = "other", .priority = 30, .offset_ms = 2, .period_ms = 3, .jobs = OTHER_JOBS,
		 .cpu = 0, .play = pipe_other, .scene = &s},
	};
	run_actors("ult:pfp", actors, 2);
	const int want[] = {R_CALLS, O_JOB, O_JOB, O_JOB, O_WRITES, R_RETURNS, O_AFTER};
	check_log(want, 7);
	/* Every job of `other` ran while the reader waited, on the reader's worker. */
	CHECK_EQ(atomic_load(&s.other_jobs_while_waiting), OTHER_JOBS);
	CHECK_EQ(atomic_load(&s.other_tids_same), OTHER_JOBS);
	CHECK_EQ(s.got, (ssize_t)sizeof(MESSAGE));
	CHECK_EQ(memcmp(s.buf, MESSAGE, sizeof(MESSAGE)), 0);
	CHECK_EQ(actors[1].stats.jobs_completed, (uint32_t)OTHER_JOBS);
	/* The wait in the proxy is not the reader's CPU time: it spans the other
	 * task's jobs (about 11 ms), the reader's own part is the hand-off. */
	CHECK_LT(s.read_cpu_ns * 10, s.read_wall_ns);
	close(s.fds[0]);
	close(s.fds[1]);
}

/* ---- results and errno come back from the proxy -------------------------- */

struct errno_scene {
	int fds[2];
	ssize_t bad_fd, wrong_end, ok;
	int bad_fd_errno, wrong_end_errno, ok_errno;
	long custom;
	int custom_errno;
	pid_t caller_tid, callee_tid;
	/* The proxy as the call sees it. */
	int policy, priority;
	bool wake_signal_open, ult_signal_blocked, sigint_blocked;
	int n_cpus, cpu;
};

static long custom_call(void *arg)
{
	struct errno_scene *s = arg;
	s->callee_tid = gettid();
	struct sched_param param;
	pthread_getschedparam(pthread_self(), &s->policy, &param);
	s->priority = param.sched_priority;
	sigset_t mask;
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	s->wake_signal_open = !sigismember(&mask, SIGRTMAX - 1);
	s->ult_signal_blocked = sigismember(&mask, RTS_ULT_SIGNAL);
	s->sigint_blocked = sigismember(&mask, SIGINT);
	cpu_set_t cpus;
	pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	s->n_cpus = CPU_COUNT(&cpus);
	s->cpu = sched_getcpu();
	errno = ERANGE;
	return 42;
}

static void errno_player(struct actor *a)
{
	struct errno_scene *s = a->scene;
	char byte = 0;
	s->bad_fd = rts_blocking_read(-1, &byte, 1);
	s->bad_fd_errno = errno;
	s->wrong_end = rts_blocking_write(s->fds[0], &byte, 1); /* the read end */
	s->wrong_end_errno = errno;
	errno = EOWNERDEAD; /* a successful write(2) leaves errno alone: so must the proxy */
	s->ok = rts_blocking_write(s->fds[1], "x", 1);
	s->ok_errno = errno;
	s->caller_tid = gettid();
	s->custom = rts_blocking_call(custom_call, s);
	s->custom_errno = errno;
}

static void test_errno_comes_back(void)
{
	static struct errno_scene s;
	memset(&s, 0, sizeof(s));
	CHECK_SYS(pipe2(s.fds, O_CLOEXEC));
	struct actor actors[] = {{.name = "caller", .priority = 40, .cpu = 0, .play = errno_player, .scene = &s}};
	run_actors("ult:pfp", actors, 1);
	CHECK_EQ(s.bad_fd, -1);
	CHECK_EQ(s.bad_fd_errno, EBADF);
	CHECK_EQ(s.wrong_end, -1);
	CHECK_EQ(s.wrong_end_errno, EBADF);
	CHECK_EQ(s.ok, 1);
	CHECK_EQ(s.ok_errno, EOWNERDEAD);
	CHECK_EQ(s.custom, 42);
	CHECK_EQ(s.custom_errno, ERANGE);
	CHECK_NE(s.callee_tid, s.caller_tid); /* it ran in the proxy, not on the worker */
	/* ... SCHED_FIFO just above the workers, on the ULT's one-CPU cluster, with
	 * every signal blocked but the wake signal that interrupts its calls */
	CHECK_EQ(s.policy, SCHED_FIFO);
	CHECK_EQ(s.priority, RTS_ULT_WORKER_PRIORITY + 1);
	CHECK_EQ(s.n_cpus, 1);
	int cpus[8];
	allowed_cpus(1, cpus, 8);
	CHECK_EQ(s.cpu, cpus[0]);
	CHECK(s.wake_signal_open);
	CHECK(s.ult_signal_blocked);
	CHECK(s.sigint_blocked);
	s.callee_tid = 0;
	/* Outside any task the call is made in place. */
	char byte;
	errno = 0;
	CHECK_EQ(rts_blocking_read(-1, &byte, 1), -1);
	CHECK_EQ(errno, EBADF);
	CHECK_EQ(rts_blocking_call(custom_call, &s), 42);
	CHECK_EQ(s.callee_tid, gettid());
	close(s.fds[0]);
	close(s.fds[1]);
}

/* ---- stopping the set interrupts a read that waits (both backends) ------- */

/*
 * Whether this platform ends a kernel thread's read() on a pipe when the
 * wake signal (SIGRTMAX-1, rtsched's handler: no SA_RESTART) reaches it,
 * as Linux does. qemu-user (scripts/test-aarch64) does not: there the
 * interrupt tests skip, for the threads backend as for ult.
 */
struct probe {
	int fds[2];
	atomic_int done;
	ssize_t got;
	int got_errno;
};

static void *probe_reader(void *arg)
{
	struct probe *p = arg;
	char byte;
	p->got = read(p->fds[0], &byte, 1);
	p->got_errno = errno;
	atomic_store(&p->done, 1);
	return NULL;
}

static void skip_unless_wake_signal_interrupts_read(void)
{
	rts_taskset_t *set; /* installs rtsched's handler of the wake signal */
	CHECK_OK(rts_taskset_create(&set, NULL));
	rts_taskset_destroy(set);
	static struct probe p;
	memset(&p, 0, sizeof(p));
	CHECK_SYS(pipe2(p.fds, O_CLOEXEC));
	pthread_t t;
	CHECK_OK(pthread_create(&t, NULL, probe_reader, &p));
	int64_t give_up = now_ns() + 1000 * MS;
	while (!atomic_load(&p.done) && now_ns() < give_up) {
		pthread_kill(t, SIGRTMAX - 1);
		h_sleep_ms(20);
	}
	bool interrupted = atomic_load(&p.done) && p.got == -1 && p.got_errno == EINTR;
	if (!atomic_load(&p.done))
		CHECK_EQ(write(p.fds[1], "x", 1), 1);
	pthread_join(t, NULL);
	close(p.fds[0]);
	close(p.fds[1]);
	if (!interrupted)
		SKIP("the wake signal does not interrupt a blocked read() here (qemu-user?)");
}

struct eintr_scene {
	int fds[2];
	atomic_int calling;
	ssize_t got;
	int got_errno;
};

static void eintr_job(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task, (void)job;
	struct eintr_scene *s = arg;
	char buf[8];
	atomic_store(&s->calling, 1);
	s->got = rts_blocking_read(s->fds[0], buf, sizeof(buf));
	s->got_errno = errno;
}

static void run_eintr(const char *backend)
{
	skip_unless_wake_signal_interrupts_read();
	static struct eintr_scene s;
	memset(&s, 0, sizeof(s));
	CHECK_SYS(pipe2(s.fds, O_CLOEXEC));
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	ult_set_backend_or_skip(set, backend);
	int allowed[8];
	allowed_cpus(1, allowed, 8);
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(allowed[0], &cpus);
	struct rts_task_params p = {
		.name = "reader", .kind = RTS_TASK_PERIODIC, .period_ns = 1000 * MS,
		.deadline_ns = 1000 * MS, .max_jobs = 1, .policy = RTS_POLICY_FIFO, .priority = 40,
		.cpus = &cpus,
	};
	rts_task_t *task;
	int err = rts_task_create(set, &p, eintr_job, &s, &task);
	if (err == EPERM)
		SKIP("%s", rts_taskset_error(set));
	CHECK_MSG(err == 0, "%s", rts_taskset_error(set));
	CHECK_OK(rts_taskset_release(set, now_ns() + 5 * MS));
	WAIT_FOR(atomic_load(&s.calling), 2000);
	h_sleep_ms(20); /* let the read block (a stop before it is interrupted just the same) */
	CHECK_OK(rts_taskset_stop(set));
	CHECK_OK(rts_taskset_join(set));
	rts_taskset_destroy(set);
	CHECK_EQ(s.got, -1);
	CHECK_EQ(s.got_errno, EINTR);
	close(s.fds[0]);
	close(s.fds[1]);
}

static void test_stop_interrupts_read_under_ult(void)
{
	run_eintr("ult:pfp");
}

static void test_stop_interrupts_read_under_threads(void)
{
	run_eintr("threads");
}

/* ---- one interrupt ends the call with EINTR, and the proxy serves the next -- */

enum { X_CALLS = 1, X_INTERRUPTS, X_EINTR, X_WRITES, X_GOT };

struct interrupt_scene {
	int fds[2];
	struct actor *reader;
	ssize_t first, second;
	int first_errno;
	char buf[64];
};

static void interrupted_reader(struct actor *a)
{
	struct interrupt_scene *s = a->scene;
	log_tag(X_CALLS);
	s->first = rts_blocking_read(s->fds[0], s->buf, sizeof(s->buf));
	s->first_errno = errno;
	log_tag(X_EINTR);
	atomic_store(&a->step, 1);
	s->second = rts_blocking_read(s->fds[0], s->buf, sizeof(s->buf));
	log_tag(X_GOT);
	atomic_store(&a->step, 2);
}

static void interrupter(struct actor *a)
{
	struct interrupt_scene *s = a->scene;
	log_tag(X_INTERRUPTS);
	CHECK_OK(-rts_backend()->interrupt(atomic_load(&s->reader->id))); /* once */
	CHECK(busy_until(&s->reader->step, 1)); /* the reader, higher, preempts us at its EINTR */
	log_tag(X_WRITES);
	CHECK_EQ(write(s->fds[1], MESSAGE, sizeof(MESSAGE)), (ssize_t)sizeof(MESSAGE));
	CHECK(busy_until(&s->reader->step, 2));
}

static void test_interrupt_ends_the_call_and_the_proxy_serves_the_next(void)
{
	skip_unless_wake_signal_interrupts_read();
	static struct interrupt_scene s;
	memset(&s, 0, sizeof(s));
	CHECK_SYS(pipe2(s.fds, O_CLOEXEC));
	struct actor actors[] = {
		{.name = "reader", .priority = 50, .cpu = 0, .play = interrupted_reader, .scene = &s},
		{.name = "interrupter", .priority = 30, .offset_ms = 2, .cpu = 0, .play = interrupter, .scene = &s},
	};
	s.reader = &actors[0];
	run_actors("ult:pfp", actors, 2);
	const int want[] = {X_CALLS, X_INTERRUPTS, X_EINTR, X_WRITES, X_GOT};
	check_log(want, 5);
	CHECK_EQ(s.first, -1);
	CHECK_EQ(s.first_errno, EINTR);
	CHECK_EQ(s.second, (ssize_t)sizeof(MESSAGE));
	CHECK_EQ(memcmp(s.buf, MESSAGE, sizeof(MESSAGE)), 0);
	close(s.fds[0]);
	close(s.fds[1]);
}

/* ---- stress: pairs through pipes beside busy ULTs, two CPUs ---------------- */

#define PAIRS 3
#define MESSAGES 40

struct stress_scene {
	int fds[PAIRS][2];
	int received[PAIRS];   /* messages read in order */
	int out_of_order;
	atomic_int busy_jobs;
};

static void stress_writer(struct actor *a)
{
	struct stress_scene *s = a->scene;
	int pair = a->result;
	for (int m = 0; m < MESSAGES; m++) {
		uint32_t word = (uint32_t)(pair << 16 | m);
		CHECK_EQ(rts_blocking_write(s->fds[pair][1], &word, sizeof(word)), (ssize_t)sizeof(word));
		if (m % 8 == 7)
			CHECK_OK(rts_task_sleep_until(now_ns() + MS / 2));
	}
}

static void stress_reader(struct actor *a)
{
	struct stress_scene *s = a->scene;
	int pair = a->result;
	for (int m = 0; m < MESSAGES; m++) {
		uint32_t word;
		CHECK_EQ(rts_blocking_read(s->fds[pair][0], &word, sizeof(word)), (ssize_t)sizeof(word));
		if (word != (uint32_t)(pair << 16 | m))
			s->out_of_order++;
		s->received[pair]++;
	}
}

static void stress_busy(struct actor *a)
{
	struct stress_scene *s = a->scene;
	busy_us(300);
	atomic_fetch_add(&s->busy_jobs, 1);
}

/* Partitioned: a pair's reader and writer on different CPUs (when there are
 * two), so the proxy's wake crosses CPUs; global: anywhere. */
static int stress_actors(struct actor *actors, struct stress_scene *s, bool partitioned)
{
	int allowed[8];
	int n_cpus = allowed_cpus(1, allowed, 8);
	int n = 0;
	for (int i = 0; i < PAIRS; i++) {
		/* readers first and higher: they wait in read before their writer runs */
		actors[n++] = (struct actor){.name = "reader", .priority = 60 - i,
					     .cpu = partitioned ? i % n_cpus : -1,
					     .play = stress_reader, .scene = s, .result = i};
		actors[n++] = (struct actor){.name = "writer", .priority = 40 - i, .offset_ms = 1,
					     .cpu = partitioned ? (i + 1) % n_cpus : -1,
					     .play = stress_writer, .scene = s, .result = i};
	}
	for (int i = 0; i < 2; i++)
		actors[n++] = (struct actor){.name = "busy", .priority = 10 + i, .jobs = 20, .period_ms = 2,
					     .cpu = partitioned ? i % n_cpus : -1,
					     .play = stress_busy, .scene = s};
	return n;
}

static void test_stress_pairs_and_busy_ults(void)
{
	static struct stress_scene s;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < PAIRS; i++)
		CHECK_SYS(pipe2(s.fds[i], O_CLOEXEC));
	/* the global forms need clusters of two CPUs, which AArch64 refuses (ult_arch.h) */
	const char *const forms[] = {"ult:pfp", "ult:gfp", "ult:gedf"};
	int n_forms = ULT_MIGRATION_ALLOWED ? 3 : 1;
	for (int f = 0; f < n_forms; f++) {
		const char *form = forms[f];
		struct actor actors[2 * PAIRS + 2];
		int n = stress_actors(actors, &s, strcmp(form, "ult:pfp") == 0);
		memset(s.received, 0, sizeof(s.received));
		s.out_of_order = 0;
		atomic_store(&s.busy_jobs, 0);
		run_actors(form, actors, n);
		for (int i = 0; i < PAIRS; i++)
			CHECK_EQ(s.received[i], MESSAGES);
		CHECK_EQ(s.out_of_order, 0);
		CHECK_EQ(atomic_load(&s.busy_jobs), 40);
	}
	for (int i = 0; i < PAIRS; i++) {
		close(s.fds[i][0]);
		close(s.fds[i][1]);
	}
}

static const struct h_case cases[] = {
	H_CASE(test_reader_in_read_does_not_stop_its_worker, 20000),
	H_CASE(test_errno_comes_back, 20000),
	H_CASE(test_stop_interrupts_read_under_ult, 20000),
	H_CASE(test_stop_interrupts_read_under_threads, 20000),
	H_CASE(test_interrupt_ends_the_call_and_the_proxy_serves_the_next, 20000),
	H_CASE(test_stress_pairs_and_busy_ults, 60000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
