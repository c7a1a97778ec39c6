"""Best-effort threads (policies other, batch, idle): the fair class, below every real-time thread.

The model (docs/sim.md, "Best-effort tasks"), an approximation of CFS / EEVDF:

- A best-effort thread runs on a CPU only while no real-time thread (SCHED_FIFO, SCHED_DEADLINE,
  a server, OS interference) of that CPU's domain is ready: its key is ``FAIR_KEY``, after every
  priority and every absolute deadline, so the domain's dispatcher preempts it as it preempts a
  less urgent thread. It is never in a domain's ready heap while it has that key: its ready
  threads wait here, and ``FairClass.dispatch`` gives them the CPUs the real-time dispatch left
  idle, once the real-time threads of the instant have settled.
- Among themselves, threads share the CPUs by weight: the kernel's ``sched_prio_to_weight`` for
  nice -20..19 (nice 0: 1024) for other and batch, 3 for idle (``WEIGHT_IDLEPRIO``). Each keeps
  a virtual runtime, its CPU time × 1024 / weight; a free CPU goes to the ready thread of least
  virtual runtime that may use it (its last CPU first), which runs for a slice of
  ``BASE_SLICE_NS`` of CPU time (the task's own ``slice`` when it gives one, as the kernel's
  custom slice); at the slice's end it gives the CPU up to a ready thread whose
  virtual runtime is not above its own, else runs another slice. A thread woken (released,
  unblocked, back from a sleep) takes at least the least virtual runtime of the other runnable
  threads less one slice (``SLEEPER_CREDIT``), so a long sleep earns it no burst; when no CPU of
  its is free, it preempts the running thread of greatest virtual runtime among those of its CPUs
  whose virtual runtime is above its own (wakeup preemption, as EEVDF does for a woken thread of
  earlier virtual deadline: without it, two threads that each wake once per job would alternate
  job by job whatever their weights).
- One queue for the whole platform: a thread may run on any CPU of its partition (or of the
  platform, without one), as if load balancing were instant (none is modelled). Ignored: the
  finer rules of wakeup preemption (CFS's wakeup granularity, EEVDF's eligibility and
  RUN_TO_PARITY, SCHED_BATCH never preempting at wakeup, any other policy always preempting a
  SCHED_IDLE thread: here batch and idle differ from other in weight only), autogroups, cgroups.
- A lock: a best-effort thread that holds a pip lock a real-time thread waits for takes the
  waiter's key (``Engine.update_key``, as the kernel's rt_mutex makes it SCHED_FIFO or
  SCHED_DEADLINE): then it is a real-time thread of its CPU's domain until the key goes back.
- Trace: its switches are recorded as under the ult backend, ``PREEMPT`` when it leaves its CPU
  with its job unfinished, ``RESUME`` when it runs again (both with arg0 the CPU), so the trace
  says when it ran; the runner's threads backend records neither.

Invariant: a thread with key ``FAIR_KEY`` is never in a domain's heap; a READY one is in
``ready`` with its current ``queued`` stamp; a RUNNING one is in its CPU's domain's ``running``
with ``domain`` that CPU's domain, and its ``since`` is the start of its CPU time not yet
charged to its virtual runtime.
"""

from __future__ import annotations

from typing import Callable

from rtsched.model import Task
from rtsched.trace import EventType as EV
from rtsched.sim.dispatch import Domain
from rtsched.sim.eventq import EventQueue
from rtsched.sim.threads import READY, RUNNING, SimThread

__all__ = ["BASE_SLICE_NS", "FAIR_KEY", "SLICE_EVENT", "FairClass", "FairEntity", "fixed_priority", "weight_of"]

#: The kernel's sched_prio_to_weight (kernel/sched/core.c), nice -20..19: each step ~1.25x.
NICE_WEIGHTS = (88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
                9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
                1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
                110, 87, 70, 56, 45, 36, 29, 23, 18, 15)
NICE_0_WEIGHT = 1024
#: SCHED_IDLE's weight (WEIGHT_IDLEPRIO), whatever the nice.
IDLE_WEIGHT = 3
#: A slice of CPU time: EEVDF's sysctl_sched_base_slice (0.75 ms, kernel 6.6+) scaled as the kernel
#: scales it by default, x (1 + log2 of the online CPUs, at most 8): 3 ms on a machine of 8 CPUs
#: or more (CFS before 6.6: sched_min_granularity, the same 0.75 ms x the same factor). A fixed
#: figure, so that a set's schedule does not depend on the machine that simulates it.
BASE_SLICE_NS = 3_000_000
#: The key of a best-effort thread that inherits nothing: after every priority (``-priority``)
#: and every absolute deadline (ns; 2^61 ns is 73 years).
FAIR_KEY = 1 << 61
#: The event kind of a slice's end (after the engine's kinds 0..3 and the reservations' 4):
#: arg the thread's slice token.
SLICE_EVENT = 5
#: How far behind the least virtual runtime of the others a woken thread may start (virtual ns):
#: one slice, so that a short sleep (a release latency between jobs) keeps a thread's place while a
#: long one earns no burst (CFS's GENTLE_FAIR_SLEEPERS allows half its latency; EEVDF keeps the lag
#: the thread had when it slept).
SLEEPER_CREDIT = BASE_SLICE_NS

