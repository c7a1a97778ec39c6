"""Fixed-priority scheduling on one processor (or per partition without global resources).

- :func:`fp_rta` — response-time analysis (Joseph & Pandya 1986; Audsley,
  Burns, Richardson, Tindell, Wellings 1993) with release jitter (Tindell
  & Clark 1994) and blocking (see ``blocking``), arbitrary deadlines by
  the level-i busy period (Lehoczky 1990; Tindell, Burns, Wellings 1994):

      w(q) = (q+1)·C_i + B_i + Σ_{j∈hp(i)} ⌈(w(q) + J_j) / T_j⌉ · C_j
      R_i  = max_q  w(q) − q·T_i + J_i,   q = 0, 1, … while w(q) > (q+1)·T_i − J_i

  Exact for independent sporadic tasks with constrained or arbitrary
  deadlines (given the blocking bound).
- :func:`fp_liu_layland` — Liu & Layland 1973 utilization bound with the
  blocking extension of Sha, Rajkumar, Lehoczky 1990: for each i,
  Σ_{j≤i} U_j + B_i/T_i ≤ i(2^{1/i} − 1); compared exactly as
  (x/i + 1)^i ≤ 2 in rationals. Sufficient; rate-monotonic, D = T.
- :func:`fp_hyperbolic` — Bini, Buttazzo, Buttazzo 2003:
  Π_{j<i}(U_j + 1) · (U_i + B_i/T_i + 1) ≤ 2. Sufficient; dominates Liu–Layland.
- :func:`fp_limited_preemption` — tasks split into non-preemptive
  intervals (PREM, seed 002 chapter 5; fixed preemption points / deferred
  preemption, Bril, Lukkien, Verhaegh 2009; Yao, Buttazzo, Bertogna 2011):
  level-i active period, per-job start time of the last interval and
  finish time:

      S_{i,k} = B_i + k·C_i + (C_i − F_i) + Σ_{j∈hp(i)} (⌊S_{i,k}/T_j⌋ + 1)·C_j
      R_i     = max_k  S_{i,k} + F_i − k·T_i

  with F_i the last interval of τ_i and B_i the longest interval of a
  lower-priority task less 1 ns (integer time) plus the resource blocking. A fully preemptive task
  is a task of 1-ns intervals (F_i = 1 ns, integer time).

All times are integers of nanoseconds. Sleeps (``suspension_ns``) count as
execution (suspension-oblivious); release jitter is not applied to them.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable, Sequence

from rtsched.analysis.blocking import Blocking, blocking_context, blocking_term, ceilings, no_shared_resources
from rtsched.analysis.results import (
    NOT_SCHEDULABLE,
    SCHEDULABLE,
    STOPPED,
    AnalysisResult,
    TaskBound,
    refuse_clusters,
    unsupported,
    verdict_of,
)
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, ceil_div

__all__ = [
    "response_time",
    "rta_tasks",
    "rta_bound",
    "fp_rta",
    "fp_rta_result",
    "fp_liu_layland",
    "fp_hyperbolic",
    "fp_limited_preemption",
    "MAX_BUSY_JOBS",
]

#: Jobs of one task examined in a level-i busy period before giving up.
MAX_BUSY_JOBS = 100_000


def response_time(
    c: int, b: int, j_own: int, t: int, limit: int, hp: Sequence[tuple[int, ...]], floor: int = 0,
    b_later: int | None = None,
) -> tuple[int | None, int]:
    """The worst-case response time of a task (C=c, blocking b, jitter j_own, period t).

    ``b_later``: the blocking of a busy period that holds two jobs of the task or more, when it
    exceeds ``b`` (the first job's requests alone: blocking.py, "per request"); default ``b``.

    ``hp``: (C_j, T_j, J_j) of the higher-or-equal-priority tasks, or (C_j, T_j)
    pairs when none has jitter (the same answer, faster: bench/analysis). Returns
    (R, jobs) with R None when it exceeds ``limit`` (then ``jobs`` is the
    job index at which it did). Exact integer arithmetic. ``floor``: a value
    known not to exceed the first job's busy window (a faster start).
    """
    worst = 0
    pairs = not hp or len(hp[0]) == 2
    hp_c = 0
    for h in hp:
        hp_c += h[0]
    w = c + b + hp_c
    if floor > w:
        w = floor
    q = 0
    while True:
        base = (q + 1) * c + (b if q == 0 or b_later is None else b_later)
        if w < base + hp_c:
            w = base + hp_c
        while True:
            new = base
            if pairs:
                for cj, tj in hp:
                    new += -(-w // tj) * cj
            else:
                for cj, tj, jj in hp:
                    new += -(-(w + jj) // tj) * cj
            if new == w:
                break
            w = new
            if w - q * t + j_own > limit:
                return None, q
        r = w - q * t + j_own
        if r > worst:
            worst = r
        if worst > limit:
            return None, q
        if w <= (q + 1) * t - j_own:
            return worst, q
        q += 1
        if q >= MAX_BUSY_JOBS:
            return None, q


def _hp_of(task: AnalysisTask, tasks: Sequence[AnalysisTask]) -> list[tuple[int, int, int]]:
    return [(j.exec_ns, j.period_ns, j.jitter_ns) for j in tasks if j is not task and j.priority >= task.priority]


def rta_tasks(
    tasks: Sequence[AnalysisTask],
    protocol_of: Callable[[str], str],
    blocking_override: dict[str, Blocking] | None = None,
    jitter_extra: dict[str, int] | None = None,
    extra_on_own: bool = True,
    ceil: dict[str, int] | None = None,
    verdict_only: bool = False,
    blocking_per_job: bool = False,
) -> list[TaskBound]:
    """RTA of the tasks sharing one processor; blocking per ``protocol_of`` unless overridden.

    ``jitter_extra``: extra release jitter per task name, applied both to the
    task's own response and to its interference on lower-priority tasks
    (how self-suspending tasks, e.g. MPCP's remote waits, are accounted);
    ``extra_on_own=False`` applies it to the interference only (when the
    blocking term already holds the task's own waiting). ``ceil``: the
    resources' ceilings (default: the highest priority of their users).
    ``verdict_only``: the tasks after the first miss are not analysed (``unknown``, STOPPED).
    ``blocking_per_job``: every job of the task in a level-i busy window (several when D > T)
    suffers the blocking anew, so the window holds (q + 1)·(C + B), not (q + 1)·C + B: for
    blocking that comes from each job's own suspensions (remote waits, boosted sections met at
    each release and resumption). With D ≤ T the bound is the same (the window ends after one job
    or the task misses).
    """
    # without resources every term is blocking_term's first case: no index to build
    ctx = blocking_context(tasks, protocol_of, ceil) if any(t.resources() for t in tasks) else None
    jitter_extra = jitter_extra or {}
    # higher-or-equal-priority interference lists, built once: tasks by decreasing priority,
    # hp(i) = every other task of priority ≥ p_i (a prefix of that order, minus i itself)
    order = sorted(range(len(tasks)), key=lambda k: -tasks[k].priority)
    demand: list[tuple[int, ...]]
    if jitter_extra:
        demand = [(tasks[k].exec_ns, tasks[k].period_ns, tasks[k].jitter_ns + jitter_extra.get(tasks[k].name, 0))
                  for k in order]
    else:
        demand = [(tasks[k].exec_ns, tasks[k].period_ns, tasks[k].jitter_ns) for k in order]
    if not any(d[2] for d in demand):  # no jitter: (C, T) pairs, response_time's faster form
        demand = [d[:2] for d in demand]
    prios = [tasks[k].priority for k in order]
    hp_of: dict[int, list[tuple[int, ...]]] = {}
    end = 0
    n = len(order)
    for pos, k in enumerate(order):
        if end <= pos:
            end = pos + 1
            while end < n and prios[end] == prios[pos]:
                end += 1
        hp_of[k] = demand[:pos] + demand[pos + 1:end] if end > pos + 1 else demand[:pos]
    out: list[TaskBound] = []
    pip_only = ctx is not None and ctx.pip_only  # then a task adding nothing has ctx.pip_term (blocking_term's)
    missed = False
    for idx, task in enumerate(tasks):
        if verdict_only and missed:
            out.append(TaskBound(task.name, None, "unknown", STOPPED))
            continue
        if blocking_override is not None and task.name in blocking_override:
            blk = blocking_override[task.name]
        elif ctx is None:
            blk = no_shared_resources(task.extra_blocking_ns)
        elif pip_only and not task.extra_blocking_ns:
            blk = ctx.pip_term(task, jobs=1)
        else:
            blk = blocking_term(task, tasks, protocol_of, ctx=ctx, jobs=1)
        if blk.ns is None:
            out.append(TaskBound(task.name, None, "unknown", blk.reason, None))
            continue
        own_j = task.jitter_ns + (jitter_extra.get(task.name, 0) if extra_on_own else 0)
        if blocking_per_job:
            r, jobs = response_time(task.exec_ns + blk.ns, 0, own_j, task.period_ns, task.deadline_ns, hp_of[idx])
        else:
            r, jobs = response_time(task.exec_ns, blk.ns, own_j, task.period_ns, task.deadline_ns, hp_of[idx])
        if r is not None and jobs > 0 and not blocking_per_job and ctx is not None and ctx.shared and (
                blocking_override is None or task.name not in blocking_override):
            # a busy period of several jobs: their requests count too (blocking.py: once per request)
            later = ctx.pip_term(task) if pip_only and not task.extra_blocking_ns else \
                blocking_term(task, tasks, protocol_of, ctx=ctx)
            if later.ns is not None and later.ns != blk.ns:  # the same protocols: bounded when blk is
                r, jobs = response_time(task.exec_ns, blk.ns, own_j, task.period_ns, task.deadline_ns, hp_of[idx],
                                        b_later=later.ns)
                blk = later
        out.append(rta_bound(task, blk, r, jobs))
        missed = missed or r is None
    return out


def rta_bound(task: AnalysisTask, blk: Blocking, r: int | None, jobs: int) -> TaskBound:
    """A task's outcome: bound ``r`` with blocking ``blk`` (``blk.ns`` an int), or r None: past the deadline
    at job ``jobs`` of the busy period (``response_time``'s answer; the native kernel's too)."""
    if r is None:
        return TaskBound(task.name, None, "miss",
                         f"response time exceeds the deadline {task.deadline_ns} ns (job {jobs} of the busy period); "
                         f"blocking {blk.ns} ns: {blk.reason}", blk.ns)
    return TaskBound(task.name, r, "ok", f"blocking {blk.ns} ns: {blk.reason}", blk.ns)


def _mark_unanalysable(problem: AnalysisProblem, bounds: list[TaskBound]) -> list[TaskBound]:
    if not problem.unanalysable:
        return bounds
    return [
        TaskBound(b.name, None, "unknown", problem.unanalysable[b.name], b.blocking_ns)
        if b.name in problem.unanalysable else b
        for b in bounds
    ]


#: Tasks per processor (key None: a uniprocessor).
Groups = dict[str | None, tuple[AnalysisTask, ...]]


def _uniprocessor_groups(problem: AnalysisProblem, test: str) -> Groups | AnalysisResult:
    """The processor groups of an FP problem, or an unsupported result."""
    if not problem.is_fp:
        return unsupported(test, problem.names(), f"{test} needs fixed priorities; the set uses {problem.scheduler}")
    if problem.scheduler == "G-FP":
        return unsupported(test, problem.names(), "global FP: use gfp-rta")
    refused = refuse_clusters(test, problem)
    if refused is not None:
        return refused
    return problem.partitions()


def fp_rta(problem: AnalysisProblem, protocol: str | None = None, verdict_only: bool = False) -> AnalysisResult:
    """Response-time analysis per processor; each resource's blocking by its protocol.

    ``verdict_only``: stop at the first task that misses (the rest: ``unknown``); the same verdict.

    ``protocol`` forces one protocol for every resource. Under P-FP a
    resource locked from two partitions needs a multiprocessor protocol
    (``p-fp-mpcp``, ``p-fp-fmlp+``): the tasks of the partitions involved get
    no bound here.
    """
    test = "fp-rta" if protocol is None else f"fp-rta-{protocol}"
    groups = _uniprocessor_groups(problem, test)
    if isinstance(groups, AnalysisResult):
        return groups
    protocol_of = (lambda r: protocol) if protocol else problem.protocol
    global_res = problem.global_resources()
    # a miss of a task the adapter marks unanalysable becomes "unknown": it decides nothing
    verdict_only = verdict_only and not problem.unanalysable
    bounds: dict[str, TaskBound] = {}
    for part, tasks in groups.items():
        crossing = sorted(r for t in tasks for r in t.resources() if r in global_res) if global_res else ()
        if crossing:
            reason = (f"resource {crossing[0]} is global (shared with another partition, or under mpcp "
                      f"or fmlp+): analyse it with a multiprocessor protocol (p-fp-mpcp, p-fp-fmlp+)")
            for t in tasks:
                bounds[t.name] = TaskBound(t.name, None, "unknown", reason)
            continue
        if verdict_only and any(b.verdict == "miss" for b in bounds.values()):
            bounds.update((t.name, TaskBound(t.name, None, "unknown", STOPPED)) for t in tasks)
            continue
        for b in rta_tasks(tasks, protocol_of, ceil=_ceilings_of(problem, tasks), verdict_only=verdict_only):
            bounds[b.name] = b
    return fp_rta_result(problem, test, groups.values(), bounds)


def fp_rta_result(problem: AnalysisProblem, test: str, groups: Iterable[Sequence[AnalysisTask]],
                  bounds: dict[str, TaskBound]) -> AnalysisResult:
    """fp_rta's result from every task's outcome (``bounds``, by name) on its processor's ``groups``.
    (Also what the native kernel's outputs are turned into: ``native_engine.fp_rta``.)"""
    ordered = _mark_unanalysable(problem, [bounds[n] for n in problem.names()])
    verdict = verdict_of(ordered)
    # exact for independent tasks of distinct priorities; sleeps are counted as execution (safe, not
    # tight), and equal priorities run FIFO, where counting each other as interference is not tight
    exact = (not any(t.critical_sections or t.suspension_ns for t in problem.tasks)
             and all(len({t.priority for t in ts}) == len(ts) for ts in groups))
    return AnalysisResult(
        test=test, verdict=verdict, tasks=tuple(ordered), exact=exact,
        reason=("every response-time bound is within its deadline" if verdict == SCHEDULABLE
                else _why(ordered)),
    )


def _ceilings_of(problem: AnalysisProblem, tasks: Sequence[AnalysisTask]) -> dict[str, int] | None:
    """The ceilings of one processor's resources: computed, except those given by hand."""
    if not problem.ceilings:
        return None
    ceil = ceilings(tasks)
    ceil.update({r: c for r, c in problem.ceilings.items() if r in ceil})
    return ceil


def _why(bounds: Sequence[TaskBound]) -> str:
    bad = [b for b in bounds if b.verdict != "ok"]
    if not bad:
        return ""
    first = bad[0]
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    return f"{first.name}: {first.reason}{more}"


def _rm_checks(problem: AnalysisProblem, test: str) -> Groups | AnalysisResult:
    """The processor groups when the rate-monotonic utilization bounds apply, or why not."""
    groups = _uniprocessor_groups(problem, test)
    if isinstance(groups, AnalysisResult):
        return groups
    for t in problem.tasks:
        if t.deadline_ns != t.period_ns or t.jitter_ns:
            return unsupported(test, problem.names(), f"{test} assumes implicit deadlines and no jitter ({t.name})")
    for tasks in groups.values():
        for a in tasks:
            for b in tasks:
                if a.period_ns < b.period_ns and a.priority < b.priority:
                    return unsupported(
                        test, problem.names(),
                        f"{test} assumes rate-monotonic priorities ({a.name} has a shorter period than {b.name} "
                        f"but a lower priority)")
    if problem.global_resources():
        return unsupported(test, problem.names(), "resources shared across partitions")
    return groups


def _utilization_test(problem: AnalysisProblem, test: str, hyperbolic: bool) -> AnalysisResult:
    groups = _rm_checks(problem, test)
    if isinstance(groups, AnalysisResult):
        return groups
    bounds: dict[str, TaskBound] = {}
    details: dict[str, Fraction] = {}
    for part, tasks in groups.items():
        ordered = sorted(tasks, key=lambda t: -t.priority)
        ceil = ceilings(tasks)
        u_hp = Fraction(0)
        prod = Fraction(1)
        for i, t in enumerate(ordered, start=1):
            blk = blocking_term(t, tasks, problem.protocol, ceil, jobs=1)  # D = T: one job in the window
            if blk.ns is None:
                bounds[t.name] = TaskBound(t.name, None, "unknown", blk.reason)
                continue
            x = Fraction(t.exec_ns + blk.ns, t.period_ns)
            if hyperbolic:
                value = prod * (x + 1)
                ok = value <= 2
                what = f"Π(U+1) with blocking = {float(value):.4f} {'≤' if ok else '>'} 2"
                prod *= Fraction(t.exec_ns, t.period_ns) + 1
            else:
                total = u_hp + x
                ok = (total / i + 1) ** i <= 2
                what = f"U with blocking = {float(total):.4f} {'≤' if ok else '>'} {i}(2^(1/{i})−1)"
                u_hp += Fraction(t.exec_ns, t.period_ns)
            bounds[t.name] = TaskBound(t.name, t.deadline_ns if ok else None, "ok" if ok else "miss",
                                       what + ("; bound = deadline" if ok else ""), blk.ns)
        details[f"utilization[{part}]" if part else "utilization"] = sum((t.utilization for t in tasks), Fraction(0))
    ordered_b = _mark_unanalysable(problem, [bounds[n] for n in problem.names()])
    verdict = verdict_of(ordered_b)
    return AnalysisResult(test=test, verdict=verdict, tasks=tuple(ordered_b), exact=False,
                          reason="utilization bound holds" if verdict == SCHEDULABLE else _why(ordered_b),
                          details=details)


def fp_liu_layland(problem: AnalysisProblem) -> AnalysisResult:
    """Liu & Layland's bound with blocking (sufficient)."""
    return _utilization_test(problem, "fp-ll", hyperbolic=False)


def fp_hyperbolic(problem: AnalysisProblem) -> AnalysisResult:
    """The hyperbolic bound with blocking (sufficient, dominates Liu–Layland)."""
    return _utilization_test(problem, "fp-hyperbolic", hyperbolic=True)


def _lp_one(task: AnalysisTask, tasks: Sequence[AnalysisTask], b: int) -> tuple[int | None, str]:
    c = task.exec_ns
    segs = task.np_segments_ns
    last = segs[-1] if segs else min(1, c)
    hp = [(j.exec_ns, j.period_ns) for j in tasks if j is not task and j.priority >= task.priority]
    # level-i active period (hp and the task itself), blocking included
    level = hp + [(c, task.period_ns)]
    u = sum(Fraction(cj, tj) for cj, tj in level)
    if u > 1:
        return None, f"level utilization {float(u):.4f} > 1"
    length = b + sum(cj for cj, _ in level)
    for _ in range(MAX_BUSY_JOBS):
        new = b + sum(ceil_div(length, tj) * cj for cj, tj in level)
        if new == length:
            break
        length = new
    else:
        return None, "active period did not converge"
    jobs = max(1, ceil_div(length, task.period_ns))
    worst = 0
    for k in range(jobs):
        base = b + k * c + (c - last)
        s = base + sum(cj for cj, _ in hp)
        while True:
            new = base + sum((s // tj + 1) * cj for cj, tj in hp)
            if new == s:
                break
            s = new
            if s + last - k * task.period_ns > task.deadline_ns:
                return None, f"job {k}: start of its last interval after the deadline"
        r = s + last - k * task.period_ns
        worst = max(worst, r)
    return worst, f"{jobs} job(s) in the level-i active period of {length} ns; last interval {last} ns"


def fp_limited_preemption(problem: AnalysisProblem) -> AnalysisResult:
    """RTA with non-preemptive intervals (PREM); tasks without intervals are fully preemptive."""
    test = "fp-lp"
    groups = _uniprocessor_groups(problem, test)
    if isinstance(groups, AnalysisResult):
        return groups
    if problem.global_resources():
        return unsupported(test, problem.names(), "resources shared across partitions")
    for t in problem.tasks:
        if t.np_segments_ns and sum(t.np_segments_ns) != t.exec_ns:
            return unsupported(test, problem.names(),
                               f"{t.name}: its intervals sum to {sum(t.np_segments_ns)} ns, not its WCET {t.exec_ns} ns")
        if t.jitter_ns:
            return unsupported(test, problem.names(), f"{t.name}: release jitter is not supported by {test}")
    bounds: dict[str, TaskBound] = {}
    for part, tasks in groups.items():
        ceil = ceilings(tasks)
        for t in tasks:
            blk = blocking_term(t, tasks, problem.protocol, ceil)
            if blk.ns is None:
                bounds[t.name] = TaskBound(t.name, None, "unknown", blk.reason)
                continue
            # a lower interval of q ns delays by at most q − 1 ns: releases fall on whole ns
            np_b = max((max(j.np_segments_ns) - 1 for j in tasks if j.priority < t.priority and j.np_segments_ns),
                       default=0)
            b = blk.ns + np_b
            r, why = _lp_one(t, tasks, b)
            why = f"{why}; blocking {b} ns (longest lower interval {np_b} ns + resources {blk.ns} ns)"
            if r is None or r > t.deadline_ns:
                bounds[t.name] = TaskBound(t.name, None, "miss", why, b)
            else:
                bounds[t.name] = TaskBound(t.name, r, "ok", why, b)
    ordered = _mark_unanalysable(problem, [bounds[n] for n in problem.names()])
    verdict = verdict_of(ordered)
    return AnalysisResult(test=test, verdict=verdict, tasks=tuple(ordered), exact=False,
                          reason="every bound is within its deadline" if verdict == SCHEDULABLE else _why(ordered))
