"""EDF on one CPU beside constant bandwidth servers: a CBS's demand is a line, not a staircase.

The rules (Abeni & Buttazzo, RTSS 1998; rtsched's ``cbs_update`` in src/ult/reservation.c and
rtsched.sim.reservations follow them): a CBS of budget Q and period T holds a budget c and a
deadline d. When a task inside becomes ready while none was (a wake-up at time w) the CBS keeps
(c, d) if c < (d − w)·Q/T, else it takes (Q, w + T); when c runs out while a task inside is
ready it takes (Q, d + T).

Demand. Take a window [t1, t2] at the start of which no work with deadline ≤ t2 is pending. The
CBS's work with deadline ≤ t2 done in it is a chain of chunks that starts at a wake-up w ≥ t1:
either a kept chunk (c, d) with c < (d − w)·Q/T followed by k chunks (Q, d + jT), or k chunks
(Q, w + jT). Both add up to at most (t2 − w)·Q/T ≤ (t2 − t1)·Q/T. That is Abeni & Buttazzo's
isolation lemma, and it is all a CBS promises its neighbours: **its demand bound is L·Q/T for
every window length L**, not the staircase ⌊L/T⌋·Q of a sporadic task (Q, T, T). A CBS that
wakes with a kept chunk claims up to (d − w)·Q/T of a window shorter than T, where a sporadic
task would claim nothing; a plain task with D < T beside it can then miss (issue 35, class 6).
With implicit deadlines everywhere the two agree (Σ U ≤ 1 is A&B's theorem); with a
constrained deadline beside a CBS they do not.

The test: for every window L, dbf(L) + Σ_CBS L·Q/T ≤ L, dbf the sporadic tasks' (plain
tasks and periodic reservations as tasks of (Θ, Π, Π); a task's sleeps counted as execution,
suspension-obliviously, which is safe under EDF on one CPU). Between two steps of dbf the left side
grows by at most Σ Q/T ≤ 1 per unit of L, so only the steps (the absolute deadlines) are
checked. Horizon, with U the total utilization: dbf_i(L) ≤ (L + T_i − D_i)·U_i, so a window
that fails has L·(1 − U) < Σ (T_i − D_i)·U_i; when U = 1 the slack is periodic in the tasks'
hyperperiod H beyond D_max, and [0, D_max + H] suffices. The test proves every deadline: the
plain tasks' and each CBS chunk's (so the CBS keeps its own tasks' guarantee). Sufficient:
the line is reached only in the limit.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm
from typing import Sequence

from rtsched.analysis.edf_uni import MAX_DEMAND_POINTS, dbf
from rtsched.analysis.results import (NOT_SCHEDULABLE, SCHEDULABLE, UNDECIDED, AnalysisResult, TaskBound,
                                     TaskVerdict, Verdict, unsupported, verdict_of)
from rtsched.analysis.tasks import AnalysisTask, ceil_fraction

__all__ = ["TEST", "CbsServer", "edf_beside_cbs"]

#: The test's name, as an AnalysisResult's ``test``.
TEST = "edf-cbs"

#: A CBS as its neighbours see it: (name, budget Q ns, period T ns).
CbsServer = tuple[str, int, int]


def _horizon(tasks: Sequence[AnalysisTask], u_cbs: Fraction) -> int | None:
    """The largest window that can fail (None: U > 1)."""
    u = u_cbs + sum((Fraction(t.exec_ns, t.period_ns) for t in tasks), Fraction(0))
    dmax = max(t.deadline_ns for t in tasks)
    if u > 1:
        return None
    if u < 1:
        slack = sum((Fraction((t.period_ns - t.deadline_ns) * t.exec_ns, t.period_ns) for t in tasks), Fraction(0))
        return max(dmax, ceil_fraction(slack / (1 - u)))
    return dmax + lcm(*(t.period_ns for t in tasks))


def edf_beside_cbs(name: str, tasks: Sequence[AnalysisTask], servers: Sequence[CbsServer]) -> AnalysisResult:
    """One EDF level: the sporadic ``tasks`` beside the CBSs ``servers``; when it holds, each task's
    bound is its deadline and each CBS's its period (every chunk meets its deadline, at most T
    after the chunk began). ``name``: the level, for the reasons."""
    names = [t.name for t in tasks] + [s[0] for s in servers]
    for t in tasks:
        why = ("it locks a resource" if t.critical_sections else "release jitter" if t.jitter_ns
               else "non-preemptive intervals" if t.np_segments_ns else None)
        if why is not None:
            return unsupported(TEST, names, f"{name}: {t.name} beside a CBS: {why}, which the CBS demand test "
                               "(rtsched.analysis.cbs_demand) does not count")
    u_cbs = sum((Fraction(q, period) for _, q, period in servers), Fraction(0))
    label = ", ".join(f"{n} ({q}/{period} ns)" for n, q, period in servers)
    if not tasks:
        tasks = ()
    horizon = _horizon(tasks, u_cbs) if tasks else 0
    if u_cbs > 1 or horizon is None:
        return _all(names, NOT_SCHEDULABLE, f"{name}: U > 1 with the CBSs {label}")
    points = sorted({d for t in tasks for d in range(t.deadline_ns, horizon + 1, t.period_ns)})
    if len(points) > MAX_DEMAND_POINTS:
        return _all(names, UNDECIDED, f"{name}: more than {MAX_DEMAND_POINTS} deadlines below the horizon "
                    f"{horizon} ns: not decided")
    for at in points:
        demand = dbf(tasks, at) + u_cbs * at
        if demand > at:
            return _all(names, NOT_SCHEDULABLE, f"{name}: demand {float(demand):.1f} ns > {at} ns in a window of "
                        f"{at} ns, counting the CBSs {label} at their bandwidth (a CBS that wakes with budget "
                        "left keeps its deadline)")
    reason = (f"{name}: dbf(L) + L·ΣQ/T ≤ L at {len(points)} deadline(s), the CBSs {label} counted at their "
              "bandwidth in every window; bound = deadline (a CBS: its period)")
    bounds = tuple(TaskBound(t.name, t.deadline_ns, "ok", reason) for t in tasks)
    bounds += tuple(TaskBound(n, period, "ok", reason) for n, _, period in servers)
    assert verdict_of(bounds) == SCHEDULABLE
    return AnalysisResult(TEST, SCHEDULABLE, bounds, reason, exact=False)


def _all(names: list[str], verdict: Verdict, reason: str) -> AnalysisResult:
    state: TaskVerdict = "unknown" if verdict == UNDECIDED else "miss"
    return AnalysisResult(TEST, verdict, tuple(TaskBound(n, None, state, reason) for n in names), reason)
