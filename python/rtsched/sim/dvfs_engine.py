"""EDF on one CPU whose frequency a DVFS policy sets, with the background partition τ0.

Exact time (``Fraction`` ns: a job of 1 ms at two thirds of the highest
speed ends at 1.5 ms, not a rounding of it). The CPU steps from scheduling
point to scheduling point (releases, completions, segment ends, the end, and
any time the policy asks for: la-EDF's earliest deadline): at each, the
policy chooses the operating point (a FREQ_CHANGE event when it differs), then
the ready job with the earliest absolute deadline runs (ties: earlier release,
then lower task index) until it completes or the next scheduling point.

τ0 (Broekaert et al. §IV.C, §V.B): a background partition that is always
ready and runs exactly when no real-time job is ready, at the operating point
the policy chose: it gets only the slack the real-time jobs leave, and a
release takes the CPU back at once (a RESUME at the start of each stretch,
a PREEMPT at its end, on the ``tau0`` stream). Without τ0 the CPU idles.

Energy: running power at the operating point while a job or τ0 runs, idle
power otherwise (``PowerModel``). Frequency switches are instantaneous and
free here (docs/dvfs.md says what a real switch costs).

Events, as the main engine records them: RELEASE (nominal time, absolute
deadline) and START when a job first runs, COMPLETE (CPU time), then
DEADLINE_MISS (tardiness) for a late one. Times are written rounded down to ns.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from rtsched.model import Task
from rtsched.model.power import OperatingPoint, PowerModel
from rtsched.sim.draws import SporadicGaps
from rtsched.sim.dvfs_policies import DvfsPolicy
from rtsched.trace import EventType as EV

__all__ = ["Choice", "CpuResult", "DvfsTaskStream", "JobWork", "run_cpu"]

_RELEASE, _START, _COMPLETE, _MISS = int(EV.RELEASE), int(EV.START), int(EV.COMPLETE), int(EV.DEADLINE_MISS)
_FREQ, _RESUME, _PREEMPT = int(EV.FREQ_CHANGE), int(EV.RESUME), int(EV.PREEMPT)

Event = tuple[int, int, int, int, int, int, int]  # (time, type, cpu, job, arg0, 0, arg1), as SimThread.events
#: A task's next job as segments, (WCET, actual work) each in ns at the highest frequency; called
#: once per release. One segment: the job as a whole (the policy learns its work at completion).
JobWork = Callable[[], list[tuple[int, int]]]


@dataclass(frozen=True, slots=True)
class Choice:
    """One decision of the policy: at ``time_ns`` on ``cpu``, ``point`` for ``needed_speed``."""

    time_ns: Fraction
    cpu: int
    point: OperatingPoint
    needed_speed: Fraction


@dataclass
class DvfsTaskStream:
    """A task's trace stream (the fields ``write_sim_trace`` reads)."""

    task_id: int
    tid: int
    name: str
    period_ns: int
    deadline_ns: int
    events: list[Event] = field(default_factory=list)


@dataclass
class CpuResult:
    cpu: int
    energy_pj: Fraction = Fraction(0)
    busy_ns: Fraction = Fraction(0)          # real-time jobs ran
    tau0_ns: Fraction = Fraction(0)          # τ0 ran
    tau0_work_ns: Fraction = Fraction(0)     # τ0's work, in ns at the highest frequency
    residency_ns: dict[int, Fraction] = field(default_factory=dict)  # MHz -> time at that frequency
    jobs_completed: int = 0
    misses: int = 0
    choices: list[Choice] = field(default_factory=list)
    freq_events: list[Event] = field(default_factory=list)
    tau0_events: list[Event] = field(default_factory=list)


@dataclass
class _Job:
    """Invariant: ``done`` is the work done in segment ``segment`` (earlier ones are complete)."""

    number: int
    release_ns: int
    deadline_ns: int
    segments: list[tuple[int, int]]
    segment: int = 0
    done: Fraction = Fraction(0)
    cpu_time: Fraction = Fraction(0)
    started: bool = False


def _floor(t: Fraction) -> int:
    return math.floor(t)


class _TaskState:
    def __init__(self, task: Task, stream: DvfsTaskStream, job_work: JobWork) -> None:
        self.task = task
        self.stream = stream
        self.job_work = job_work
        self.next_release_ns = task.offset_ns
        self.released = 0
        self.pending: deque[_Job] = deque()
        gaps = task.sporadic if task.kind == "sporadic" else None
        self.gaps = SporadicGaps(gaps.seed, gaps.max_extra_ns) if gaps and gaps.max_extra_ns else None

    def release(self, end_ns: int) -> _Job:
        task = self.task
        self.released += 1
        job = _Job(self.released, self.next_release_ns, self.next_release_ns + task.deadline_ns, self.job_work())
        self.pending.append(job)
        done = task.max_jobs is not None and self.released >= task.max_jobs
        gap = task.period_ns + (self.gaps.next_extra_ns() if self.gaps is not None else 0)
        self.next_release_ns = end_ns if done else self.next_release_ns + gap
        return job


