/* SPDX-License-Identifier: MIT */
/*
 * A ult worker's own CPU time without a system call (internal/worker_cpu_clock.h).
 *
 * The worker opens a software task-clock counter on itself
 * (perf_event_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, pid 0,
 * cpu -1)) and maps its first page, struct perf_event_mmap_page, which the
 * kernel rewrites under a sequence count whenever it updates the event (at
 * least each time the thread is switched in). A task-clock event runs
 * exactly while its thread runs, so its time_running is the thread's CPU
 * time since the counter was opened, as of the page's last update; and
 * while we read it the thread runs, so the event is active and its running
 * time has grown since that update by the time elapsed since it. That
 * elapsed time comes from the TSC with the page's conversion
 * (the kernel's uapi header <linux/perf_event.h>, "If cap_usr_time"):
 *
 *     quot  = cyc >> time_shift;  rem = cyc & ((1 << time_shift) - 1);
 *     delta = time_offset + quot * time_mult + ((rem * time_mult) >> time_shift);
 *
 * where time_offset is the kernel's clock offset minus the update's time:
 * delta is the ns since the update. With cap_user_time_short the TSC is
 * narrower than 64 bits and cyc is first corrected to
 * time_cycles + ((cyc - time_cycles) & time_mask).
 *
 * The whole read (fields and rdtsc) is retried until the sequence count is
 * the same, and even, before and after it: an update (the thread switched
 * in, a tick) that lands in between is on this CPU, by an interrupt or the
 * scheduler, and moves the count.
 *
 * The clock's origin is the thread's CLOCK_THREAD_CPUTIME_ID at open minus
 * the page's reading then, so a read that must fall back (the kernel clears
 * cap_user_time if the TSC becomes unstable) stays on the same scale.
 *
 * That the page is rewritten when the thread comes back to a CPU (so the
 * extrapolation never spans time away) is checked once at open: across a
 * 2 ms sleep the extrapolated running time must grow as
 * CLOCK_THREAD_CPUTIME_ID does, else PERF_SEQ is used.
 *
 * Where the page has no cap_user_time (the kernel's sched_clock is not the
 * TSC, as under kvm-clock; or off x86-64) the page still says when the
 * thread was switched in: its sequence count moves (PERF_SEQ, seq_read_ns).
 * In between, the thread's CPU time grows as wall time, read from the vDSO.
 *
 * Falls back to clock_gettime(CLOCK_THREAD_CPUTIME_ID) for good when the
 * counter is refused (perf_event_paranoid above 2 without CAP_PERFMON,
 * seccomp, no perf events).
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal/worker_cpu_clock.h"

static int64_t thread_cputime_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

#if defined(__x86_64__)
#define ON_X86_64 1

static inline uint64_t read_tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* The page's running time now, or -1 when it has no cap_user_time. */
static int64_t page_running_ns(const volatile struct perf_event_mmap_page *pc)
{
	for (;;) {
		uint32_t seq = pc->lock;
		atomic_signal_fence(memory_order_acquire); /* the page's writer is this CPU */
		if (seq & 1)
			continue;
		uint64_t running = pc->time_running;
		uint64_t caps = pc->capabilities;
		uint64_t offset = pc->time_offset;
		uint32_t mult = pc->time_mult;
		uint16_t shift = pc->time_shift;
		uint64_t cycles = pc->time_cycles;
		uint64_t mask = pc->time_mask;
		uint64_t cyc = read_tsc();
		atomic_signal_fence(memory_order_acquire);
		if (pc->lock != seq)
			continue;
		const struct perf_event_mmap_page bits = {.capabilities = caps};
		if (!bits.cap_user_time)
			return -1;
		if (bits.cap_user_time_short)
			cyc = cycles + ((cyc - cycles) & mask);
		uint64_t quot = cyc >> shift;
		uint64_t rem = cyc & (((uint64_t)1 << shift) - 1);
		uint64_t delta = offset + quot * mult + ((rem * mult) >> shift);
		return (int64_t)(running + delta);
	}
}
#else
#define ON_X86_64 0

