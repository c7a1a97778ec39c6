"""Why a job exceeded its bound: what the machine did in its window (issue 13 item 5).

For every job whose response time is above its task's bound, the window from
its release to its completion is looked at on the task's CPUs:

- in the kernel's schedule, when the producer recorded one
  (``rtsched.trace.kernel_sched``): CPU time taken by threads outside the
  task set, real-time ones and ``SCHED_OTHER`` ones (which can only run ahead
  of a pending real-time job when the kernel's fair server, Linux ≥ 6.12, or
  RT throttling gives them the CPU), by interrupts and soft interrupts, and
  the time the set's own threads ran;
- host steal on those CPUs, from the producer's samples of ``/proc/stat``
  (whole 10 ms ticks), and, for a job on its own kernel thread, the time
  that thread held its CPU in the kernel's schedule from the job's start to
  its completion beyond the CPU time the job consumed: with paravirtual time
  accounting the guest kernel takes the host's steal out of a thread's CPU
  time while its schedule still shows the thread running, so a steal of a
  fraction of a millisecond is seen there and nowhere else;
- its CPU idle between the job's release and its start, for a task on one
  CPU whose start only the platform can delay (no reservation, no job-start
  gate: ``report.start_waits``), beyond the release latency the bound counts:
  the wake-up's latency;
- events the trace lost on the task's stream (then the response itself may
  be wrong).

A job whose excess is covered by what came from outside is *disturbed*: the
machine, not the bound, is at fault. Otherwise the bound is *broken*: the
set's own threads needed more than the model gives them (WCETs, or overheads
the analysis did not count), and the window's figures say how much.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Collection, Iterable, Mapping, Sequence

import numpy as np

from rtsched.model.placement import Placement
from rtsched.report.cpu_overuse import CpuOveruse
from rtsched.report.jobs import JobTable, TaskInfo
from rtsched.report.stats import TaskStats
from rtsched.trace import Trace
from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["StealSample", "ExcessJob", "explain_excess", "explain_job"]

#: The ult backend's task identities have this bit (1 << 29); kernel TIDs stay below 2^22.
ULT_ID_BIT = 1 << 29
#: The name (comm) of rtsched-run's threads, its ult workers among them.
RUNNER_COMM = "rtsched-run"

#: (CLOCK_MONOTONIC ns, per CPU cumulative steal ns), as the producer sampled /proc/stat.
StealSample = tuple[int, dict[int, int]]

DISTURBED = "disturbed"
MOSTLY_DISTURBED = "mostly disturbed"
BROKEN = "bound broken"
UNEXPLAINED = "not explained"


@dataclass(frozen=True, slots=True)
class ExcessJob:
    """One job above its bound and what its window shows (ns; times since the trace's t0).
    ``bound_ns`` is the response the job is held against: its task's bound, or (explaining a
    divergence from the simulation, ``report.compare_sim``) its simulated response."""

    task: str
    job: int
    release_ns: int
    response_ns: int
    bound_ns: int
    cpus: tuple[int, ...]
    # DISTURBED: what came from outside covers the excess; MOSTLY_DISTURBED: at least half of
    # it; BROKEN: less; UNEXPLAINED: no kernel schedule of the window and no other cause.
    verdict: str
    cause: str
    others_rt: tuple[tuple[str, int, int], ...] = ()  # (comm, pid, ns), largest first
    others_fair: tuple[tuple[str, int, int], ...] = ()
    interrupts: tuple[tuple[str, int], ...] = ()  # (name, ns), largest first
    set_ns: int | None = None  # the task set's own threads
    set_threads: tuple[tuple[str, int], ...] = ()  # (name, ns) of each of them, largest first
    idle_ns: int | None = None
    steal_ns: int | None = None
    # The job's thread on its CPU (the kernel's schedule, start to completion) beyond the job's
    # CPU time: the host's steal while the thread held the CPU (threads backend only).
    held_not_run_ns: int | None = None
    lost_events: int = 0
    # Its CPU idle between the job's release and its start, where only the platform can delay
    # a start (one CPU, no reservation, no job-start gate), less the release latency the bound
    # counts: the wake-up's latency.
    late_start_ns: int | None = None
    # The job's own CPU time beyond its WCET, when beyond the tolerance (report.cpu_overuse).
    beyond_wcet_ns: int = 0

    @property
    def excess_ns(self) -> int:
        return self.response_ns - self.bound_ns

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "excess_ns": self.excess_ns}

    @property
    def outside_ns(self) -> int:
        """What came from outside the set: other threads, interrupts, host steal (the larger of
        the two measures of it: /proc/stat's and the job's thread's held-not-run time)."""
        return (sum(ns for _, _, ns in self.others_rt) + sum(ns for _, _, ns in self.others_fair)
                + sum(ns for _, ns in self.interrupts) + self.stolen_ns + (self.late_start_ns or 0))

    @property
    def stolen_ns(self) -> int:
        return max(self.steal_ns or 0, self.held_not_run_ns or 0)


def _ms(ns: int) -> str:
    return f"{ns / 1e6:.3f} ms"


def _steal_between(samples: Sequence[StealSample], cpus: Iterable[int], start_ns: int, end_ns: int) -> int | None:
    """Steal on ``cpus`` between the last sample at or before start and the first at or after end."""
    if len(samples) < 2 or samples[0][0] > start_ns or samples[-1][0] < end_ns:
        return None
    before = max((s for s in samples if s[0] <= start_ns), key=lambda s: s[0])
    after = min((s for s in samples if s[0] >= end_ns), key=lambda s: s[0])
    return sum(after[1].get(c, 0) - before[1].get(c, 0) for c in cpus)


def _describe(job: ExcessJob, kernel_seen: bool, simulated: bool = False) -> tuple[str, str]:
    parts: list[tuple[int, str]] = []
    fair = sum(ns for _, _, ns in job.others_fair)
    if fair:
        top = ", ".join(f"{c}[{p}] {_ms(ns)}" for c, p, ns in job.others_fair[:3])
        parts.append((fair, f"SCHED_OTHER threads ran {_ms(fair)} ahead of the real-time threads ({top}): "
                            "the kernel's fair server (Linux >= 6.12) or RT throttling"))
    rt = sum(ns for _, _, ns in job.others_rt)
    if rt:
        top = ", ".join(f"{c}[{p}] {_ms(ns)}" for c, p, ns in job.others_rt[:3])
        parts.append((rt, f"real-time threads outside the set ran {_ms(rt)} ({top})"))
    irq = sum(ns for _, ns in job.interrupts)
    if irq:
        top = ", ".join(f"{n} {_ms(ns)}" for n, ns in job.interrupts[:3])
        parts.append((irq, f"interrupts took {_ms(irq)} ({top})"))
    if job.stolen_ns and job.stolen_ns == (job.steal_ns or 0):
        parts.append((job.steal_ns or 0, f"the host took {_ms(job.stolen_ns)} (steal)"))
    elif job.stolen_ns:
        parts.append((job.stolen_ns, f"the host took {_ms(job.stolen_ns)} while the job's thread held its CPU "
                                     "(the kernel's schedule shows the thread running that much longer than "
                                     "the job's CPU time: steal, which the guest kernel keeps out of CPU time)"))
    if job.late_start_ns:
        parts.append((job.late_start_ns, f"its CPU was idle {_ms(job.late_start_ns)} between the job's release "
                                         "and its start (beyond any release latency the bound counts): the "
                                         "wake-up's latency (the timer interrupt, the kernel's wake-up, or the "
                                         "host resuming an idle vCPU)"))
    parts.sort(key=lambda p: -p[0])
    text = "; ".join(p[1] for p in parts)
    if job.lost_events:
        text = (text + "; " if text else "") + \
            f"the trace lost {job.lost_events} events of this task (its times may be wrong)"
    if parts and job.outside_ns >= job.excess_ns:
        return DISTURBED, text
    if simulated and job.beyond_wcet_ns:
        return BROKEN, (f"simulated: this job's own CPU time was {_ms(job.beyond_wcet_ns)} beyond its WCET "
                        "(its body does more than the WCET the analysis takes)" + ("; " + text if text else ""))
    if simulated:  # nothing outside the set runs in a simulation, and there is no kernel to record
        return BROKEN, ("simulated: nothing outside the set ran, so the bound does not count what this "
                        "simulation charged (the overheads it was given, or its --release-jitter)"
                        + ("; " + text if text else ""))
    if not kernel_seen:
        why = "no kernel schedule of this window (rtsched run records one as root: tracefs)"
        return UNEXPLAINED, why + ("; " + text if text else "")
    which = (" (" + ", ".join(f"{name} {_ms(ns)}" for name, ns in job.set_threads[:4])
             + (", ..." if len(job.set_threads) > 4 else "") + ")") if job.set_threads else ""
    own = (f"the set's own threads ran {_ms(job.set_ns or 0)} of the window{which}: the model's execution "
           "times or the overheads it counts are short")
    if job.beyond_wcet_ns:
        own += f" (this job's own CPU time was {_ms(job.beyond_wcet_ns)} beyond its WCET)"
    if 2 * job.outside_ns >= job.excess_ns:
        return MOSTLY_DISTURBED, (f"{text}; that is {_ms(job.outside_ns)} of the excess of "
                                  f"{_ms(job.excess_ns)}, and for the rest {own}")
    outside = f"{_ms(job.outside_ns)} came from outside" if job.outside_ns else "nothing came from outside"
    return BROKEN, f"{outside}, of an excess of {_ms(job.excess_ns)}; {own}" + ("; " + text if text else "")


def explain_job(
    info: TaskInfo,
    row: np.void,
    reference_ns: int,
    t0_ns: int,
    cpus: tuple[int, ...],
    own_pids: set[int],
    kernel: KernelSchedule | None = None,
    steal: Sequence[StealSample] = (),
    start_waits: bool = True,
    release_latency_in_bounds_ns: int = 0,
    simulated: bool = False,
    thread_names: Mapping[int, str] | None = None,
    beyond_wcet_ns: int = 0,
) -> ExcessJob:
    """What the window of one job (a JobTable row of task ``info``) shows on ``cpus``, against a
    response of ``reference_ns`` (its bound, or its simulated response): the excess is the
    response beyond it. ``own_pids``: the set's threads. ``start_waits``: the model itself may
    hold the job back before its start (a reservation out of budget, a ceiling's job-start
    gate), so its CPU's idle time before the start is not put down to the platform; otherwise
    that time, less the release latency the bound already counts
    (``release_latency_in_bounds_ns``), is the wake-up's latency. ``thread_names``: the set's
    threads by TID (its tasks' and servers' names), to say which of them ran in the window.
    ``beyond_wcet_ns``: the job's own CPU time beyond its WCET (report.cpu_overuse), said in its cause."""
    start, end = int(row["release"]), int(row["completion"])
    kernel_seen = kernel is not None and kernel.covers(start, end)
    others_rt: list[tuple[str, int, int]] = []
    others_fair: list[tuple[str, int, int]] = []
    interrupts: list[tuple[str, int]] = []
    set_ns = idle_ns = late_start_ns = held_not_run_ns = None
    set_threads: tuple[tuple[str, int], ...] = ()
    if kernel is not None and kernel_seen:
        usage = kernel.usage(cpus, start, end)
        for (pid, comm, kind), ns in sorted(usage.foreign(own_pids).items(), key=lambda kv: -kv[1]):
            (others_rt if kind == "rt" else others_fair).append((comm, pid, ns))
        interrupts = sorted(usage.irqs.items(), key=lambda kv: -kv[1])
        own = {(pid, comm): ns for (pid, comm, _), ns in usage.tasks.items() if pid in own_pids}
        set_ns = sum(own.values())
        names = thread_names or {}
        set_threads = tuple(sorted(((names.get(pid, f"{comm}[{pid}]"), ns) for (pid, comm), ns in own.items()),
                                   key=lambda t: -t[1]))
        idle_ns = usage.idle_ns
        if len(cpus) == 1 and not start_waits and int(row["start"]) > start:
            idle_before_start = kernel.usage(cpus, start, int(row["start"])).idle_ns
            late_start_ns = max(0, idle_before_start - release_latency_in_bounds_ns)
        if not info.tid & ULT_ID_BIT and info.tid in own_pids:  # a kernel thread of its own
            running = kernel.usage(cpus, int(row["start"]), end).tasks
            held = sum(ns for (pid, _, _), ns in running.items() if pid == info.tid)
            held_not_run_ns = max(0, held - int(row["cpu_time"]))
    job = ExcessJob(
        task=info.name, job=int(row["job"]), release_ns=start - t0_ns,
        response_ns=int(row["response"]), bound_ns=reference_ns, cpus=cpus, verdict="", cause="",
        others_rt=tuple(others_rt), others_fair=tuple(others_fair), interrupts=tuple(interrupts),
        set_ns=set_ns, set_threads=set_threads, idle_ns=idle_ns, steal_ns=_steal_between(steal, cpus, start, end),
        held_not_run_ns=held_not_run_ns, lost_events=info.lost_events, late_start_ns=late_start_ns, beyond_wcet_ns=beyond_wcet_ns,
    )
    verdict, cause = _describe(job, kernel_seen, simulated)
    return replace(job, verdict=verdict, cause=cause)


def explain_excess(
    table: JobTable,
    stats: Sequence[TaskStats],
    trace: Trace,
    placement: Placement,
    kernel: KernelSchedule | None = None,
    steal: Sequence[StealSample] = (),
    start_waits: Collection[str] | None = None,
    release_latency_in_bounds_ns: int = 0,
    simulated: bool = False,
    overuse: Mapping[tuple[str, int], CpuOveruse] | None = None,
) -> tuple[ExcessJob, ...]:
    """Every job above its task's bound, in release order, with what its window shows.
    ``start_waits``: the tasks the model may hold back before their start (explain_job);
    None: every task. ``release_latency_in_bounds_ns``: what the bounds already count of a
    wake-up's latency (an overhead profile's release latency; explain_job). ``simulated``: the trace
    is a simulation's (``rtsched sim``), where no kernel schedule is recorded nor wanted.
    ``overuse``: the jobs that used more CPU time than their WCET, by (task, job)."""
    bounds = {s.task: s.bound_ns for s in stats if s.bound_ns is not None}
    own_pids = {int(s["tid"]) for s in trace.streams}
    thread_names = {int(s["tid"]): str(s["name"]) for s in trace.streams}
    # Under the ult backend a stream's tid is a task's ULT identity, and the set's kernel
    # threads are the runner's workers, which carry the runner's name (docs/ult.md).
    if kernel is not None and any(tid & ULT_ID_BIT for tid in own_pids):
        own_pids |= {pid for stretches in kernel.intervals.values()
                     for _, _, (kind, pid, comm) in stretches if kind == "task" and comm == RUNNER_COMM}
    out: list[ExcessJob] = []
    for info in table.tasks:
        bound = bounds.get(info.name)
        if bound is None:
            continue
        cpus = placement.cpus_of(info.name)
        rows = table.of_task(info.index)
        for row in rows[rows["response"] > bound]:
            waits = start_waits is None or info.name in start_waits
            over = (overuse or {}).get((info.name, int(row["job"])))
            out.append(explain_job(info, row, bound, table.t0_ns, cpus, own_pids, kernel, steal, waits,
                                   release_latency_in_bounds_ns, simulated, thread_names,
                                   over.beyond_ns if over else 0))
    out.sort(key=lambda j: (j.release_ns, j.task))
    return tuple(out)