def run_cpu(cpu: int, tasks: list[tuple[Task, DvfsTaskStream, JobWork]], model: PowerModel,
            policy: DvfsPolicy, end_ns: int, tau0: bool) -> CpuResult:
    """Simulate ``tasks`` (in the policy's order) on ``cpu`` from 0 to ``end_ns``."""
    result = CpuResult(cpu)
    states = [_TaskState(task, stream, work) for task, stream, work in tasks]
    now = Fraction(0)
    point: OperatingPoint | None = None
    tau0_running = False
    while now < end_ns:
        for i, s in enumerate(states):
            while s.next_release_ns <= now and s.next_release_ns < end_ns:
                job = s.release(end_ns)
                policy.released(i, job.deadline_ns, len(s.pending))
        chosen, needed = policy.choose(now)
        result.choices.append(Choice(now, cpu, chosen, needed))
        if chosen != point:
            point = chosen
            result.freq_events.append((_floor(now), _FREQ, cpu, 0, point.frequency_mhz * 1000, 0,
                                       point.voltage_mv * 1000))
        speed = model.speed(point)
        next_release: Fraction = Fraction(min([s.next_release_ns for s in states if s.next_release_ns < end_ns]
                                              + [end_ns]))
        revisit = policy.revisit_ns(now)
        if revisit is not None and revisit < next_release:
            next_release = revisit  # the next scheduling point, a release or not
        ready = [(s.pending[0].deadline_ns, s.pending[0].release_ns, i) for i, s in enumerate(states) if s.pending]
        if not ready:
            stop = next_release
            if tau0:
                if not tau0_running:
                    result.tau0_events.append((_floor(now), _RESUME, cpu, 0, cpu, 0, 0))
                    tau0_running = True
                result.tau0_ns += stop - now
                result.tau0_work_ns += (stop - now) * speed
                result.energy_pj += (stop - now) * model.running_mw(point)
            else:
                result.energy_pj += (stop - now) * model.idle_mw
            result.residency_ns[point.frequency_mhz] = result.residency_ns.get(point.frequency_mhz, Fraction(0)) \
                + stop - now
            now = stop
            continue
        if tau0_running:
            result.tau0_events.append((_floor(now), _PREEMPT, cpu, 0, cpu, 0, 0))
            tau0_running = False
        index = min(ready)[2]
        state = states[index]
        job = state.pending[0]
        events = state.stream.events
        if not job.started:
            job.started = True
            events.append((job.release_ns, _RELEASE, cpu, job.number, 0, 0, job.deadline_ns))
            events.append((_floor(now), _START, cpu, job.number, 0, 0, 0))
        segment_wcet, segment_actual = job.segments[job.segment]
        finish = now + (segment_actual - job.done) / speed
        stop = min(finish, next_release)
        work = (stop - now) * speed if stop < finish else segment_actual - job.done
        job.done += work
        job.cpu_time += stop - now
        policy.progressed(index, work)
        result.busy_ns += stop - now
        result.energy_pj += (stop - now) * model.running_mw(point)
        result.residency_ns[point.frequency_mhz] = result.residency_ns.get(point.frequency_mhz, Fraction(0)) \
            + stop - now
        now = stop
        if job.done < segment_actual:
            continue
        unused = Fraction(segment_wcet - segment_actual)
        if job.segment + 1 < len(job.segments):  # a segment boundary: the policy learns its slack
            job.segment += 1
            job.done = Fraction(0)
            policy.segment_ended(index, unused)
            continue
        actual_ns = sum(a for _w, a in job.segments)
        state.pending.popleft()
        events.append((_floor(now), _COMPLETE, cpu, job.number, 0, 0, round(job.cpu_time)))
        result.jobs_completed += 1
        if now > job.deadline_ns:
            result.misses += 1
            events.append((_floor(now), _MISS, cpu, job.number, 0, 0, math.ceil(now - job.deadline_ns)))
        next_deadline = state.pending[0].deadline_ns if state.pending else None
        policy.completed(index, actual_ns, unused, next_deadline)
    if tau0_running:
        result.tau0_events.append((end_ns, _PREEMPT, cpu, 0, cpu, 0, 0))
    return result