static int64_t page_running_ns(const volatile struct perf_event_mmap_page *pc)
{
	(void)pc; /* no TSC read written for this architecture: open() never maps it */
	return -1;
}
#endif

static int fall_back(struct rts_worker_cpu_clock *clock, int err, char *why, size_t why_len,
		     const char *what)
{
	if (clock->page)
		munmap((void *)clock->page, (size_t)sysconf(_SC_PAGESIZE));
	if (clock->fd >= 0)
		close(clock->fd);
	*clock = RTS_WORKER_CPU_CLOCK_NONE;
	snprintf(why, why_len, "ULT CPU time read with clock_gettime(CLOCK_THREAD_CPUTIME_ID), a "
		 "system call per switch: %s", what);
	return err;
}

/* The calling thread's identity, one %fs-relative address: only the clock's owner writes
 * its sync (a ULT preempted inside a read may resume on another worker and finish the read
 * there, with the first worker's clock: its result is thrown away, rts_ult_self_run_ns). */
static __thread char thread_token __attribute__((tls_model("initial-exec")));

static const void *this_thread(void)
{
	return &thread_token;
}

static int64_t monotonic_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static uint32_t page_seq(const volatile struct perf_event_mmap_page *pc)
{
	uint32_t seq = pc->lock;
	atomic_signal_fence(memory_order_seq_cst); /* the page's writer is this CPU */
	return seq;
}

/* The thread's CPU time and a CLOCK_MONOTONIC time inside its reading. */
static void resync(struct rts_worker_cpu_clock_sync *now)
{
	int64_t before = monotonic_ns();
	now->cpu_ns = thread_cputime_ns();
	now->mono_ns = before + (monotonic_ns() - before) / 2;
}

/*
 * The longest a PERF_SEQ reading extends the last system call with wall
 * time. The host's steal of a virtual CPU is no switch the guest sees: the
 * page does not move, and CLOCK_MONOTONIC runs on; CLOCK_THREAD_CPUTIME_ID
 * leaves it out (CONFIG_PARAVIRT_TIME_ACCOUNTING). So a reading counts at
 * most this much steal, and the next reading after it is exact again.
 */
#define SEQ_SPAN_NS (200 * 1000)

/*
 * PERF_SEQ. The invariant: while the page's sequence count is the one
 * sync.lock recorded, the thread has not been switched in since sync was
 * taken (each switch-in rewrites the page), so it has run all along and its
 * CPU time is sync.cpu_ns plus the CLOCK_MONOTONIC time since sync.mono_ns
 * (host steal aside: SEQ_SPAN_NS). The count is read before and after the
 * monotonic read, so the thread ran until that read at least. Once the count
 * moved, or SEQ_SPAN_NS passed, a system call takes sync again; if the count
 * moves during it, the call is made again.
 */
static int64_t seq_read_ns(struct rts_worker_cpu_clock *clock)
{
	struct rts_worker_cpu_clock_sync *sync = &clock->sync;
	for (;;) {
		uint32_t gen = sync->gen;
		atomic_signal_fence(memory_order_seq_cst);
		/* else: a read in a handler, inside a write; or not the owner */
		bool writable = !(gen & 1) && clock->owner == this_thread();
		uint32_t seq = page_seq(clock->page);
		int64_t mono = monotonic_ns();
		if (page_seq(clock->page) != seq || (seq & 1))
			continue;
		struct rts_worker_cpu_clock_sync now = *sync;
		atomic_signal_fence(memory_order_seq_cst);
		if (sync->gen != gen)
			continue; /* a handler wrote it meanwhile */
		int64_t cpu_ns;
		if (writable && now.lock == seq && now.mono_ns && mono - now.mono_ns < SEQ_SPAN_NS) {
			cpu_ns = now.cpu_ns + (mono - now.mono_ns);
		} else {
			resync(&now);
			if (page_seq(clock->page) != seq)
				continue; /* switched out and in during the call */
			now.lock = seq;
			cpu_ns = now.cpu_ns;
		}
		if (cpu_ns < now.last_ns)
			cpu_ns = now.last_ns;
		if (!writable)
			return cpu_ns;
		now.last_ns = cpu_ns;
		now.gen = gen + 2;
		sync->gen = gen + 1;
		atomic_signal_fence(memory_order_seq_cst);
		sync->lock = now.lock;
		sync->cpu_ns = now.cpu_ns;
		sync->mono_ns = now.mono_ns;
		sync->last_ns = now.last_ns;
		atomic_signal_fence(memory_order_seq_cst);
		sync->gen = gen + 2;
		return cpu_ns;
	}
}

