"""EDF on one processor (or per partition: P-EDF).

- :func:`edf_utilization` — Liu & Layland 1973: U ≤ 1 is exact for implicit
  deadlines; for constrained deadlines the density test Σ C/min(D,T) ≤ 1
  is sufficient. With SRP (Baker 1991): for every k in deadline order,
  Σ_{i≤k} C_i/D_i + B_k/D_k ≤ 1 (sufficient).
- :func:`edf_demand` — processor-demand analysis (Baruah, Rosier, Howell
  1990) with SRP blocking (Baker 1991; Buttazzo's *Hard Real-Time
  Computing Systems* §7.8): for every absolute deadline t ≤ L,
  dbf(t) + B(t) ≤ t with B(t) the longest section (at any depth of
  nesting) of a task whose
  relative deadline exceeds t on a resource also locked by a task whose
  deadline is ≤ t, or on a non-preemptive (``np``) resource, which blocks
  every task (an np section acts as an SRP section whose ceiling is the
  highest preemption level). L is min(L_a, L_b) of Zhang & Burns (L_a alone when the
  busy-period iteration takes more than BUSY_PERIOD_STEPS steps; the
  hyperperiod when U = 1 and it does): a true horizon, never a truncated
  one. Exact without resources. More than MAX_DEMAND_POINTS deadlines below
  L: verdict ``unknown``, with where it stopped.
- :func:`edf_qpa` — Quick Processor-demand Analysis (Zhang & Burns 2009):
  the same answer as the demand test without blocking, visiting few points,
  from the same horizon L.
  With resources it falls back to the exhaustive test (QPA's proof does not
  cover B(t)).

EDF tests prove deadlines, not response times: a task's bound is its
deadline when the set is schedulable.
"""

from __future__ import annotations

import heapq
from dataclasses import replace
from fractions import Fraction
from math import lcm
from typing import Sequence

from rtsched.analysis.results import (
    SCHEDULABLE,
    UNDECIDED,
    AnalysisResult,
    TaskBound,
    refuse_clusters,
    unsupported,
    verdict_of,
)
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, ceil_div

__all__ = ["dbf", "edf_utilization", "edf_demand", "edf_qpa", "MAX_DEMAND_POINTS", "BUSY_PERIOD_STEPS",
           "srp_blocking_at", "np_resources"]

#: Deadlines the exhaustive demand test will visit before giving up (verdict unknown, never "ok").
MAX_DEMAND_POINTS = 2_000_000
#: Steps of the busy-period iteration before the horizon falls back to L_a (or the hyperperiod).
BUSY_PERIOD_STEPS = 10_000


def dbf(tasks: Sequence[AnalysisTask], t: int) -> int:
    """Demand bound function: execution of jobs with release and deadline in [0, t]."""
    return _demand(_dtc(tasks), t)


#: A task as the demand tests read it: (D, T, C) in ns, C the execution plus suspensions.
Dtc = list[tuple[int, int, int]]


def _dtc(tasks: Sequence[AnalysisTask]) -> Dtc:
    return [(x.deadline_ns, x.period_ns, x.exec_ns) for x in tasks]


