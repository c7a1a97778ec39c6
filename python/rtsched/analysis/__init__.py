"""Schedulability analysis (docs/analysis.md): exact, registry-based, results as objects.

    from rtsched.analysis import from_taskset, run_test, bounds_for, TESTS
    problem = from_taskset(taskset)          # the analysis's own task model
    result = run_test("fp-rta", problem)     # AnalysisResult: verdict, per-task TaskBound
    result = bounds_for(taskset)             # the default test for the set; never raises

One module per family: ``fp_uni`` (RTA, Liu–Layland, hyperbolic,
limited preemption), ``blocking`` (PIP, PCP, SRP, immediate ceiling,
non-preemptive sections), ``edf_uni`` (utilization, demand, QPA, SRP),
``partitioned`` (MPCP, FMLP+, P-EDF, partitioning), ``cluster`` (C-FP,
C-EDF: partitions of several CPUs), ``gedf`` (GFB, BCL,
RTA, tardiness; global FP RTA), ``hierarchical`` (periodic resource
model), ``picv_rpc`` (seed 004), ``overheads``, ``generators``. See
docs/analysis.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rtsched.analysis.results import (
    NOT_SCHEDULABLE,
    SCHEDULABLE,
    UNSUPPORTED,
    AnalysisResult,
    TaskBound,
)
from rtsched.analysis.tasks import AnalysisProblem, AnalysisTask, CriticalSection, Rpc, from_taskset

if TYPE_CHECKING:
    from rtsched.analysis.overheads import Overheads
    from rtsched.analysis.registry import DESCRIPTIONS, TESTS, default_test, run_test
    from rtsched.model import TaskSet

#: The registry's names, imported when first asked for: the registry imports every test (0.3 s
#: here), which a command that only needs one module of the analysis (``rtsched validate``'s lock
#: order) should not wait for.
_REGISTRY_NAMES = ("DESCRIPTIONS", "TESTS", "default_test", "run_test")


def __getattr__(name: str) -> Any:
    if name in _REGISTRY_NAMES:
        from rtsched.analysis import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "AnalysisProblem",
    "AnalysisResult",
    "AnalysisTask",
    "CriticalSection",
    "DESCRIPTIONS",
    "NOT_SCHEDULABLE",
    "Rpc",
    "SCHEDULABLE",
    "TESTS",
    "TaskBound",
    "UNSUPPORTED",
    "bounds_for",
    "default_test",
    "from_taskset",
    "run_test",
]


def bounds_for(taskset: TaskSet | AnalysisProblem, overheads: Overheads | None = None) -> AnalysisResult:
    """The bounds the runner shows beside observed response times. Never raises.

    Picks the default test for the set (as ``rtsched analyze`` does: see
    ``default_test``); a set with reservations gets the reservation analysis
    (``rtsched.analysis.reservations``, which folds ``overheads`` in too). For a
    combination no test covers, or any failure of the analysis, returns a result with verdict ``unsupported``, every bound
    None and the reason. Tasks of the set that are not analysed (SCHED_OTHER
    background) are absent from the result. ``overheads``: an
    ``rtsched.analysis.overheads.Overheads`` to fold in first.
    """
    from rtsched.analysis.registry import default_test, run_test
    from rtsched.analysis.results import unsupported

    if not isinstance(taskset, AnalysisProblem):
        from rtsched.analysis.set_bounds import set_bounds

        return set_bounds(taskset, overheads, ideal=False, slack=False).analysis
    try:
        return run_test(default_test(taskset), taskset, overheads=overheads)
    except Exception as error:  # noqa: BLE001 - the runner must always get a result
        return unsupported("none", taskset.names(), f"no analysis: {type(error).__name__}: {error}")
