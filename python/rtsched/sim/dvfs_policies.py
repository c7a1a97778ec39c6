"""DVFS policies of EDF on one CPU: which operating point to run at (docs/dvfs.md).

Work is measured in ns at the highest frequency (a ``compute``'s length);
a policy asks for a *speed*, the work per ns it needs (1 = the highest
frequency), and gets the lowest efficient operating point that gives at least
that (``PowerModel.efficient_points``; the highest point when none does). It is asked at every scheduling
point: each release and each completion on its CPU.

- ``none``: always the highest frequency (the WCET-only baseline).
- ``static``: the lowest point with speed >= U = Σ Cᵢ/Pᵢ, chosen once (EDF
  with implicit deadlines is schedulable at speed s iff U <= s).
- ``cc-edf``, cycle-conserving EDF (Pillai & Shin, SOSP 2001): each task
  counts Cᵢ/Pᵢ from its release until its job completes, then only the work
  that job actually did, ccᵢ/Pᵢ, until its next release; speed >= Σ Uᵢ. A task
  that finished early lends its unused share to the others until it comes back.
- ``la-edf``, look-ahead EDF (same paper): defers work as late as the
  guarantee allows. Going from the latest deadline to the earliest, each task's
  remaining worst-case work ``c_leftᵢ`` is placed after the earliest deadline
  Dₙ as far as the utilization left there allows; what cannot be placed (x)
  must be done before Dₙ, so speed >= Σx / (Dₙ − now).

With segments (Broekaert et al. §III.B: a job's code in sections of known
WCET that report their progress), the reclaiming policies also learn a job's
unused WCET at each segment boundary, not only at its completion: cc-EDF
lowers the task's share to (work done + WCET of the segments left) / Pᵢ and
la-EDF its ``c_left``; each boundary is a scheduling point.

Both reclaiming policies keep every deadline of a set with U <= 1 (the
paper's theorems; tests/python/test_sim_dvfs.py checks it on generated sets).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rtsched.model.power import OperatingPoint, PowerModel

__all__ = ["POLICIES", "DvfsPolicy", "PolicyTask", "make_policy"]

#: Policy names, the baseline first.
POLICIES: tuple[str, ...] = ("none", "static", "cc-edf", "la-edf")


@dataclass(frozen=True, slots=True)
class PolicyTask:
    """What a policy knows of a task: its WCET (ns at the highest frequency) and period."""

    wcet_ns: int
    period_ns: int

    @property
    def utilization(self) -> Fraction:
        return Fraction(self.wcet_ns, self.period_ns)


class DvfsPolicy:
    """The baseline (``none``) and the hooks the engine calls; the others override some."""

    name = "none"

    def __init__(self, model: PowerModel, tasks: list[PolicyTask], first_deadlines_ns: list[int]) -> None:
        """``first_deadlines_ns``: per task, when it counts as next due before its first release
        (its offset: nothing of it is pending until then; only la-EDF looks)."""
        self.model = model
        self.tasks = tasks
        #: The efficient points and their speeds, lowest first (what ``choose`` picks from).
        self.ladder = [(op, model.speed(op)) for op in model.efficient_points]

    def released(self, task: int, deadline_ns: int, pending_jobs: int) -> None:
        """A job of ``task`` was released (``pending_jobs`` of it now, this one included)."""

    def progressed(self, task: int, work: Fraction) -> None:
        """``task``'s current job did ``work`` more (ns at the highest frequency)."""

    def segment_ended(self, task: int, unused_wcet: Fraction) -> None:
        """A segment of ``task``'s current job (not its last) ended ``unused_wcet`` short of its WCET."""

    def completed(self, task: int, actual_work_ns: int, wcet_left: Fraction, next_deadline_ns: int | None) -> None:
        """``task``'s job completed after ``actual_work_ns`` of work, its last segment ``wcet_left``
        short of its WCET; ``next_deadline_ns``: the deadline of its next pending job, None when
        none is pending."""

    def needed_speed(self, now: Fraction) -> Fraction:
        return Fraction(1)

    def revisit_ns(self, now: Fraction) -> Fraction | None:
        """A time after ``now`` when the policy must choose again even if no job is released or
        completes then (None: releases and completions are enough)."""
        return None

    def choose(self, now: Fraction) -> tuple[OperatingPoint, Fraction]:
        """The operating point from ``now`` on, and the speed the policy needed."""
        needed = self.needed_speed(now)
        for op, speed in self.ladder:
            if speed >= needed:
                return op, needed
        return self.ladder[-1][0], needed  # more than the highest speed: a miss is coming


class StaticScaling(DvfsPolicy):
    name = "static"

    def needed_speed(self, now: Fraction) -> Fraction:
        return sum((t.utilization for t in self.tasks), Fraction(0))


