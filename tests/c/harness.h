/* SPDX-License-Identifier: MIT */
/*
 * A small test harness for the rtsched C tests.
 *
 *  - CHECK / CHECK_EQ / CHECK_ERR print file:line, the expression and the
 *    values (error numbers by name) and end the test case at once.
 *  - Every test case runs in a forked child, in its own process group, with a
 *    timeout: a hang becomes a failure (the whole group is killed), and
 *    scheduling parameters, affinities and robust lists die with the child.
 *  - SKIP(reason) ends a case with exit code 77; an executable whose cases all
 *    skipped exits 77 (ctest SKIP_RETURN_CODE 77).
 *  - Helpers for SCHED_FIFO threads pinned to a CPU, and for reading a
 *    thread's effective priority and state from /proc/self/task/<tid>/stat.
 *
 * Usage:
 *   static void test_foo(void) { CHECK_ERR(EBUSY, rts_mutex_trylock(&m)); }
 *   static const struct h_case cases[] = { H_CASE(test_foo, 5000), };
 *   int main(int argc, char **argv) { return h_main(argc, argv, cases, H_NCASES(cases)); }
 *
 * `./test_x name` runs only the case called name; H_VERBOSE=1 prints more.
 */
#ifndef RTSCHED_TESTS_HARNESS_H
#define RTSCHED_TESTS_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/common/clock_ns.h"
#include "../../tools/common/pinned_thread.h"

#define H_SKIP_CODE 77

#if defined(__SANITIZE_THREAD__)
#define H_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define H_TSAN 1
#endif
#endif
#ifndef H_TSAN
#define H_TSAN 0
#endif

/* ---- reporting ---------------------------------------------------------- */

static inline const char *h_errname(int e)
{
	if (e == 0)
		return "0";
	const char *name = strerrorname_np(e);
	return name ? name : "(unknown)";
}

__attribute__((noreturn, format(printf, 3, 4), unused)) static void
h_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: FAIL: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	fflush(stdout);
	_exit(1); /* the whole case (every thread) ends here */
}

