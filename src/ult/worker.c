/* SPDX-License-Identifier: MIT */
/*
 * The ult backend's workers (internal/ult.h has the state, the locking
 * order and the signal rules; docs/ult.md the design).
 *
 * A worker is a kernel thread pinned to one CPU under SCHED_FIFO (under
 * SCHED_DEADLINE when a reservation enforced by the kernel holds its CPU:
 * ult/kernel_reservation.c). Its own
 * stack runs the scheduler loop; ULTs run on theirs. A ULT gives the CPU
 * back by switching to its worker's scheduler (to sleep, to end, or from the
 * signal handler when preempted); the scheduler then, under the cluster
 * lock, files the ULT where its request says, releases the due jobs, takes
 * the highest-priority ready ULT, tells the other workers of the cluster
 * what they must run instead (futex wake if idle, tgkill if busy with a
 * lower-priority ULT), unlocks, and switches to its choice. A ULT is filed
 * only after its registers are saved, so no other worker can resume it half
 * saved, and the lock is never held across a switch.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rtsched/sched.h>
#include <rtsched/trace.h>

#include "internal/backend.h"
#include "internal/kernel_reservation.h"
#include "internal/no_switch.h"
#include "internal/task.h"
#include "internal/timespec.h"
#include "internal/ult.h"
#include "internal/ult_probe.h"

static __thread struct rts_ult_worker *self_worker __attribute__((tls_model("initial-exec")));

/*
 * Switches held off on this kernel thread: its worker is in its scheduler,
 * or the ULT it runs holds them off (rts_ult_hold_switches); the signal
 * handler then only marks a rescheduling. Read and written only by the
 * kernel thread and its handler.
 *
 * Invariant: a ULT sets and clears the flag of the kernel thread it runs on
 * at that instruction. So the flag is thread-local, written as a plain
 * volatile store (one %fs-relative instruction on x86-64, where ULTs
 * migrate; AArch64 keeps them on one worker), never through a worker
 * pointer read beforehand: a preemption between that read and the store
 * (the flag still clear) could resume the ULT on another worker, and the
 * store would then land in the first worker's flag, leaving the ULT's new
 * worker free to switch it out while it holds wait_lock or a cluster lock,
 * and every worker then waits for that lock. Nor an atomic: under TSan an
 * atomic store runs the deferred signal handlers first, inside the call,
 * with the address already computed (TSan fell into that window often:
 * test_ult_proxy's stress hung under G-FP and G-EDF, both workers in
 * pthread_mutex_lock(wait_lock), its owner a ULT switched out in the
 * handler).
 */
static __thread volatile sig_atomic_t in_scheduler __attribute__((tls_model("initial-exec")));

static void set_in_scheduler(sig_atomic_t value)
{
	atomic_signal_fence(memory_order_seq_cst);
	in_scheduler = value;
	atomic_signal_fence(memory_order_seq_cst);
}

bool rts_ult_switches_held(void)
{
	return in_scheduler != 0;
}

/*
 * Read afresh on every call: a ULT that switched out may resume on another
 * worker, so nothing derived from TLS before a switch is valid after it.
 * noinline and the asm keep the compiler from reusing an earlier answer.
 */
__attribute__((noinline)) struct rts_ult_worker *rts_ult_worker_self(void)
{
	__asm__ volatile("" ::: "memory");
	return self_worker;
}

/*
 * The ULT this kernel thread runs (NULL: its scheduler, or not a worker),
 * set by the scheduler just before it switches to a ULT. Thread-local for
 * the reason in_scheduler is: read through a worker pointer (w->current), a
 * preemption between the two loads that moved the ULT to another worker
 * would return the first worker's ULT, another identity; this is one
 * %fs-relative load on x86-64 (AArch64 keeps ULTs on one worker).
 */
static __thread struct rts_ult *volatile running_ult __attribute__((tls_model("initial-exec")));

struct rts_ult *rts_ult_self(void)
{
	return running_ult;
}

/* errno is the kernel thread's: a ULT's own value travels with it, and a
 * ULT may resume on another worker between two reads, so the compiler must
 * never keep one errno address across a switch (noinline, the asm). */
__attribute__((noinline)) int rts_ult_errno_get(void)
{
	__asm__ volatile("" ::: "memory");
	return errno;
}

__attribute__((noinline)) void rts_ult_errno_set(int value)
{
	__asm__ volatile("" ::: "memory");
	errno = value;
}