def _demand(dtc: Dtc, t: int) -> int:
    total = 0
    for d, period, c in dtc:
        if t >= d:
            total += ((t - d) // period + 1) * c
    return total


def srp_blocking_at(tasks: Sequence[AnalysisTask], t: int, np_resources: frozenset[str] = frozenset(),
                    pip_resources: frozenset[str] = frozenset()) -> int:
    """B(t): the longest section of a task with D > t on a resource locked by a task with D ≤ t,
    or on one of ``np_resources`` (non-preemptive sections block every task). When a task locks one
    of ``pip_resources`` the longest such section of *each* task with D > t, added up (PIP lets
    several longer-deadline jobs block; docs/analysis.md, "EDF blocking")."""
    if not any(x.deadline_ns <= t for x in tasks):
        return 0
    return _blocking(tuple(x for x in tasks if x.deadline_ns > t), _users_le(tasks, t) | np_resources,
                     _inherits(tasks, pip_resources))


def _inherits(tasks: Sequence[AnalysisTask], pip_resources: frozenset[str]) -> bool:
    """Whether a job of ``tasks`` can run on an inherited deadline (it locks a PIP resource)."""
    return any(not pip_resources.isdisjoint(x.resources()) for x in tasks)


def _blocking(longer: Sequence[AnalysisTask], blocking: set[str] | frozenset[str], inherit: bool) -> int:
    """The blocking by the longer-deadline tasks ``longer`` of jobs that lock the ``blocking`` resources.

    A longer-deadline job runs in a shorter job's busy interval only while it holds a blocking
    resource, in one stretch: the longest section on one, at any depth, by its own length (while the
    holder holds only other resources a shorter-deadline job preempts it). Without inheritance at
    most one such job holds one when the interval starts (SRP, np): the longest section of any of
    them. With PIP (``inherit``) each longer-deadline job may have been preempted inside one: their
    longest sections added up, over the resources that a blocking section can wait for too (a
    holder of one inherits through the chain).
    """
    if not inherit:
        return max((cs.length_ns for x in longer for cs in x.critical_sections if cs.resource in blocking),
                   default=0)
    reach = set(blocking)
    grown = True
    while grown:
        grown = False
        for x in longer:
            for cs in x.critical_sections:
                if cs.resource in reach and not reach.issuperset(cs.nested):
                    reach.update(cs.nested)
                    grown = True
    return sum(max((cs.length_ns for cs in x.critical_sections if cs.resource in reach), default=0)
               for x in longer)


def _resources_under(problem: AnalysisProblem, protocol: str) -> frozenset[str]:
    return frozenset(r for r in problem.resources() if problem.protocol(r) == protocol)


def np_resources(problem: AnalysisProblem) -> frozenset[str]:
    """The resources under ``np``: a section on one is not preempted, whoever else locks it."""
    return _resources_under(problem, "np")


#: Tasks per partition (key None: a uniprocessor), as the EDF tests read them.
Groups = dict[str | None, tuple[AnalysisTask, ...]]


def _check(problem: AnalysisProblem, test: str) -> Groups | AnalysisResult:
    """The tasks per partition (jitter folded into deadlines), or why ``test`` does not apply."""
    if not problem.is_edf or problem.scheduler == "G-EDF":
        return unsupported(test, problem.names(), f"{test} needs EDF on one processor or P-EDF; the set uses {problem.scheduler}")
    refused = refuse_clusters(test, problem)
    if refused is not None:
        return refused
    if problem.global_resources():
        return unsupported(test, problem.names(), "a resource is shared across partitions: no P-EDF locking analysis here")
    for r in problem.resources():
        if problem.protocol(r) not in ("srp", "pip", "pcp", "ipcp", "np"):
            return unsupported(test, problem.names(), f"resource {r}: protocol {problem.protocol(r)} has no EDF analysis here")
    groups = problem.partitions()
    for part, tasks in groups.items():
        jittered = [t for t in tasks if t.jitter_ns]
        if not jittered:
            continue
        if any(t.critical_sections for t in tasks):
            return unsupported(test, problem.names(), f"{jittered[0].name}: release jitter with shared resources "
                               f"is not supported by {test} (SRP's blocking term assumes no jitter)")
        late = next((t for t in jittered if t.jitter_ns >= t.deadline_ns), None)
        if late is not None:
            return unsupported(test, problem.names(), f"{late.name}: release jitter {late.jitter_ns} ns is not "
                               f"below its deadline {late.deadline_ns} ns")
        groups[part] = tuple(without_jitter(t) for t in tasks)
    return groups


def without_jitter(t: AnalysisTask) -> AnalysisTask:
    """A task with release jitter J as EDF's demand sees it: a job released up to J late must still
    finish by its absolute deadline, so its demand in any window is that of deadline D − J and
    period T with no jitter (Spuri's dbf with jitter: ⌊(t + J − D)/T⌋ + 1 jobs by t)."""
    if not t.jitter_ns:
        return t
    return replace(t, deadline_ns=t.deadline_ns - t.jitter_ns, jitter_ns=0)


def _finish(problem: AnalysisProblem, test: str, per_part: dict[str, tuple[bool | None, str]], exact: bool,
            details: dict[str, Fraction]) -> AnalysisResult:
    bounds: list[TaskBound] = []
    for t in problem.tasks:
        name = t.name
        ok, why = per_part[name]
        if name in problem.unanalysable:
            bounds.append(TaskBound(name, None, "unknown", problem.unanalysable[name]))
        elif ok is None:
            bounds.append(TaskBound(name, None, "unknown", why))
        elif ok:
            bounds.append(TaskBound(name, t.deadline_ns, "ok", why + "; bound = deadline"))
        else:
            bounds.append(TaskBound(name, None, "miss", why))
    verdict = verdict_of(bounds)
    if any(ok is None for ok, _ in per_part.values()) and not any(ok is False for ok, _ in per_part.values()):
        verdict = UNDECIDED
    reasons = sorted({per_part[n][1] for n in problem.names()})
    # sleeps counted as execution, and jitter as a shorter deadline: safe, not shown tight
    exact = exact and not any(t.suspension_ns or t.jitter_ns for t in problem.tasks)
    return AnalysisResult(test=test, verdict=verdict, tasks=tuple(bounds), exact=exact,
                          reason="; ".join(reasons),
                          details=details)


def edf_utilization(problem: AnalysisProblem) -> AnalysisResult:
    test = "edf-util"
    groups = _check(problem, test)
    if isinstance(groups, AnalysisResult):
        return groups
    per: dict[str, tuple[bool | None, str]] = {}
    details: dict[str, Fraction] = {}
    exact = True
    nonpreemptive = np_resources(problem)
    inheriting = _resources_under(problem, "pip")
    for part, tasks in groups.items():
        implicit = all(t.deadline_ns == t.period_ns for t in tasks)
        has_res = any(t.critical_sections for t in tasks)
        where = f" on {part}" if part else ""
        if not has_res:
            dens = sum((Fraction(t.exec_ns, min(t.deadline_ns, t.period_ns)) for t in tasks), Fraction(0))
            ok = dens <= 1
            exact = exact and implicit
            word = "U" if implicit else "density"
            why = f"{word}{where} = {float(dens):.4f} {'≤' if ok else '>'} 1"
            details[f"{word}{where}"] = dens
            for t in tasks:
                per[t.name] = (ok, why)
            continue
        exact = False
        ordered = sorted(tasks, key=lambda t: t.deadline_ns)
        inherit = _inherits(tasks, inheriting)
        acc = Fraction(0)
        all_ok = True
        first_bad = ""
        for k, t in enumerate(ordered):
            acc += Fraction(t.exec_ns, min(t.deadline_ns, t.period_ns))
            b = _blocking(ordered[k + 1:], _users_le(ordered, t.deadline_ns) | nonpreemptive, inherit)
            if acc + Fraction(b, t.deadline_ns) > 1 and all_ok:
                all_ok = False
                first_bad = f"Σ C/D up to {t.name} + B/D = {float(acc + Fraction(b, t.deadline_ns)):.4f} > 1"
        why = (f"SRP density test{where} holds" if all_ok else first_bad)
        for t in tasks:
            per[t.name] = (all_ok, why)
    return _finish(problem, test, per, exact, details)


def _users_le(tasks: Sequence[AnalysisTask], d: int) -> set[str]:
    out: set[str] = set()
    for x in tasks:
        if x.deadline_ns <= d:
            out |= x.resources()
    return out


def _deadlines_below(dtc: Dtc, x: int) -> int | None:
    """The largest absolute deadline strictly below x (synchronous release), or None."""
    best = None
    for d, period, _ in dtc:
        if x > d:
            last = (x - 1 - d) // period * period + d
            if best is None or last > best:
                best = last
    return best


def _busy_period(tasks: Sequence[AnalysisTask], stop_at: int | None = None) -> int | None:
    """The synchronous busy period L_b (least w > 0 with Σ ⌈w/T⌉C = w), or None if not reached
    within BUSY_PERIOD_STEPS steps of its fixed-point iteration (the caller then uses another bound)
    or once an iterate reaches ``stop_at`` (the iterates climb to L_b, so then L_b ≥ stop_at)."""
    tc = [(t.period_ns, t.exec_ns) for t in tasks]
    w = sum(c for _, c in tc)
    for _ in range(BUSY_PERIOD_STEPS):
        if stop_at is not None and w >= stop_at:
            return None
        new = sum(-(-w // period) * c for period, c in tc)
        if new == w:
            return w
        w = new
    return None


def _horizon(tasks: Sequence[AnalysisTask]) -> tuple[int | None, str]:
    """L: if dbf(t) ≤ t at every absolute deadline t ≤ L, then at every t. None when U > 1.

    Without blocking, any of these bounds is such an L (Zhang & Burns 2009):
    L_a = max(D_max, Σ (T_i − D_i)·U_i / (1 − U)) when U < 1; the synchronous
    busy period L_b (U ≤ 1); the hyperperiod H ≥ L_b when U = 1. rtsched takes
    min(L_a, L_b), or L_a alone when the busy-period iteration (which may
    need very many steps) has not converged within BUSY_PERIOD_STEPS, or H
    when U = 1 and it has not: never a truncated iterate (issue 22, defect 3).
    With SRP blocking, B(t) = 0 for t ≥ D_max, so max(L, D_max) is a horizon
    for dbf(t) + B(t) ≤ t (the caller adds D_max through L_a or below).
    """
    # U = used / common exactly, over the periods' least common multiple
    common = lcm(*(t.period_ns for t in tasks))
    used = sum(t.exec_ns * (common // t.period_ns) for t in tasks)
    dmax = max(t.deadline_ns for t in tasks)
    if used > common:
        return None, f"U = {used / common:.4f} > 1"
    if used < common:
        # L_a = Σ (T_i − D_i)·U_i / (1 − U), in units of 1/common above and below
        slack = sum((t.period_ns - t.deadline_ns) * t.exec_ns * (common // t.period_ns) for t in tasks)
        la_i = max(dmax, ceil_div(slack, common - used))
        lb = _busy_period(tasks, stop_at=la_i)  # None: not converged, or L_b ≥ L_a
        if lb is None or la_i <= lb:
            return la_i, f"L_a = {la_i} ns"
        return max(lb, dmax), f"L_b = {lb} ns (busy period)"
    lb = _busy_period(tasks)
    if lb is not None:
        return max(lb, dmax), f"L_b = {lb} ns (busy period)"
    h = lcm(*(t.period_ns for t in tasks))
    return max(h, dmax), f"U = 1: the hyperperiod {h} ns (the busy period took over {BUSY_PERIOD_STEPS} steps)"


def _demand_group(tasks: Sequence[AnalysisTask], blocking: bool, nonpreemptive: frozenset[str] = frozenset(),
                  inheriting: frozenset[str] = frozenset()) -> tuple[bool | None, str, int]:
    """The exhaustive demand test: (True: every deadline met, False: a miss, None: gave up; reason, points)."""
    L, why_l = _horizon(tasks)
    if L is None:
        return False, why_l, 0
    points = 0
    dtc = _dtc(tasks)
    # enumerate absolute deadlines ≤ L in increasing order per task, merged
    heap = [(t.deadline_ns, i) for i, t in enumerate(tasks) if t.deadline_ns <= L]
    heapq.heapify(heap)
    last = -1
    while heap:
        d, i = heapq.heappop(heap)
        nxt = d + tasks[i].period_ns
        if nxt <= L:
            heapq.heappush(heap, (nxt, i))
        if d == last:
            continue
        last = d
        points += 1
        if points > MAX_DEMAND_POINTS:
            return None, (f"unknown: more than {MAX_DEMAND_POINTS} deadlines to check below the horizon "
                          f"({why_l}); checked up to t = {d} ns without a miss"), points
        h = _demand(dtc, d) + (srp_blocking_at(tasks, d, nonpreemptive, inheriting) if blocking else 0)
        if h > d:
            return False, f"demand {h} ns > {d} ns at t = {d} ns", points
    return True, f"demand ≤ t at all {points} deadlines up to {why_l}", points


def edf_demand(problem: AnalysisProblem) -> AnalysisResult:
    test = "edf-dbf"
    groups = _check(problem, test)
    if isinstance(groups, AnalysisResult):
        return groups
    per: dict[str, tuple[bool | None, str]] = {}
    exact = True
    for part, tasks in groups.items():
        blocking = any(t.critical_sections for t in tasks)
        exact = exact and not blocking
        ok, why, _ = _demand_group(tasks, blocking, np_resources(problem), _resources_under(problem, "pip"))
        why = (f"{part}: " if part else "") + why + (" (SRP blocking)" if blocking else "")
        for t in tasks:
            per[t.name] = (ok, why)
    return _finish(problem, test, per, exact, {})


def qpa_group(tasks: Sequence[AnalysisTask]) -> tuple[bool, str, int]:
    """Zhang & Burns' QPA on independent tasks: (schedulable, reason, points visited)."""
    L, why_l = _horizon(tasks)
    if L is None:
        return False, why_l, 0
    dmin = min(t.deadline_ns for t in tasks)
    dtc = _dtc(tasks)
    t = _deadlines_below(dtc, L + 1)  # deadlines ≤ L
    if t is None:
        return True, "no deadline below L", 0
    visits = 0
    while True:
        visits += 1
        h = _demand(dtc, t)
        if h > t:
            return False, f"demand {h} ns > {t} ns at t = {t} ns (QPA, {visits} points)", visits
        if h <= dmin:
            return True, f"QPA: h(t) ≤ d_min after {visits} points (horizon {why_l})", visits
        if h < t:
            t = h
        else:
            nxt = _deadlines_below(dtc, t)
            if nxt is None:
                return True, f"QPA: no deadline left after {visits} points", visits
            t = nxt


def edf_qpa(problem: AnalysisProblem, verdict_only: bool = False) -> AnalysisResult:
    """``verdict_only``: stop at the first partition that misses (the tasks of the partitions
    after it: ``unknown``); the same verdict. On one processor it changes nothing."""
    test = "edf-qpa"
    groups = _check(problem, test)
    if isinstance(groups, AnalysisResult):
        return groups
    per: dict[str, tuple[bool | None, str]] = {}
    exact = True
    missed = False
    for part, tasks in groups.items():
        if missed:
            for t in tasks:
                per[t.name] = (None, "not analysed: verdict_only stopped at the first partition that misses")
            continue
        if any(t.critical_sections for t in tasks):
            ok, why, _ = _demand_group(tasks, True, np_resources(problem), _resources_under(problem, "pip"))
            why += " (resources: exhaustive demand test with SRP blocking)"
            exact = False
        else:
            ok, why, _ = qpa_group(tasks)
        why = (f"{part}: " if part else "") + why
        for t in tasks:
            per[t.name] = (ok, why)
        missed = verdict_only and ok is False
    return _finish(problem, test, per, exact, {})