class CycleConserving(DvfsPolicy):
    """Invariant: ``shares[i]`` is Cᵢ/Pᵢ while a job of task i is pending, less the WCET its ended
    segments did not use over Pᵢ (the job's demand bound so far), else ccᵢ/Pᵢ of its last job
    (Cᵢ/Pᵢ before its first release)."""

    name = "cc-edf"

    def __init__(self, model: PowerModel, tasks: list[PolicyTask], first_deadlines_ns: list[int]) -> None:
        super().__init__(model, tasks, first_deadlines_ns)
        self.shares = [t.utilization for t in tasks]

    def released(self, task: int, deadline_ns: int, pending_jobs: int) -> None:
        self.shares[task] = self.tasks[task].utilization

    def segment_ended(self, task: int, unused_wcet: Fraction) -> None:
        self.shares[task] -= unused_wcet / self.tasks[task].period_ns

    def completed(self, task: int, actual_work_ns: int, wcet_left: Fraction, next_deadline_ns: int | None) -> None:
        if next_deadline_ns is None:
            self.shares[task] = Fraction(actual_work_ns, self.tasks[task].period_ns)

    def needed_speed(self, now: Fraction) -> Fraction:
        return sum(self.shares, Fraction(0))


class LookAhead(DvfsPolicy):
    """Invariant: ``c_left[i]`` is the WCET not yet used of task i's pending jobs (0 when none);
    ``deadlines[i]`` the deadline of its oldest pending job, else of its last one (for a periodic
    task with implicit deadline: its next release), else its offset.

    The deferral assumes the policy chooses again at the earliest deadline Dₙ: for periodic
    tasks a release happens there, for a sporadic one whose next job comes later nothing does,
    so ``revisit_ns`` asks for Dₙ. A task with nothing pending whose deadline has passed (a
    sporadic task between jobs) takes no part in the deferral and keeps its utilization
    reserved: it defers less, never more."""

    name = "la-edf"

    def __init__(self, model: PowerModel, tasks: list[PolicyTask], first_deadlines_ns: list[int]) -> None:
        super().__init__(model, tasks, first_deadlines_ns)
        self.deadlines: list[Fraction] = [Fraction(d) for d in first_deadlines_ns]
        self.c_left = [Fraction(0) for _ in tasks]
        self.total = sum((t.utilization for t in tasks), Fraction(0))

    def released(self, task: int, deadline_ns: int, pending_jobs: int) -> None:
        if pending_jobs == 1:
            self.deadlines[task] = Fraction(deadline_ns)
        self.c_left[task] += self.tasks[task].wcet_ns

    def progressed(self, task: int, work: Fraction) -> None:
        self.c_left[task] = max(Fraction(0), self.c_left[task] - work)

    def segment_ended(self, task: int, unused_wcet: Fraction) -> None:
        self.c_left[task] = max(Fraction(0), self.c_left[task] - unused_wcet)

    def completed(self, task: int, actual_work_ns: int, wcet_left: Fraction, next_deadline_ns: int | None) -> None:
        if next_deadline_ns is not None:
            self.deadlines[task] = Fraction(next_deadline_ns)
        self.c_left[task] = max(Fraction(0), self.c_left[task] - wcet_left)

    def _considered(self, now: Fraction) -> list[int]:
        return [i for i in range(len(self.tasks)) if self.c_left[i] > 0 or self.deadlines[i] > now]

    def revisit_ns(self, now: Fraction) -> Fraction | None:
        considered = self._considered(now)
        earliest = min((self.deadlines[i] for i in considered), default=None)
        return earliest if earliest is not None and earliest > now else None

    def needed_speed(self, now: Fraction) -> Fraction:
        considered = self._considered(now)
        if not considered:
            return Fraction(0)
        order = sorted(considered, key=lambda i: self.deadlines[i], reverse=True)
        earliest = min(self.deadlines[i] for i in considered)
        if earliest <= now:  # a pending job's deadline is now or past (a miss): defer nothing
            return Fraction(1)
        utilization = self.total
        must_do = Fraction(0)  # work to finish before the earliest deadline
        for i in order:
            utilization -= self.tasks[i].utilization
            room = self.deadlines[i] - earliest
            deferred_max = (1 - utilization) * room
            x = max(Fraction(0), self.c_left[i] - deferred_max)
            if room > 0:
                utilization += (self.c_left[i] - x) / room
            must_do += x
        return must_do / (earliest - now)


_BY_NAME: dict[str, type[DvfsPolicy]] = {
    "none": DvfsPolicy, "static": StaticScaling, "cc-edf": CycleConserving, "la-edf": LookAhead,
}


def make_policy(name: str, model: PowerModel, tasks: list[PolicyTask], first_deadlines_ns: list[int]) -> DvfsPolicy:
    """The policy ``name`` (one of POLICIES) for one CPU's tasks."""
    if name not in _BY_NAME:
        raise ValueError(f"DVFS policy: expected one of {', '.join(POLICIES)}, got {name!r}")
    return _BY_NAME[name](model, tasks, first_deadlines_ns)