static int64_t now_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return rts_timespec_to_ns(&now);
}

/* ---- timestamps for rtsched-ult-tables (internal/ult_probe.h) ---------- */

static _Atomic(struct rts_ult_probes *) probes_attached;

void rts_ult_probes_attach(struct rts_ult_probes *probes)
{
	atomic_store(&probes_attached, probes);
}

/* A decision's times, read only when its worker has probes. */
struct probe_times {
	int64_t begin_ns;   /* it starts looking */
	int64_t due_ns;     /* the earliest due wake it releases; 0: none */
	int64_t release_ns; /* its release work */
	int64_t request_ns; /* its requests to other workers */
};

/* Just before a futex wake or tgkill to w: the first request not yet seen. */
static void probe_request(struct rts_ult_worker *w)
{
	int64_t none = 0;
	if (w->probes)
		atomic_compare_exchange_strong_explicit(&w->probe_request_ns, &none, now_ns(),
							memory_order_relaxed, memory_order_relaxed);
}

/* w's handler or futex return: when a request was made, the first arrival after it. */
static void probe_arrival(struct rts_ult_worker *w)
{
	int64_t none = 0;
	if (w->probes && atomic_load_explicit(&w->probe_request_ns, memory_order_relaxed))
		atomic_compare_exchange_strong_explicit(&w->probe_arrival_ns, &none, now_ns(),
							memory_order_relaxed, memory_order_relaxed);
}

/* At a decision's start: a request and its arrival since the last one, if
 * both (a request the worker took in while looking anyway has none). */
static void probe_begin(struct rts_ult_worker *w, struct probe_times *t)
{
	*t = (struct probe_times){.begin_ns = now_ns()};
	int64_t request_ns = atomic_exchange_explicit(&w->probe_request_ns, 0, memory_order_relaxed);
	int64_t arrival_ns = atomic_exchange_explicit(&w->probe_arrival_ns, 0, memory_order_relaxed);
	if (request_ns && arrival_ns >= request_ns)
		rts_ult_probe_record(w->probes, w->cpu, RTS_ULT_PROBE_SIGNAL_LATENCY,
				     arrival_ns - request_ns);
}

/* At its end (just before the switch, or the futex wait if switches is false). */
static void probe_end(struct rts_ult_worker *w, const struct probe_times *t, bool switches)
{
	int64_t end_ns = now_ns();
	if (t->due_ns) {
		rts_ult_probe_record(w->probes, w->cpu, RTS_ULT_PROBE_EVENT_LATENCY,
				     t->begin_ns - t->due_ns);
		rts_ult_probe_record(w->probes, w->cpu, RTS_ULT_PROBE_RELEASE, t->release_ns);
		rts_ult_probe_record(w->probes, w->cpu, RTS_ULT_PROBE_REQUEST, t->request_ns);
	}
	if (switches)
		rts_ult_probe_record(w->probes, w->cpu, RTS_ULT_PROBE_SCHEDULING,
				     end_ns - t->begin_ns - t->release_ns - t->request_ns);
}

int64_t rts_ult_run_clock_ns(void)
{
	return rts_worker_cpu_clock_ns(&rts_ult_worker_self()->cpu_clock);
}

/*
 * The calling ULT's CPU time. A preemption (the worker's signal handler
 * switches the ULT out, docs/ult.md) may fall between any two reads: an old
 * switched_in_ns with a clock read after the ULT came back (maybe on
 * another worker, whose clock has another origin) would count its time away
 * as running (a compute loop then ended early). Every switch-in bumps
 * switch_ins, so the same count before and after the reads means no switch
 * came between them; otherwise read again.
 */
int64_t rts_ult_self_run_ns(void)
{
	struct rts_ult *u = rts_ult_self();
	if (!u)
		return 0;
	for (;;) {
		uint64_t switch_ins = *(volatile uint64_t *)&u->switch_ins;
		atomic_signal_fence(memory_order_seq_cst);
		int64_t in_ns = *(volatile int64_t *)&u->switched_in_ns;
		int64_t run_ns = *(volatile int64_t *)&u->run_ns;
		int64_t now = rts_ult_run_clock_ns();
		atomic_signal_fence(memory_order_seq_cst);
		if (*(volatile uint64_t *)&u->switch_ins == switch_ins)
			return run_ns + (now - in_ns);
	}
}

