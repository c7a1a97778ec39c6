"""Release jitter for the tests that do not model it (issue 34): one transformation, applied by the registry.

A job of a task with release jitter J arrives at a, becomes ready (wakes) at
some r in [a, a + J] and must finish by a + D. A machine's profile adds its
release latency to every task's J (``overheads.apply_overheads``), so every
test meets jitter once a profile is folded. The tests that model it natively
(``fp-rta``, the RTA-based partitioned tests, ``picv-rpc``; the uniprocessor
EDF tests for arrival-based deadlines) take it as it is; the others declare
how it can be folded for them (``NATIVE``, ``FP``, ``EDF``, ``EDF_ARRIVAL``),
and :func:`folded` wraps them. The argument for each transformation:

**Shift** (FP, any scheduler; EDF when the deadline is set at wake-up and
every task of a processor group has the same J): analyse the jitter-free
sporadic task (C, T − J, D − J) released at the ready time r, then add J.
Ready times are T − J apart at least (r' ≥ a' ≥ a + T ≥ r − J + T), so the
ready times of a real schedule are a legal release sequence of the model.
An FP scheduler orders jobs by task priority, which does not depend on when
a job was released, so the real schedule *is* a schedule of the model and a
bound R' of the model (from r) gives a response from a of at most R' + J;
R' ≤ D − J means a + D is met. Under EDF the real order must also be the
model's: SCHED_DEADLINE (the threads backend) sets a woken job's absolute
deadline to r + D, and with the same J for every task the model's r + D − J
orders jobs exactly as r + D does (a uniform shift; ties stay ties). With
different J's, or with deadlines set at arrival (a + D: the ult backend,
``rtsched sim``), the shift reorders jobs and is not used.

**Added execution** (EDF with deadlines set at arrival, ``EDF`` tests): the
job is released at a with its deadline a + D and suspended until r, at most
J; analyse the suspension as execution, (C + J, T, D), and the bound is from
a. This is suspension-oblivious analysis, sound for global and partitioned
job-level fixed-priority scheduling (Brandenburg 2011, ch. 5): whenever a
ready job does not run, m jobs of higher priority run, whose real work is at
most their C ≤ C + J, and the job's own time before completing is its
suspension plus its execution, at most C + J. It needs no non-preemptive
intervals (a suspension is not one); a task with C + J > D is the test's to
call a miss.

Where neither applies, every task gets the reason (``unsupported``), never a
bound the transformation cannot argue.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from rtsched.analysis.results import AnalysisResult, TaskBound, unsupported
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask

__all__ = ["NATIVE", "FP", "EDF", "EDF_ARRIVAL", "folded", "fold_jitter"]

#: The test models release jitter itself.
NATIVE = "native"
#: A fixed-priority test without jitter: shift.
FP = "fp"
#: An EDF test without jitter: shift (deadlines at wake-up), added execution (at arrival).
EDF = "edf"
#: An EDF test that models jitter for deadlines set at arrival: native there, shift at wake-up.
EDF_ARRIVAL = "edf-arrival"

Test = Callable[..., AnalysisResult]


def folded(fn: Test, test: str, kind: str) -> Test:
    """``fn`` with release jitter folded in as ``kind`` says (NATIVE: ``fn`` itself)."""
    if kind == NATIVE:
        return fn
    if kind not in (FP, EDF, EDF_ARRIVAL):
        raise ValueError(f"unknown jitter kind {kind!r}")

    def run(problem: AnalysisProblem, **options: object) -> AnalysisResult:
        return fold_jitter(fn, test, kind, problem, **options)

    run.__doc__ = fn.__doc__
    return run


def fold_jitter(fn: Test, test: str, kind: str, problem: AnalysisProblem, **options: object) -> AnalysisResult:
    """Run ``fn`` on ``problem`` with its release jitter folded in (see the module doc)."""
    jittered = [t for t in problem.tasks if t.jitter_ns]
    if not jittered:
        return fn(problem, **options)
    edf = kind in (EDF, EDF_ARRIVAL)
    if edf and not problem.deadline_at_wakeup:
        if kind == EDF_ARRIVAL:
            return fn(problem, **options)
        return _added_execution(fn, test, problem, **options)
    if edf:
        for group, tasks in problem.partitions().items():
            jitters = sorted({t.jitter_ns for t in tasks})
            if len(jitters) > 1:
                where = f" on {group}" if group else ""
                return unsupported(test, problem.names(), (
                    f"release jitter differs between tasks{where} ({', '.join(f'{j} ns' for j in jitters)}): "
                    f"SCHED_DEADLINE orders jobs by wake-up + D, which {test} (no jitter) matches only when "
                    "every task has the same jitter"))
    late = next((t for t in jittered if t.jitter_ns >= min(t.period_ns, t.deadline_ns)), None)
    if late is not None:
        return unsupported(test, problem.names(), (
            f"{late.name}: release jitter {late.jitter_ns} ns is not below its period and deadline, "
            f"which {test} (no jitter) needs to analyse it from its ready time"))
    shifted = replace(problem, tasks=tuple(_shifted(t) for t in problem.tasks))
    result = fn(shifted, **options)
    jitter = {t.name: t.jitter_ns for t in problem.tasks}
    how = "as (C, T − J, D − J) from its ready time, + J"
    return _restated(result, [_plus(b, jitter[b.name], how) if jitter.get(b.name) else b for b in result.tasks])


def _shifted(t: AnalysisTask) -> AnalysisTask:
    if not t.jitter_ns:
        return t
    return replace(t, period_ns=t.period_ns - t.jitter_ns, deadline_ns=t.deadline_ns - t.jitter_ns, jitter_ns=0)


def _added_execution(fn: Test, test: str, problem: AnalysisProblem, **options: object) -> AnalysisResult:
    segmented = next((t for t in problem.tasks if t.np_segments_ns), None)
    if segmented is not None:
        return unsupported(test, problem.names(), (
            f"release jitter under EDF with deadlines set at arrival is analysed as execution, which "
            f"{segmented.name}'s non-preemptive intervals leave no room for"))
    inflated = replace(problem, tasks=tuple(replace(t, wcet_ns=t.wcet_ns + t.jitter_ns, jitter_ns=0)
                                            for t in problem.tasks))
    result = fn(inflated, **options)
    jitter = {t.name: t.jitter_ns for t in problem.tasks}
    how = "as execution at the job's start (deadlines set at arrival)"
    return _restated(result, [_plus(b, 0, how) if jitter.get(b.name) else b for b in result.tasks])


def _plus(b: TaskBound, jitter_ns: int, how: str) -> TaskBound:
    """``b`` with ``jitter_ns`` added to its bound (the verdict stands: R' ≤ D − J ⇔ R' + J ≤ D)."""
    bound = None if b.bound_ns is None else b.bound_ns + jitter_ns
    return replace(b, bound_ns=bound, reason=f"{b.reason}; release jitter analysed {how}")


def _restated(result: AnalysisResult, tasks: list[TaskBound]) -> AnalysisResult:
    # the transformation is sufficient, so an exact test's answer is no longer exact for the set
    return replace(result, tasks=tuple(tasks), exact=False,
                   label="sufficient" if result.label == "exact" else result.label)