__attribute__((noreturn, format(printf, 1, 2), unused)) static void h_skip(const char *fmt, ...)
{
	va_list ap;
	fputs("SKIP: ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	fflush(stderr);
	_exit(H_SKIP_CODE);
}

#define FAIL(...) h_fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define SKIP(...) h_skip(__VA_ARGS__)

#define CHECK(cond)                                              \
	do {                                                     \
		if (!(cond))                                     \
			FAIL("CHECK(%s) is false", #cond);       \
	} while (0)

#define CHECK_MSG(cond, ...)                                     \
	do {                                                     \
		if (!(cond))                                     \
			FAIL(__VA_ARGS__);                       \
	} while (0)

/* Integer comparison; both sides are evaluated once and printed. */
#define H_CHECK_CMP(a, op, b)                                                            \
	do {                                                                             \
		long long h_a_ = (long long)(a), h_b_ = (long long)(b);                   \
		if (!(h_a_ op h_b_))                                                     \
			FAIL("CHECK(%s %s %s): %lld %s %lld is false", #a, #op, #b, h_a_, #op, \
			     h_b_);                                                      \
	} while (0)
#define CHECK_EQ(a, b) H_CHECK_CMP(a, ==, b)
#define CHECK_NE(a, b) H_CHECK_CMP(a, !=, b)
#define CHECK_LT(a, b) H_CHECK_CMP(a, <, b)
#define CHECK_LE(a, b) H_CHECK_CMP(a, <=, b)
#define CHECK_GT(a, b) H_CHECK_CMP(a, >, b)
#define CHECK_GE(a, b) H_CHECK_CMP(a, >=, b)

/* expr returns 0 or a positive error number (the pthreads convention). */
#define CHECK_ERR(expected, expr)                                                        \
	do {                                                                             \
		int h_e_ = (expected);                                                   \
		int h_r_ = (expr);                                                       \
		if (h_r_ != h_e_)                                                        \
			FAIL("%s: expected %s (%d), got %s (%d)", #expr, h_errname(h_e_), h_e_, \
			     h_errname(h_r_), h_r_);                                     \
	} while (0)
#define CHECK_OK(expr) CHECK_ERR(0, expr)

/* A libc call that returns -1 and sets errno. */
#define CHECK_SYS(expr)                                                                  \
	do {                                                                             \
		if ((expr) == -1)                                                        \
			FAIL("%s failed: %s (%s)", #expr, h_errname(errno), strerror(errno)); \
	} while (0)

static inline bool h_verbose(void)
{
	const char *v = getenv("H_VERBOSE");
	return v && *v && strcmp(v, "0") != 0;
}

#define H_LOG(...)                                               \
	do {                                                     \
		if (h_verbose()) {                               \
			printf("  " __VA_ARGS__);                \
			putchar('\n');                           \
			fflush(stdout);                          \
		}                                                \
	} while (0)

/* ---- time --------------------------------------------------------------- */

/* An absolute deadline ms milliseconds from now on clock. */
static inline struct timespec h_deadline_ms(clockid_t clock, int64_t ms)
{
	return ns_timespec(clock_ns(clock) + ms * 1000000);
}

static inline void h_sleep_ms(int64_t ms)
{
	struct timespec ts = ns_timespec(ms * 1000000);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static inline void h_sleep_us(int64_t us)
{
	struct timespec ts = ns_timespec(us * 1000);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Timeouts scale up under sanitizers, which slow everything down. */
#if H_TSAN
#define H_SLOW 4
#else
#define H_SLOW 1
#endif

/*
 * Poll cond (sleeping 0.5 ms between polls, never spinning) until it holds;
 * fail the case, naming cond, when timeout_ms passes first.
 */
#define WAIT_FOR(cond, timeout_ms)                                                        \
	do {                                                                              \
		int64_t h_until_ = clock_ns(CLOCK_MONOTONIC) +                            \
				   (int64_t)(timeout_ms) * H_SLOW * 1000000;              \
		while (!(cond)) {                                                         \
			if (clock_ns(CLOCK_MONOTONIC) > h_until_)                         \
				FAIL("timed out after %d ms waiting for %s",              \
				     (int)(timeout_ms) * H_SLOW, #cond);                  \
			h_sleep_us(500);                                                  \
		}                                                                         \
	} while (0)

/* ---- threads, priorities, CPUs ------------------------------------------ */

static inline pid_t h_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Relaxed atomic accessors for plain fields shared between test threads. */
#define H_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define H_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define H_INC(p) __atomic_add_fetch((p), 1, __ATOMIC_ACQ_REL)

/*
 * Read field (1-based, as in proc(5)) of /proc/self/task/<tid>/stat.
 * Fields after the command name are counted from the last ')'.
 */
static inline bool h_proc_stat_field(pid_t tid, int field, char *out, size_t out_len)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	if (!p || field < 3)
		return false;
	p++; /* now at " state ..." : field 3 is the first token */
	for (int i = 3; i <= field; i++) {
		while (*p == ' ')
			p++;
		char *end = p;
		while (*end && *end != ' ')
			end++;
		if (i == field) {
			size_t len = (size_t)(end - p);
			if (len + 1 > out_len)
				return false;
			memcpy(out, p, len);
			out[len] = '\0';
			return true;
		}
		if (!*end)
			return false;
		p = end;
	}
	return false;
}

/* Field 18: the kernel priority; SCHED_FIFO rtprio r shows as -1 - r (boosts included). */
static inline int h_thread_prio(pid_t tid)
{
	char s[32];
	if (!h_proc_stat_field(tid, 18, s, sizeof(s)))
		FAIL("cannot read the prio of task %d", (int)tid);
	return atoi(s);
}

/* Field 3: R, S, D, ... ('?' if the thread is gone). */
static inline char h_thread_state(pid_t tid)
{
	char s[8];
	if (!h_proc_stat_field(tid, 3, s, sizeof(s)))
		return '?';
	return s[0];
}

static inline int h_fifo_prio_field(int rtprio)
{
	return -1 - rtprio;
}

/* Make the calling thread SCHED_FIFO at prio (SCHED_OTHER if prio == 0); SKIP on EPERM. */
static inline void h_set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	int ret = pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER, &sp);
	if (ret == EPERM)
		SKIP("SCHED_FIFO refused (EPERM): needs root or CAP_SYS_NICE / an RLIMIT_RTPRIO");
	if (ret)
		FAIL("pthread_setschedparam(SCHED_FIFO, %d): %s", prio, h_errname(ret));
}

static inline void h_pin_cpu(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	int ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (ret)
		FAIL("pthread_setaffinity_np(cpu %d): %s", cpu, h_errname(ret));
}

/*
 * Skip the case unless SCHED_FIFO is allowed, and pick two CPUs: *rt_cpu for
 * the real-time threads, *free_cpu for the (SCHED_OTHER) controller, so that
 * one CPU always stays free of real-time spinners.
 */
static inline void h_require_rt(int *rt_cpu, int *free_cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	int ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (ret == EPERM)
		SKIP("SCHED_FIFO refused (EPERM): needs root or CAP_SYS_NICE / an RLIMIT_RTPRIO");
	if (ret)
		FAIL("pthread_setschedparam(SCHED_FIFO, 1): %s", h_errname(ret));
	sp.sched_priority = 0;
	CHECK_OK(pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp));
	cpu_set_t set;
	CHECK_OK(pthread_getaffinity_np(pthread_self(), sizeof(set), &set));
	int first = -1, last = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			if (first < 0)
				first = c;
			last = c;
		}
	if (first == last)
		SKIP("needs 2 CPUs (one kept free of real-time threads), have only CPU %d", first);
	if (rt_cpu)
		*rt_cpu = last;
	if (free_cpu)
		*free_cpu = first;
	if (free_cpu)
		h_pin_cpu(first);
}

#if H_TSAN
/*
 * ThreadSanitizer's runtime takes spin locks that wait with sched_yield when
 * a thread ends: a SCHED_FIFO thread spinning there starves a lower-priority
 * holder on the same CPU for good. Under TSan, test threads therefore end
 * under SCHED_OTHER (after the test has checked their priorities).
 */
struct h_thread_body {
	void *(*fn)(void *);
	void *arg;
};

static inline void *h_thread_run_then_relax(void *arg)
{
	struct h_thread_body body = *(struct h_thread_body *)arg;
	free(arg);
	void *result = body.fn(body.arg);
	struct sched_param other = { .sched_priority = 0 };
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	return result;
}
#endif

/* Start fn(arg) as a SCHED_FIFO thread at prio (0: SCHED_OTHER) pinned to cpu (-1: any). */
static inline void h_thread_start(pthread_t *t, void *(*fn)(void *), void *arg, int prio, int cpu)
{
#if H_TSAN
	struct h_thread_body *body = (struct h_thread_body *)malloc(sizeof(*body)); /* C++ too */
	CHECK(body != NULL);
	*body = (struct h_thread_body){ fn, arg };
	fn = h_thread_run_then_relax;
	arg = body;
#endif
	int ret = pinned_thread_start(t, fn, arg, prio, cpu);
	if (ret == EPERM)
		SKIP("SCHED_FIFO thread refused (EPERM)");
	if (ret)
		FAIL("pthread_create (SCHED_FIFO %d, CPU %d): %s", prio, cpu, h_errname(ret));
}

/* Join with a deadline: a thread that does not finish fails the case. */
#define h_join(t, timeout_ms) h_join_at(__FILE__, __LINE__, (t), (timeout_ms))

static inline void h_join_at(const char *file, int line, pthread_t t, int timeout_ms)
{
	struct timespec dl = h_deadline_ms(CLOCK_REALTIME, (int64_t)timeout_ms * H_SLOW);
	int ret = pthread_timedjoin_np(t, NULL, &dl);
	if (ret)
		h_fail_at(file, line, "thread did not finish within %d ms: %s",
			  timeout_ms * H_SLOW, h_errname(ret));
}

/* Burn CPU for cpu_ms of this thread's CPU time, bounded by wall_ms of wall time. */
static inline void h_burn_cpu_ms(int cpu_ms, int wall_ms)
{
	int64_t cpu_end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (int64_t)cpu_ms * 1000000;
	int64_t wall_end = clock_ns(CLOCK_MONOTONIC) + (int64_t)wall_ms * 1000000;
	volatile unsigned x = 0;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < cpu_end && clock_ns(CLOCK_MONOTONIC) < wall_end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned)i;
}