/* ---- the ULT's side ------------------------------------------------------ */

/*
 * Switch the calling ULT to its worker's scheduler with `request`; return
 * when it runs again. in_scheduler is set first, so that a signal arriving
 * from here on only marks a rescheduling. On return (maybe on another
 * worker) the ULT's errno is back and in_scheduler is clear; a signal that
 * came while the switch was in flight sends it round once more.
 */
static void switch_out(enum rts_ult_request request, int64_t wake_ns)
{
	for (;;) {
		set_in_scheduler(1); /* first: from here on the ULT stays on this worker */
		struct rts_ult_worker *w = rts_ult_worker_self();
		struct rts_ult *u = w->current;
		u->request = request;
		u->wake_ns_requested = wake_ns;
		u->saved_errno = rts_ult_errno_get();
		rts_trace_thread_state_save(&u->trace);
		rts_task_local_save(&u->local);
		rts_ult_context_switch(&u->context, &w->sched_context);

		w = rts_ult_worker_self(); /* resumed: maybe another worker */
		rts_ult_errno_set(u->saved_errno);
		set_in_scheduler(0);
		if (!atomic_load_explicit(&w->resched_pending, memory_order_relaxed))
			return;
		request = RTS_ULT_PREEMPTED;
	}
}

/* Every ULT starts here, on its own stack, switched to by a scheduler. */
void rts_ult_start(void *arg)
{
	struct rts_ult *u = arg;
	struct rts_ult_worker *w = rts_ult_worker_self();
	set_in_scheduler(0);
	if (atomic_load_explicit(&w->resched_pending, memory_order_relaxed))
		switch_out(RTS_ULT_PREEMPTED, 0);
	u->body(u->task);
	rts_ult_exit();
}

int rts_ult_sleep_until(int64_t time_ns)
{
	switch_out(RTS_ULT_SLEEP, time_ns);
	struct rts_ult *u = rts_ult_self();
	return u->sleep_result;
}

void rts_ult_block_self(int64_t timeout_ns)
{
	switch_out(RTS_ULT_BLOCK, timeout_ns);
}

struct rts_ult_worker *rts_ult_hold_switches(void)
{
	set_in_scheduler(1);
	return rts_ult_worker_self(); /* read once switches are held: it stays */
}

void rts_ult_allow_switches(void)
{
	struct rts_ult_worker *w = rts_ult_worker_self(); /* the same: nothing switched it out */
	set_in_scheduler(0);
	if (atomic_load_explicit(&w->resched_pending, memory_order_relaxed))
		switch_out(RTS_ULT_PREEMPTED, 0);
}

void rts_ult_exit(void)
{
	switch_out(RTS_ULT_EXIT, 0);
	__builtin_trap(); /* an ended ULT is never resumed */
}

/* A preemption that had to wait for the end of a section (internal/no_switch.h). */
static void preempt_after_section(void)
{
	if (running_ult && !in_scheduler)
		switch_out(RTS_ULT_PREEMPTED, 0);
}

/*
 * The signal: reschedule now (in a ULT), or at the next look (in the
 * scheduler), or when the ULT leaves a section it must not be switched out
 * of (internal/no_switch.h).
 */
static void on_ult_signal(int signo)
{
	(void)signo;
	struct rts_ult_worker *w = rts_ult_worker_self();
	if (!w)
		return;
	if (w->probes)
		probe_arrival(w);
	atomic_fetch_add_explicit(&w->wake_word, 1, memory_order_relaxed);
	if (in_scheduler) {
		atomic_store_explicit(&w->resched_pending, 1, memory_order_relaxed);
		return;
	}
	if (rts_no_switch_depth) {
		rts_no_switch_deferred = preempt_after_section;
		return;
	}
	switch_out(RTS_ULT_PREEMPTED, 0);
}

/* ---- the scheduler's side ------------------------------------------------ */

static void trace_ult(struct rts_ult *u, int64_t time_ns, uint16_t type, uint32_t arg0, int64_t arg1)
{
	if (u->task->stream)
		rts_trace_event_at(u->task->stream, time_ns, type, u->task->job.number, arg0, arg1);
}

/*
 * Up to max of the cluster's next events, earliest first: the sleepers'
 * wake times (one each), and the earliest of the blocked ULTs' timeouts and
 * the reservations' next replenishment or depletion. Under the lock.
 */
