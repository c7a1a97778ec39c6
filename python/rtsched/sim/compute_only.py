"""The engine's loop for the commonest sets, in fewer Python calls per job.

A set *fits* when every task's body is only ``compute``, there are no locks,
condition variables, RPC servers or best-effort tasks (sim/fair.py), and
the options charge no overhead (context switch, release latency, trace
event, OS interference) and no release jitter. Such a job is released, made
ready, run (perhaps preempted and resumed) and completed, nothing else.

``run_compute_only`` takes exactly the steps of ``Engine.run`` on such a set,
with ``advance``, ``dispatch`` and the release path written out in one loop,
so the trace is byte for byte the generic engine's
(tests/python/test_sim_compute_only.py compares them on generated sets):

1. at an instant, every event of that time in push order: the end of a
   running thread's stretch (its DONE), releases (a job of an idle thread
   becomes ready with the next ``seq``, else it is pending);
2. each thread whose stretch ended completes its job (COMPLETE, perhaps
   DEADLINE_MISS), then begins its oldest pending job at once, recording its
   RELEASE and START on the same CPU, or leaves its CPU (idle, or finished);
3. each dirty domain is dispatched as ``dispatch`` does: the most urgent ready
   thread (smallest key, then seq) takes an idle CPU (the one it last ran on
   first, else the first in the domain's order), else preempts the least
   urgent running thread (largest key, then seq) when strictly more urgent;
4. each thread given a CPU resumes its stretch or starts its job.

The body's computes are drawn at the job's start, in their order: the same
draws from the thread's own generator as the interpreter's, one op at a time
(no other thread draws from it, and with no overhead the end of one compute
and the start of the next are the same instant on the same CPU, with nothing
recorded between them). Threads never interact but through dispatch, so the
order in which steps 2 and 4 take the threads of one instant (and so the
order of their DONE events) does not reach any thread's own events.

The same loop is compiled in tools/sim/loop.c (``rtsched-sim-loop``, driven by
``native_loop``), which ``simulate`` prefers when it is installed: a change of
these steps is a change of both, and tests/python/test_sim_native.py compares
their trace files byte for byte.
"""

from __future__ import annotations

from heapq import heappop, heappush
from typing import TYPE_CHECKING

from rtsched.trace import EventType as EV
from rtsched.sim.eventq import DONE
from rtsched.sim.options import SimOptions
from rtsched.sim.threads import FINISHED, IDLE, NO_CPU, OP_COMPUTE, READY, RUNNING, SimThread

if TYPE_CHECKING:
    from rtsched.sim.engine import Engine

__all__ = ["fits", "run_compute_only"]

_RELEASE, _START, _COMPLETE, _MISS = int(EV.RELEASE), int(EV.START), int(EV.COMPLETE), int(EV.DEADLINE_MISS)


def fits(engine: Engine, options: SimOptions) -> bool:
    """Whether ``run_compute_only`` may simulate ``engine``'s set (see the module's text)."""
    ov = options.overheads
    if (ov.context_switch_ns or ov.release_latency_ns or ov.trace_event_ns or engine.interference
            or options.release_jitter_ns or engine.locks or engine.condvars or engine.reservations
            or engine.fair is not None):
        return False
    return all(not t.is_server and t.kind in ("periodic", "sporadic") and all(op == OP_COMPUTE for op, _ns in t.ops)
               for t in engine.threads)


def _job_work(t: SimThread) -> int:
    """The CPU time of ``t``'s next job: its computes drawn in order."""
    draw = t.exec_times.draw
    return sum(draw(ns) for _op, ns in t.ops)


