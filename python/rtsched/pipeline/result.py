"""One experiment's result: what was produced (the task set, where, the bounds it was reported
against, the producer's record) and the report of its trace; ``rtsched.pipeline.experiment``
makes it, ``rtsched.pipeline.summary`` writes its summary.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtsched.analysis.results import AnalysisResult
from rtsched.analysis.sensitivity import Sensitivity
from rtsched.model import TaskSet
from rtsched.model.placement import Placement
from rtsched.pipeline.bounds import Bounds
from rtsched.producer import Production, StealSample
from rtsched.report import JobTable, Report, TaskStats
from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["Result"]


@dataclass(frozen=True)
class Result:
    """One experiment: what was produced (the task set, where, the bounds it was reported
    against, the producer's record) and the report of its trace (None when the producer
    stopped before the trace was opened, and then ``summary`` is empty)."""

    out_dir: Path
    taskset: TaskSet
    placement: Placement
    bounds: Bounds
    picv: bool
    production: Production
    report: Report | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def analysis(self) -> AnalysisResult:
        return self.bounds.analysis

    @property
    def ideal_analysis(self) -> AnalysisResult | None:
        return self.bounds.ideal

    @property
    def slack(self) -> Sensitivity | None:
        return self.bounds.slack

    @property
    def explain_note(self) -> str | None:
        return self.production.explain_note

    @property
    def kernel(self) -> KernelSchedule | None:
        return self.production.kernel

    @property
    def steal_samples(self) -> tuple[StealSample, ...]:
        return self.production.steal_samples

    @property
    def interrupted(self) -> bool:
        return self.production.interrupted

    @property
    def table(self) -> JobTable | None:
        return self.report.table if self.report is not None else None

    @property
    def stats(self) -> tuple[TaskStats, ...]:
        return self.report.stats if self.report is not None else ()