static int next_events(const struct rts_ult_cluster *c, int64_t *events, int max)
{
	int64_t other_ns = c->timeouts ? c->timeouts->timeout_ns : INT64_MAX;
	if (c->n_reservations && c->live_ults) { /* stopped with its last task */
		int64_t reservations_ns = rts_ult_reservations_next_ns(c);
		if (reservations_ns < other_ns)
			other_ns = reservations_ns;
	}
	int n = 0;
	for (const struct rts_ult *u = c->releases; u && n < max; u = u->next) {
		if (other_ns <= u->wake_ns) {
			events[n++] = other_ns;
			other_ns = INT64_MAX;
			if (n == max)
				break;
		}
		events[n++] = u->wake_ns;
	}
	if (n < max && other_ns != INT64_MAX)
		events[n++] = other_ns;
	return n;
}

static void set_timer(struct rts_ult_worker *w, int64_t at_ns)
{
	struct itimerspec when = {0};
	if (at_ns)
		when.it_value = rts_ns_to_timespec(at_ns);
	if (timer_settime(w->timer, TIMER_ABSTIME, &when, NULL) == 0)
		w->timer_armed_ns = at_ns;
}

/* Whether the event is still free; then take it. */
static bool take_event(int64_t *events, int n_events, int64_t event_ns)
{
	for (int i = 0; i < n_events; i++) {
		if (events[i] && events[i] == event_ns) {
			events[i] = 0;
			return true;
		}
	}
	return false;
}

/* The first free event, taken; 0 if none. */
static int64_t take_first_event(int64_t *events, int n_events)
{
	for (int i = 0; i < n_events; i++) {
		if (events[i]) {
			int64_t event_ns = events[i];
			events[i] = 0;
			return event_ns;
		}
	}
	return 0;
}

/*
 * Give the cluster's next events to its workers (internal/ult.h, "Release
 * timers"): the k idle workers not told to look take the first k events
 * (each sleeps until its own in its futex wait); with none idle, the timer
 * of the worker running the lowest-priority ULT is armed for the first
 * (its signal preempts that ULT), and no other timer is left armed. Under
 * the lock; now_ns is the caller's clock read (a timer armed for later has
 * not fired).
 */
static void arm_release_timer(struct rts_ult_cluster *c, int64_t now_ns)
{
	struct rts_ult_worker *self = rts_ult_worker_self();
	struct rts_ult_worker *lowest = NULL;
	int n_idle = 0;
	for (int i = 0; i < c->n_workers; i++) {
		struct rts_ult_worker *w = &c->workers[i];
		if (!w->current)
			n_idle += !w->kicked;
		else if (!lowest || rts_ult_before(lowest->current_key, lowest->current->id,
						     w->current_key, w->current->id)) {
			lowest = w;
		}
	}
	int64_t events[RTS_ULT_MAX_CPUS];
	int n_events = next_events(c, events, n_idle ? n_idle : 1);
	struct rts_ult_worker *timed = !n_idle && n_events ? lowest : NULL;
	struct rts_ult_worker *old = c->timer_worker;
	if (old && old != timed && old->timer_armed_ns) {
		if (old->timer_armed_ns > now_ns)
			set_timer(old, 0); /* it would interrupt its worker for nothing */
		old->timer_armed_ns = 0;
	}
	c->timer_worker = timed;
	if (timed && timed->has_timer && timed->timer_armed_ns != events[0])
		set_timer(timed, events[0]);
	if (!n_idle)
		return;
	/* An idle worker asleep until one of the events keeps it (no wake). */
	bool keeps[RTS_ULT_MAX_CPUS] = {false};
	for (int i = 0; i < c->n_workers; i++) {
		struct rts_ult_worker *w = &c->workers[i];
		if (!w->current && !w->kicked && w != self && w->idle_until_ns)
			keeps[i] = take_event(events, n_events, w->idle_until_ns);
	}
	/* The rest, earliest first, to the caller (awake), then by index; one
	 * asleep past its event is woken to look again (and take it). A worker
	 * left without one sleeps on: an earlier bound only wakes it early. */
	if (self && self->cluster == c && !self->current && !self->kicked)
		self->idle_until_ns = take_first_event(events, n_events);
	for (int i = 0; i < c->n_workers; i++) {
		struct rts_ult_worker *w = &c->workers[i];
		if (w->current || w->kicked || w == self || keeps[i])
			continue;
		int64_t event_ns = take_first_event(events, n_events);
		if (!event_ns)
			break;
		if (!w->idle_until_ns || w->idle_until_ns > event_ns) {
			atomic_fetch_add_explicit(&w->wake_word, 1, memory_order_release);
			rts_futex_wake(&w->wake_word, 1, false);
		}
	}
}

