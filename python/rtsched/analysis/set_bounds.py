"""The bounds a set's trace is reported against (``rtsched run``, ``rtsched sim``), computed in
one pass: the set's analysis problem built once and handed down to the test that fits it (the
reservation analysis for a set with reservations), once per overheads asked (the machine's,
and none), then how far each bound is from a cliff (``rtsched.analysis.sensitivity``).

    found = set_bounds(taskset, overheads)
    found.analysis, found.ideal, found.slack

Never raises: a combination no test covers, or any failure of the analysis, gives a result
with verdict ``unsupported``, every bound None and the reason (``bounds_for``'s).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rtsched.analysis.overheads import Overheads
from rtsched.analysis.registry import default_test, run_test
from rtsched.analysis.reservations import analyze_hierarchy
from rtsched.analysis.results import AnalysisResult, unsupported
from rtsched.analysis.sensitivity import Sensitivity, slack_of
from rtsched.analysis.tasks import from_taskset
from rtsched.model import TaskSet

__all__ = ["SetBounds", "set_bounds"]


@dataclass(frozen=True)
class SetBounds:
    analysis: AnalysisResult           # with the overheads counted
    ideal: AnalysisResult              # without them (``analysis`` when none are counted)
    slack: Sensitivity | None          # how far each bound of ``analysis`` is from a cliff (None: no cliffs)


def set_bounds(taskset: TaskSet, overheads: Overheads | None = None, *, refused: str | None = None,
               ideal: bool = True, slack: bool = True) -> SetBounds:
    """The bounds of ``taskset`` with ``overheads`` counted, by the test that fits it
    (``default_test``; the reservation analysis for a set with reservations); with ``ideal``, the
    same without them; with ``slack``, the cliffs of the first. Tasks that are not analysed
    (SCHED_OTHER background) are absent. ``refused``: why the set has no bound in this
    experiment (the RPC bounds assume PI-CV). Never raises."""
    names: tuple[str, ...] = ()
    counted = (None, overheads) if overheads and ideal else (overheads,)
    problem = None
    try:
        names = tuple(t.name for t in taskset.rt_tasks)
        problem = from_taskset(taskset)
        names = problem.names()
        if taskset.reservations:
            found = [analyze_hierarchy(taskset, problem, each).tasks for each in counted]
        else:
            test = default_test(problem)
            found = [run_test(test, problem, overheads=each) for each in counted]
    except Exception as error:  # noqa: BLE001 - the runner must always get a result
        found = [unsupported("none", names, f"no analysis: {type(error).__name__}: {error}")]
    if refused is not None:
        found = [unsupported(found[-1].test, [t.name for t in found[-1].tasks], refused)]
    cliffs = slack_of(found[-1], problem, overheads, cliffs_only=True) if slack and problem is not None else None
    return SetBounds(found[-1], found[0], cliffs)
