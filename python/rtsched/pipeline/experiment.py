"""One experiment: task set → placement (once) → bounds (once) → a producer's trace → report →
output folder → one ``Result``; summary.json written once, at the end (docs/architecture.md).

    from rtsched.pipeline import ReportSettings, run_experiment
    from rtsched.sim import SimOptions, SimProducer
    result = run_experiment(taskset, SimProducer(SimOptions()), Path("out/x-sim"))
    result.summary["deadline_misses"], result.stats[0].response_max_ns, result.files["jobs.csv"]

``report_production`` stops before summary.json, for a caller that adds to the summary what
it learns afterwards (a comparison with a simulation); ``write_summary`` then writes it, once.
Nothing is filled in afterwards.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rtsched.analysis.overheads import Overheads
from rtsched.analysis.results import AnalysisResult
from rtsched.analysis.sensitivity import Sensitivity
from rtsched.model import TaskSet
from rtsched.model.placement import Placement
from rtsched.outputs import write_text
from rtsched.pipeline.bounds import Bounds, bounds_of
from rtsched.producer import Producer, Production, StealSample
from rtsched.report import DEFAULT_WINDOW_NS, WRITE_STEPS, JobTable, Report, TaskStats, build_report, write_report
from rtsched.trace import read_trace
from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["REPORT_STEPS", "ReportSettings", "Result", "report_production", "run_experiment", "write_summary"]

#: The steps the pipeline announces after the producer's: the report, then write_report's.
REPORT_STEPS = 1 + WRITE_STEPS


@dataclass(frozen=True)
class ReportSettings:
    plots: bool = True
    perfetto_json: bool = False              # trace.perfetto.json beside trace.pftrace
    plot_window_ns: tuple[int, int] = DEFAULT_WINDOW_NS


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


def report_production(
    taskset: TaskSet,
    producer: Producer,
    out_dir: Path,
    *,
    overheads: Overheads | None = None,
    picv: bool = True,
    noun: str = "run",
    bounds: Bounds | None = None,
    settings: ReportSettings = ReportSettings(),
    progress: Callable[[str], None] | None = None,
) -> Result:
    """Place ``taskset`` once, then compute its bounds once (unless given: ``bounds``, with
    ``overheads`` counted and ``noun`` naming the experiment), have ``producer`` write its trace
    into ``out_dir``, build the report and write its files; everything but summary.json.
    ``progress`` hears each step's name as it begins. Raises what the producer raises."""
    say = progress or (lambda _step: None)
    out_dir.mkdir(parents=True, exist_ok=True)
    placement = producer.place(taskset)
    bounds = bounds if bounds is not None else bounds_of(taskset, overheads, picv=picv, noun=noun)
    production = producer.produce(taskset, placement, out_dir, say)
    result = Result(out_dir, taskset, placement, bounds, picv, production, files=dict(production.files))
    if production.trace_path is None:
        return result
    say("the report")
    report = build_report(read_trace(production.trace_path), taskset, bounds.analysis, placement,
                          kernel=production.kernel, steal=production.steal_samples,
                          release_latency_in_bounds_ns=0 if production.simulated else bounds.release_latency_ns,
                          simulated=production.simulated)
    files = {**result.files, **write_report(report, out_dir, plots=settings.plots,
                                            plot_window_ns=settings.plot_window_ns, progress=say,
                                            perfetto_json=settings.perfetto_json)}
    return replace(result, report=report, files=files)


def write_summary(result: Result, *, files: dict[str, Path] | None = None,
                  appended: dict[str, Any] | None = None) -> Result:
    """Write ``result``'s summary.json, once: the report's summary with what the producer
    knows, the bounds' overheads, the files (``files`` added) and ``appended`` at its end.
    A result without a report has none."""
    if result.report is None:
        return result
    production = result.production
    all_files = {**result.files, **(files or {}), "summary.json": result.out_dir / "summary.json"}
    summary = {
        **result.report.summary(
            **production.summary_head,
            overheads=result.bounds.summary(),
            **production.summary_tail,
            files={k: str(v) for k, v in sorted(all_files.items())},
        ),
        **(appended or {}),
    }
    write_text(all_files["summary.json"], json.dumps(summary, indent=2) + "\n")
    return replace(result, summary=summary, files=all_files)


def run_experiment(
    taskset: TaskSet,
    producer: Producer,
    out_dir: Path,
    *,
    overheads: Overheads | None = None,
    picv: bool = True,
    noun: str = "run",
    bounds: Bounds | None = None,
    settings: ReportSettings = ReportSettings(),
    progress: Callable[[str], None] | None = None,
) -> Result:
    """The whole pipeline: ``report_production`` (same arguments), then ``write_summary``."""
    return write_summary(report_production(taskset, producer, out_dir, overheads=overheads, picv=picv, noun=noun,
                                           bounds=bounds, settings=settings, progress=progress))