_PREEMPT, _RESUME = int(EV.PREEMPT), int(EV.RESUME)


def weight_of(task: Task) -> int:
    """The task's CFS weight: 3 for idle, else its nice's (other and batch)."""
    return IDLE_WEIGHT if task.policy == "idle" else NICE_WEIGHTS[task.nice + 20]


def fixed_priority(key: int) -> int:
    """The SCHED_FIFO priority a PRIORITY event records for a thread of key ``key`` under FP:
    0 for a best-effort thread's own key (SCHED_OTHER's priority)."""
    return 0 if key == FAIR_KEY else -key


class FairEntity:
    """A best-effort thread's share: its weight, the CPUs it may use, its virtual runtime (ns
    × 1024 / weight), what is left of its slice (ns of CPU time), ``since`` (when its running
    began to count, None while it is not running in the fair class), ``token`` (its slice
    event's; bumped when that event goes stale), ``expired`` (its slice ended, to decide at the
    next dispatch) and ``preempted`` (it left its CPU in mid-job: RESUME when it runs again)."""

    __slots__ = ("weight", "cpus", "slice_ns", "vruntime", "slice_left_ns", "since", "token", "expired", "preempted",
                 "woken")

    def __init__(self, weight: int, cpus: tuple[int, ...], slice_ns: int = BASE_SLICE_NS) -> None:
        self.weight = weight
        self.cpus = cpus
        self.slice_ns = slice_ns  # its own (the task's ``slice``), else BASE_SLICE_NS
        self.vruntime = 0
        self.slice_left_ns = slice_ns
        self.since: int | None = None
        self.token = 0
        self.expired = False
        self.preempted = False
        self.woken = False  # ready since a wake-up, not run since: it may preempt (wakeup preemption)