int rts_worker_cpu_clock_open(struct rts_worker_cpu_clock *clock, char *why, size_t why_len)
{
	*clock = RTS_WORKER_CPU_CLOCK_NONE;
	clock->owner = this_thread();
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
		/* its running time is the same either way; without them an unprivileged thread is
		 * refused at perf_event_paranoid 2 (the default), which allows user-space counting */
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		char what[160];
		snprintf(what, sizeof(what), "perf_event_open(task-clock) refused: %s%s", strerror(err),
			 err == EACCES || err == EPERM ? " (kernel.perf_event_paranoid, or seccomp)" : "");
		return fall_back(clock, err, why, why_len, what);
	}
	clock->fd = fd;
	void *page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		int err = errno;
		char what[160];
		snprintf(what, sizeof(what), "mapping the perf page failed: %s", strerror(err));
		return fall_back(clock, err, why, why_len, what);
	}
	clock->page = page;
	int64_t page_ns = page_running_ns(clock->page);
	int64_t thread_ns = thread_cputime_ns();
	const char *seq_why = ON_X86_64 ? "the perf page has no cap_user_time (sched_clock is not "
					  "the TSC: kvm-clock?)"
					: "the perf page is extrapolated with rdtsc, on x86-64 only";
	if (page_ns >= 0) {
		/* Checked once: a page last rewritten when the thread left its CPU
		 * (not when it came back) would extrapolate across the time away. */
		struct timespec away = {.tv_nsec = 2000000};
		nanosleep(&away, NULL);
		int64_t page_adv = page_running_ns(clock->page) - page_ns;
		int64_t thread_adv = thread_cputime_ns() - thread_ns;
		if (page_adv - thread_adv < away.tv_nsec / 2) {
			clock->origin_ns = thread_ns - page_ns;
			clock->method = RTS_WORKER_CPU_CLOCK_PERF_MMAP;
			return 0;
		}
		seq_why = "the perf page's extrapolation counted time the thread slept";
	}
	clock->method = RTS_WORKER_CPU_CLOCK_PERF_SEQ;
	snprintf(why, why_len, "ULT CPU time: CLOCK_MONOTONIC while the worker keeps its CPU, "
		 "CLOCK_THREAD_CPUTIME_ID once after each switch-in: %s", seq_why);
	return 0;
}

int64_t rts_worker_cpu_clock_ns(struct rts_worker_cpu_clock *clock)
{
	if (clock->method == RTS_WORKER_CPU_CLOCK_PERF_SEQ)
		return seq_read_ns(clock);
	if (clock->page) {
		int64_t page_ns = page_running_ns(clock->page);
		if (page_ns >= 0)
			return clock->origin_ns + page_ns;
	}
	return thread_cputime_ns();
}

void rts_worker_cpu_clock_close(struct rts_worker_cpu_clock *clock)
{
	if (clock->page)
		munmap((void *)clock->page, (size_t)sysconf(_SC_PAGESIZE));
	if (clock->fd >= 0)
		close(clock->fd);
	*clock = RTS_WORKER_CPU_CLOCK_NONE;
}

const char *rts_worker_cpu_clock_method_name(enum rts_worker_cpu_clock_method method)
{
	switch (method) {
	case RTS_WORKER_CPU_CLOCK_PERF_MMAP:
		return "perf-mmap";
	case RTS_WORKER_CPU_CLOCK_PERF_SEQ:
		return "perf-seq";
	case RTS_WORKER_CPU_CLOCK_THREAD_CPUTIME:
		break;
	}
	return "thread-cputime";
}