/* The calling worker (a ULT holding off switches) is told without a system
 * call: it looks again when it allows switches. */
static void kick(struct rts_ult_worker *w)
{
	w->kicked = true;
	if (w == rts_ult_worker_self()) {
		atomic_store_explicit(&w->resched_pending, 1, memory_order_relaxed);
	} else if (!w->current) {
		probe_request(w);
		atomic_fetch_add_explicit(&w->wake_word, 1, memory_order_release);
		rts_futex_wake(&w->wake_word, 1, false);
	} else {
		probe_request(w);
		syscall(SYS_tgkill, getpid(), atomic_load(&w->tid), RTS_ULT_SIGNAL);
	}
}

/*
 * Tell other workers of the cluster to run the ready ULTs that belong on a
 * CPU: for each ready ULT in priority order, an idle worker, else the
 * worker running the lowest-priority ULT if its key is larger (an equal
 * key does not preempt, as under SCHED_FIFO: a lock owner boosted to its
 * running waiter's priority must not take the CPU from it). A worker
 * already told is not counted twice. Under the lock; `self` (NULL: none) is
 * choosing on its own.
 */
static void kick_workers(struct rts_ult_cluster *c, const struct rts_ult_worker *self)
{
	for (struct rts_ult *u = c->ready; u; u = u->next) {
		struct rts_ult_worker *target = NULL;
		for (int i = 0; i < c->n_workers; i++) {
			struct rts_ult_worker *w = &c->workers[i];
			if (w == self || w->kicked)
				continue;
			if (!w->current) {
				target = w;
				break;
			}
			if (u->key >= w->current_key)
				continue; /* an equal key does not preempt (SCHED_FIFO's rule) */
			if (!target || rts_ult_before(target->current_key, target->current->id,
						      w->current_key, w->current->id))
				target = w;
		}
		if (!target)
			return; /* the rest are lower still */
		kick(target);
	}
}

void rts_ult_kick_workers(struct rts_ult_cluster *c)
{
	kick_workers(c, NULL);
}

void rts_ult_make_ready(struct rts_ult_cluster *c, struct rts_ult *u)
{
	if (u->state != RTS_ULT_BLOCKED) {
		/* Not filed yet (on its way out to its scheduler) or already ready
		 * or running (timed out or interrupted first): its block ends as
		 * woken (file_previous, or its own look at the wait table). */
		if (u->state == RTS_ULT_RUNNING)
			u->wake_pending = true;
		return;
	}
	if (u->timeout_ns)
		rts_ult_timeout_remove(c, u);
	u->block_end = RTS_ULT_BLOCK_WOKEN;
	rts_ult_ready_insert(c, u);
}

/* File the ULT that just switched out as its request says. Under the lock. */
static void file_previous(struct rts_ult_cluster *c, struct rts_ult *prev)
{
	switch (prev->request) {
	case RTS_ULT_PREEMPTED:
		rts_ult_ready_insert_preempted(c, prev);
		break;
	case RTS_ULT_SLEEP:
		prev->wake_ns = prev->wake_ns_requested;
		if (prev->interrupt_pending) {
			prev->interrupt_pending = false;
			prev->sleep_result = -EINTR;
			rts_ult_ready_insert(c, prev);
		} else {
			rts_ult_release_insert(c, prev);
		}
		break;
	case RTS_ULT_EXIT:
		prev->state = RTS_ULT_DONE;
		c->live_ults--;
		break;
	case RTS_ULT_BLOCK:
		prev->timeout_ns = prev->wake_ns_requested;
		prev->block_end = RTS_ULT_BLOCK_WOKEN;
		if (prev->wake_pending) {
			prev->wake_pending = false;
			rts_ult_ready_insert(c, prev);
		} else if (prev->interrupt_pending) {
			prev->interrupt_pending = false;
			prev->block_end = RTS_ULT_BLOCK_INTERRUPTED;
			rts_ult_ready_insert(c, prev);
		} else {
			prev->state = RTS_ULT_BLOCKED;
			if (prev->timeout_ns)
				rts_ult_timeout_insert(c, prev);
		}
		break;
	}
}