class FairClass:
    """The best-effort threads of one engine and the CPUs they may use (see the module's text).
    ``dirty``: a dispatch is due at this instant (a thread became ready, a slice ended, or the
    real-time dispatch ran and may have freed a CPU)."""

    def __init__(self, threads: list[SimThread], cpu_domain: dict[int, Domain], queue: EventQueue) -> None:
        self.threads = threads
        self.cpu_domain = cpu_domain
        self.queue = queue
        self.ready: list[tuple[SimThread, int]] = []  # (thread, its queued stamp when put here)
        self.min_vruntime = 0
        self.dirty = False

    # --- a thread's class and clock ----------------------------------------------------------

    def enqueue(self, t: SimThread, woken: bool, now: int) -> None:
        """``t`` (READY, in the class) waits for a CPU; ``woken``: it was not runnable before."""
        fair = t.fair
        assert fair is not None
        if woken:
            fair.vruntime = max(fair.vruntime, self._least_vruntime(t, now) - SLEEPER_CREDIT)
            fair.slice_left_ns = fair.slice_ns
        fair.woken = woken
        t.queued += 1  # an entry of a domain's heap, from a boost, goes stale
        self.ready.append((t, t.queued))
        self.dirty = True

    def _least_vruntime(self, woken: SimThread, now: int) -> int:
        """The least virtual runtime (charged to ``now``) of the runnable threads of the class but
        ``woken``, never decreasing (as the kernel's min_vruntime)."""
        runnable = [self.vruntime_at(t, now) for t in self.threads
                    if t is not woken and t.state in (READY, RUNNING) and t.key == FAIR_KEY]
        if runnable:
            self.min_vruntime = max(self.min_vruntime, min(runnable))
        return self.min_vruntime

    @staticmethod
    def vruntime_at(t: SimThread, now: int) -> int:
        """``t``'s virtual runtime with its running since ``since`` charged (nothing is recorded)."""
        fair = t.fair
        if fair.since is None:
            return int(fair.vruntime)
        return int(fair.vruntime + (now - fair.since) * NICE_0_WEIGHT // fair.weight)

    def charge(self, t: SimThread, now: int) -> None:
        """Charge ``t``'s CPU time since ``since`` to its virtual runtime and slice; its clock stops
        and its slice event goes stale."""
        fair = t.fair
        assert fair is not None
        if fair.since is not None:
            ran = now - fair.since
            fair.vruntime += ran * NICE_0_WEIGHT // fair.weight
            fair.slice_left_ns -= ran
            fair.since = None
        fair.token += 1
        fair.expired = False

    def run_clock(self, t: SimThread, now: int) -> None:
        """``t`` runs in the class from ``now``: its clock runs and its slice's end is an event."""
        fair = t.fair
        assert fair is not None
        if fair.slice_left_ns <= 0:
            fair.slice_left_ns = fair.slice_ns
        fair.since = now
        fair.token += 1
        self.queue.push(now + fair.slice_left_ns, SLICE_EVENT, t, fair.token)

    def slice_ended(self, t: SimThread, token: int) -> None:
        """A slice event: when still current, ``t``'s slice is over, decided at the next dispatch
        (after the instant's other events, so that a job whose work ends now completes first)."""
        fair = t.fair
        if fair is not None and token == fair.token and t.state == RUNNING:
            fair.expired = True
            self.dirty = True

    # --- switches, recorded ------------------------------------------------------------------

    def left_cpu(self, t: SimThread, now: int, unfinished: bool) -> None:
        """``t`` leaves its CPU (preempted when ``unfinished``: its job goes on later)."""
        self.charge(t, now)
        if unfinished:
            t.fair.preempted = True
            t.events.append((now, _PREEMPT, t.cpu, t.job, t.cpu, 0, 0))

    def took_cpu(self, t: SimThread, now: int) -> None:
        """``t`` was given a CPU (by this class or, boosted, by its domain)."""
        fair = t.fair
        assert fair is not None
        fair.woken = False
        if fair.preempted:
            fair.preempted = False
            t.events.append((now, _RESUME, t.cpu, t.job, t.cpu, 0, 0))
        if t.key == FAIR_KEY:
            self.run_clock(t, now)

    # --- the dispatch ------------------------------------------------------------------------

    def dispatch(self, now: int, start: Callable[[SimThread, int, int], None],
                 preempt: Callable[[SimThread, int], None]) -> None:
        """End the slices that are over (a thread gives its CPU up to a ready one of no greater
        virtual runtime), then give each CPU that runs nothing to the ready thread of least
        virtual runtime that may use it (its last CPU first); then let each woken thread left
        waiting preempt the running thread of greatest virtual runtime above its own on its CPUs."""
        self.dirty = False
        waiting = self._waiting()
        for t in self.threads:
            fair = t.fair
            if fair is None or not fair.expired or t.state != RUNNING or t.key != FAIR_KEY:
                continue
            self.charge(t, now)
            fair.slice_left_ns = fair.slice_ns
            if any(w.fair.vruntime <= fair.vruntime and t.cpu in w.fair.cpus for w in waiting):
                preempt(t, now)  # the engine calls left_cpu and puts it here
            else:
                self.run_clock(t, now)
        waiting = self._waiting()
        if not waiting:
            return
        free = [cpu for cpu, domain in self.cpu_domain.items() if domain.running[cpu] is None]
        for t in sorted(waiting, key=lambda w: (w.fair.vruntime, w.seq)):
            cpus = t.fair.cpus
            cpu = t.cpu if t.cpu in free and t.cpu in cpus else next((c for c in free if c in cpus), None)
            if cpu is not None:
                free.remove(cpu)
            elif t.fair.woken:
                victim = self._victim(t, now)
                if victim is None:
                    continue
                cpu = victim.cpu
                preempt(victim, now)
            else:
                continue
            self.ready = [(w, q) for w, q in self.ready if w is not t]
            t.domain = self.cpu_domain[cpu]
            start(t, cpu, now)

    def _victim(self, woken: SimThread, now: int) -> SimThread | None:
        """The running thread of the class, on a CPU ``woken`` may use, of greatest virtual runtime
        (charged to ``now``) above ``woken``'s; None when there is none."""
        best, best_v = None, woken.fair.vruntime
        for cpu in woken.fair.cpus:
            t = self.cpu_domain[cpu].running[cpu]
            if t is None or t.fair is None or t.key != FAIR_KEY or t.fair.since is None:
                continue
            v = self.vruntime_at(t, now)
            if v > best_v:
                best, best_v = t, v
        return best

    def _waiting(self) -> list[SimThread]:
        """The ready threads of the class, stale entries dropped."""
        self.ready = [(t, q) for t, q in self.ready if q == t.queued and t.state == READY and t.key == FAIR_KEY]
        return [t for t, _q in self.ready]