/* ---- the runner ---------------------------------------------------------- */

struct h_case {
	const char *name;
	void (*fn)(void);
	int timeout_ms;
	void (*fn_arg)(int); /* table-driven cases: fn_arg(arg) instead of fn() */
	int arg;
};

#define H_CASE(fn, timeout_ms) { #fn, fn, timeout_ms, NULL, 0 }
#define H_NCASES(a) (sizeof(a) / sizeof((a)[0]))

/* 0 pass, 1 fail, 77 skip. */
static inline int h_run_case(const struct h_case *c)
{
	fflush(stdout);
	fflush(stderr);
	int64_t start = clock_ns(CLOCK_MONOTONIC);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (c->fn_arg)
			c->fn_arg(c->arg);
		else
			c->fn();
		fflush(stdout);
		exit(0); /* exit, not _exit: sanitizers report at exit */
	}
	setpgid(pid, pid);
	int64_t timeout_ns = (int64_t)c->timeout_ms * H_SLOW * 1000000;
	int status = 0;
	bool timed_out = false;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			perror("waitpid");
			return 1;
		}
		if (clock_ns(CLOCK_MONOTONIC) - start > timeout_ns) {
			timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		h_sleep_ms(2);
	}
	kill(-pid, SIGKILL); /* grandchildren a case left behind */
	int ms = (int)((clock_ns(CLOCK_MONOTONIC) - start) / 1000000);
	if (timed_out) {
		printf("FAIL %s: TIMEOUT after %d ms (hung; process group killed)\n", c->name, ms);
		return 1;
	}
	if (WIFSIGNALED(status)) {
		const char *sig = sigabbrev_np(WTERMSIG(status));
		printf("FAIL %s: killed by SIG%s after %d ms\n", c->name, sig ? sig : "?", ms);
		return 1;
	}
	int code = WEXITSTATUS(status);
	if (code == 0) {
		printf("ok   %s (%d ms)\n", c->name, ms);
		return 0;
	}
	if (code == H_SKIP_CODE) {
		printf("skip %s\n", c->name);
		return H_SKIP_CODE;
	}
	printf("FAIL %s: exit code %d after %d ms\n", c->name, code, ms);
	return 1;
}

static inline int h_main(int argc, char **argv, const struct h_case *cases, size_t n)
{
	int failed = 0, skipped = 0, ran = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < n; i++) {
		if (argc > 1) {
			bool wanted = false;
			for (int a = 1; a < argc; a++)
				wanted |= strcmp(argv[a], cases[i].name) == 0;
			if (!wanted)
				continue;
		}
		ran++;
		int r = h_run_case(&cases[i]);
		if (r == H_SKIP_CODE)
			skipped++;
		else if (r)
			failed++;
	}
	printf("%d cases: %d passed, %d failed, %d skipped\n", ran, ran - failed - skipped, failed,
	       skipped);
	if (ran == 0) {
		fprintf(stderr, "no case matched\n");
		return 1;
	}
	if (failed)
		return 1;
	return skipped == ran ? H_SKIP_CODE : 0;
}

#endif /* RTSCHED_TESTS_HARNESS_H */