/*
 * The events of a ULT switched in: MIGRATE when a job goes on on another CPU
 * than it last ran on (a task whose next job starts elsewhere shows that in
 * its START), then RESUME after a PREEMPT.
 */
static void trace_switch_in(struct rts_ult_worker *w, struct rts_ult *u, int64_t time_ns)
{
	if (u->task->in_job && u->last_cpu >= 0 && u->last_cpu != w->cpu)
		trace_ult(u, time_ns, RTS_EV_MIGRATE, (uint32_t)u->last_cpu, w->cpu);
	u->last_cpu = w->cpu;
	if (u->preempted) {
		trace_ult(u, time_ns, RTS_EV_RESUME, (uint32_t)w->cpu, 0);
		u->preempted = false;
	}
}

static void schedule_loop(struct rts_ult_worker *w)
{
	struct rts_ult_cluster *c = w->cluster;
	struct rts_ult_runtime *rt = c->runtime;
	const struct rts_trace_thread_state no_trace = {0};
	struct rts_ult *prev = NULL;
	struct probe_times probe = {0};
	for (;;) {
		uint32_t seen = atomic_load_explicit(&w->wake_word, memory_order_acquire);
		atomic_store_explicit(&w->resched_pending, 0, memory_order_relaxed);
		if (w->probes)
			probe_begin(w, &probe);
		pthread_mutex_lock(&c->lock);
		/* Read under the lock: the events two workers record for one ULT
		 * (PREEMPT here, MIGRATE and RESUME there) are in time order. */
		int64_t now = now_ns();
		int64_t cpu_now = rts_worker_cpu_clock_ns(&w->cpu_clock);
		if (prev)
			prev->run_ns += cpu_now - prev->switched_in_ns;
		w->kicked = false;
		struct rts_ult *finished = prev && prev->request == RTS_ULT_EXIT ? prev : NULL;
		if (prev)
			file_previous(c, prev);
		w->current = NULL;
		if (w->probes) {
			probe.due_ns = c->releases && c->releases->wake_ns <= now ? c->releases->wake_ns : 0;
			probe.release_ns = now_ns();
		}
		rts_ult_release_due(c, now);
		rts_ult_timeouts_due(c, now);
		if (w->probes)
			probe.release_ns = now_ns() - probe.release_ns;
		/* The decision that files the last exit still charges its run. */
		bool reservations = c->n_reservations && (c->live_ults || finished);
		struct rts_ult *next = reservations ? rts_ult_reservations_pick(c, now, cpu_now)
						    : rts_ult_ready_pop(c);
		/* A job that blocks leaves its CPU as a preempted one does: its
		 * execution intervals end at the PREEMPT either way. */
		bool leaves = prev && (prev->request == RTS_ULT_PREEMPTED || prev->request == RTS_ULT_BLOCK);
		if (leaves && next != prev && prev->task->in_job) {
			trace_ult(prev, now, RTS_EV_PREEMPT, (uint32_t)w->cpu, 0); /* before another worker may resume it */
			prev->preempted = true;
		}
		if (next) {
			next->state = RTS_ULT_RUNNING;
			w->current = next;
			w->current_key = next->key;
		}
		int64_t requests_from_ns = w->probes ? now_ns() : 0;
		kick_workers(c, w);
		int64_t handout_from_ns = w->probes ? now_ns() : 0;
		arm_release_timer(c, now);
		if (w->probes) {
			probe.request_ns = handout_from_ns - requests_from_ns;
			probe.release_ns += now_ns() - handout_from_ns;
		}
		/* Idle, it sleeps until the event it was given, if any
		 * (arm_release_timer), or a futex wake. */
		int64_t idle_until_ns = next ? 0 : w->idle_until_ns;
		pthread_mutex_unlock(&c->lock);

		if (finished) {
			atomic_store_explicit(&finished->done, 1, memory_order_release);
			rts_futex_wake(&finished->done, INT_MAX, false);
		}
		prev = NULL;
		if (next) {
			int64_t in_ns = now_ns(); /* after prev's PREEMPT, stamped under the lock */
			trace_switch_in(w, next, in_ns);
			next->switch_ins++;
			atomic_signal_fence(memory_order_seq_cst); /* before the stamp: rts_ult_self_run_ns */
			next->switched_in_ns = rts_worker_cpu_clock_ns(&w->cpu_clock);
			rts_trace_thread_state_load(&next->trace);
			rts_task_local_load(&next->local);
			if (w->probes)
				probe_end(w, &probe, true);
			running_ult = next;
			rts_ult_context_switch(&w->sched_context, &next->context);
			running_ult = NULL;
			rts_trace_thread_state_load(&no_trace);
			prev = next;
			continue;
		}
		if (atomic_load(&rt->shutting_down))
			return;
		if (w->probes)
			probe_end(w, &probe, false);
		struct timespec idle_until = rts_ns_to_timespec(idle_until_ns);
		rts_futex_wait_until(&w->wake_word, seen, idle_until_ns ? &idle_until : NULL,
				     CLOCK_MONOTONIC, false);
		if (w->probes)
			probe_arrival(w);
	}
}