def run_compute_only(engine: Engine) -> None:
    """``engine.run()`` for a set that ``fits``."""
    heap = engine.queue.heap
    event_seq = engine.queue.seq
    end = engine.end_ns
    dirty = engine.dirty_domains
    # a fixed job's CPU time, per thread (None: drawn per job)
    fixed = {t: sum(ns for _op, ns in t.ops) if t.exec_times.fixed else None for t in engine.threads}
    ready_seq = engine.ready_seq
    completed = 0
    ended: list[SimThread] = []
    started: list[SimThread] = []
    while heap:
        now = heap[0][0]
        if now > end:
            break
        engine.now = now
        # 1. the events of this instant
        while heap and heap[0][0] == now:
            _time, _s, kind, t, arg = heappop(heap)
            if kind == DONE:
                if arg == t.version and t.state == RUNNING:
                    t.job_cpu_ns += now - t.run_since
                    t.run_since = now
                    t.remaining = 0
                    ended.append(t)
                continue
            t.released += 1  # RELEASE (the only other kind here)
            if not t.max_jobs or t.released < t.max_jobs:
                following = arg + t.period_ns
                if t.gaps is not None:
                    following += t.gaps.next_extra_ns()
                if following < end:
                    heappush(heap, (following, next(event_seq), kind, t, following))
            if t.state != IDLE:
                t.pending.append(arg)
                continue
            t.job_release = arg
            t.job_deadline = arg + t.deadline_ns
            t.job_cpu_ns = 0
            t.pc = -1
            if t.is_edf:
                t.base_key = t.key = t.job_deadline
            t.state = READY
            ready_seq += 1
            t.seq = ready_seq
            t.queued += 1
            domain = t.domain
            heappush(domain.heap, (t.key, ready_seq, t.queued, t))
            if not domain.dirty:
                domain.dirty = True
                dirty.append(domain)
        # 2. completions
        for t in ended:
            events = t.events
            events.append((now, _COMPLETE, t.cpu, t.job, 0, 0, t.job_cpu_ns))
            if now > t.job_deadline:
                events.append((now, _MISS, t.cpu, t.job, 0, 0, now - t.job_deadline))
            completed += 1
            domain = t.domain
            finished = t.max_jobs and t.job >= t.max_jobs
            if finished or not t.pending:  # it leaves its CPU
                t.version += 1
                domain.running[t.cpu] = None
                if not domain.dirty:
                    domain.dirty = True
                    dirty.append(domain)
                t.state = FINISHED if finished else IDLE
                continue
            release = t.pending.popleft()
            t.job_release = release
            t.job_deadline = release + t.deadline_ns
            t.job_cpu_ns = 0
            if t.is_edf:
                t.base_key = t.job_deadline
                if t.key != t.base_key:
                    t.key = t.base_key
                    if not domain.dirty:
                        domain.dirty = True
                        dirty.append(domain)
            t.job += 1
            events.append((release, _RELEASE, t.cpu, t.job, 0, 0, t.job_deadline))
            events.append((now, _START, t.cpu, t.job, 0, 0, 0))
            work = fixed[t]
            t.remaining = _job_work(t) if work is None else work
            t.pc = len(t.ops)
            t.version += 1
            heappush(heap, (now + t.remaining, next(event_seq), DONE, t, t.version))
        ended.clear()
        # 3. dispatch
        while dirty:
            domain = dirty.pop()
            ready = domain.heap
            running = domain.running
            cpus = domain.cpus
            single = len(cpus) == 1
            while ready:
                key, _s, queued, t = ready[0]
                if queued != t.queued or t.state != READY:
                    heappop(ready)
                    continue
                if single:
                    cpu = cpus[0]
                    current = running[cpu]
                else:  # an idle CPU, its last one first, else the least urgent running thread's
                    cpu, current = t.cpu, None
                    if running.get(cpu, 0) is not None:
                        cpu = NO_CPU
                        for c in cpus:
                            r = running[c]
                            if r is None:
                                cpu, current = c, None
                                break
                            if current is None or r.key > current.key or (r.key == current.key
                                                                           and r.seq > current.seq):
                                current = r
                        if current is not None:
                            cpu = current.cpu
                if current is not None:
                    if key >= current.key:
                        break
                    elapsed = now - current.run_since
                    current.remaining -= elapsed
                    current.job_cpu_ns += elapsed
                    current.version += 1
                    current.state = READY
                    current.queued += 1  # back at the head of its key: it keeps its seq
                    heappush(ready, (current.key, current.seq, current.queued, current))
                heappop(ready)
                t.state = RUNNING
                t.cpu = cpu
                t.run_since = now
                running[cpu] = t
                domain.last_thread[cpu] = t
                started.append(t)
            domain.dirty = False
        # 4. threads given a CPU run
        for t in started:
            if t.state != RUNNING:
                continue
            if t.pc < 0:
                t.job += 1
                t.events.append((t.job_release, _RELEASE, t.cpu, t.job, 0, 0, t.job_deadline))
                t.events.append((now, _START, t.cpu, t.job, 0, 0, 0))
                work = fixed[t]
                t.remaining = _job_work(t) if work is None else work
                t.pc = len(t.ops)
            t.version += 1
            heappush(heap, (now + t.remaining, next(event_seq), DONE, t, t.version))
        started.clear()
    engine.ready_seq = ready_seq
    engine.jobs_completed = completed