/* ---- start and stop ------------------------------------------------------- */

static int create_release_timer(struct rts_ult_worker *w, pid_t tid)
{
	struct sigevent event = {0};
	event.sigev_notify = SIGEV_THREAD_ID;
	event.sigev_signo = RTS_ULT_SIGNAL;
	event._sigev_un._tid = tid; /* sigev_notify_thread_id: glibc 2.36 headers lack the name */
	if (timer_create(CLOCK_MONOTONIC, &event, &w->timer) != 0)
		return errno;
	w->has_timer = true;
	return 0;
}

/* Pinned to its CPU, SCHED_FIFO; 0 or an error with why. */
static int take_fifo(const struct rts_ult_worker *w, char *why, size_t why_len)
{
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(w->cpu, &cpus);
	const struct rts_sched_params fifo = {.policy = RTS_POLICY_FIFO,
					      .priority = RTS_ULT_WORKER_PRIORITY};
	int err = rts_affinity_set_self(&cpus, why, why_len);
	return err ? err : rts_sched_apply_self(&fifo, why, why_len);
}

/* Its CPU clock; the runtime keeps the least direct method a worker got and why (the
 * first worker to get it says; rtsched run reports it). */
static void open_cpu_clock(struct rts_ult_worker *w)
{
	struct rts_ult_runtime *rt = w->cluster->runtime;
	char why[sizeof(rt->cpu_clock_why)] = "";
	rts_worker_cpu_clock_open(&w->cpu_clock, why, sizeof(why)); /* a method in any case */
	if (w->cpu_clock.method > rt->cpu_clock_method) {
		rt->cpu_clock_method = w->cpu_clock.method;
		snprintf(rt->cpu_clock_why, sizeof(rt->cpu_clock_why), "%s", why);
	}
}

/* Its policy (SCHED_FIFO, or SCHED_DEADLINE for a kernel-enforced reservation:
 * ult/kernel_reservation.c), its context, its release timer; 0 or an error
 * with why. */
static int set_up_worker(struct rts_ult_worker *w, char *why, size_t why_len)
{
	const struct rts_reservation *kernel = rts_ult_kernel_reservation_of(w->cluster);
	char reason[600];
	int err = kernel ? rts_ult_kernel_worker_apply(kernel, w->cpu, reason, sizeof(reason))
			 : take_fifo(w, reason, sizeof(reason));
	if (err) {
		snprintf(why, why_len, "ult backend: the worker for CPU %d: %s", w->cpu, reason);
		return err;
	}
	open_cpu_clock(w);
	err = -rts_ult_context_of_thread(&w->sched_context);
	if (!err)
		err = create_release_timer(w, atomic_load(&w->tid));
	if (err)
		snprintf(why, why_len, "ult backend: the worker for CPU %d: %s", w->cpu,
			 strerror(err));
	return err;
}

static void wait_for_release(struct rts_ult_runtime *rt)
{
	while (atomic_load_explicit(rt->released, memory_order_acquire) == 0 &&
	       !atomic_load(&rt->shutting_down)) {
		/* The set's release wakes us; the runtime stopping before any
		 * release is seen within 20 ms. */
		struct timespec limit = rts_ns_to_timespec(now_ns() + 20 * 1000 * 1000);
		rts_futex_wait_until(rt->released, 0, &limit, CLOCK_MONOTONIC, false);
	}
}

struct worker_start {
	struct rts_ult_worker *worker;
	char *why;
	size_t why_len;
};

static void *worker_main(void *arg)
{
	struct worker_start *start = arg;
	struct rts_ult_worker *w = start->worker;
	struct rts_ult_runtime *rt = w->cluster->runtime;
	self_worker = w;
	set_in_scheduler(1);
	atomic_store(&w->tid, gettid());
	rts_backend_of_thread = rt->backend;
	sigset_t signals;
	sigemptyset(&signals);
	sigaddset(&signals, RTS_ULT_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &signals, NULL);

	int err = set_up_worker(w, start->why, start->why_len);
	w->start_error = err;
	atomic_store_explicit(&w->started, err ? 2 : 1, memory_order_release);
	rts_futex_wake(&w->started, 1, false);
	if (err)
		return NULL; /* `start` is gone from here on */
	wait_for_release(rt);
	schedule_loop(w);
	return NULL;
}

static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static int handler_error;

static void install_handler(void)
{
	/* SA_NODEFER: a ULT switched out from the handler leaves the signal
	 * unblocked for whatever the worker runs next. No SA_RESTART: an idle
	 * worker's futex wait ends. */
	struct sigaction action = {.sa_handler = on_ult_signal, .sa_flags = SA_NODEFER};
	sigemptyset(&action.sa_mask);
	handler_error = sigaction(RTS_ULT_SIGNAL, &action, NULL) == 0 ? 0 : errno;
}

int rts_ult_worker_start(struct rts_ult_worker *w, char *why, size_t why_len)
{
	pthread_once(&handler_once, install_handler);
	if (handler_error) {
		snprintf(why, why_len, "ult backend: cannot install the handler of signal %d: %s",
			 RTS_ULT_SIGNAL, strerror(handler_error));
		return handler_error;
	}
	w->probes = atomic_load(&probes_attached); /* before its thread: read by the others too */
	struct worker_start start = {.worker = w, .why = why, .why_len = why_len};
	int err = pthread_create(&w->thread, NULL, worker_main, &start);
	if (err) {
		snprintf(why, why_len, "ult backend: cannot create the worker for CPU %d: %s", w->cpu,
			 strerror(err));
		return err;
	}
	w->thread_started = true;
	while (atomic_load_explicit(&w->started, memory_order_acquire) == 0)
		rts_futex_wait_until(&w->started, 0, NULL, CLOCK_MONOTONIC, false);
	return w->start_error;
}

void rts_ult_workers_stop(struct rts_ult_runtime *rt)
{
	atomic_store(&rt->shutting_down, true);
	for (int k = 0; k < rt->n_clusters; k++) {
		struct rts_ult_cluster *c = &rt->clusters[k];
		for (int i = 0; i < c->n_workers; i++) {
			struct rts_ult_worker *w = &c->workers[i];
			if (!w->thread_started)
				continue;
			atomic_fetch_add(&w->wake_word, 1);
			rts_futex_wake(&w->wake_word, 1, false);
			pthread_join(w->thread, NULL);
			w->thread_started = false;
			rts_worker_cpu_clock_close(&w->cpu_clock);
		}
	}
}

/* ---- interrupting a ULT from anywhere ---------------------------------- */

void rts_ult_interrupt(struct rts_ult *u)
{
	struct rts_ult_cluster *c = u->cluster;
	/* A ULT (a worker thread outside its scheduler) takes the lock only as
	 * the scheduler would: a signal now only marks. */
	bool in_ult = rts_ult_worker_self() && !in_scheduler;
	if (in_ult)
		set_in_scheduler(1);
	pthread_mutex_lock(&c->lock);
	if (u->state == RTS_ULT_SLEEPING) {
		rts_ult_release_remove(c, u);
		u->sleep_result = -EINTR;
		rts_ult_ready_insert(c, u);
		kick_workers(c, NULL);
		arm_release_timer(c, now_ns());
	} else if (u->state == RTS_ULT_BLOCKED) {
		if (u->timeout_ns)
			rts_ult_timeout_remove(c, u);
		u->block_end = RTS_ULT_BLOCK_INTERRUPTED;
		rts_ult_ready_insert(c, u);
		kick_workers(c, NULL);
		arm_release_timer(c, now_ns());
	} else if (u->state != RTS_ULT_DONE) {
		u->interrupt_pending = true;
	}
	pthread_mutex_unlock(&c->lock);
	if (in_ult) {
		struct rts_ult_worker *w = rts_ult_worker_self();
		set_in_scheduler(0);
		if (atomic_load_explicit(&w->resched_pending, memory_order_relaxed))
			switch_out(RTS_ULT_PREEMPTED, 0);
	}
}
