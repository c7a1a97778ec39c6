"""One experiment: task set → placement (once) → bounds (once) → a producer's trace → report →
output folder → one ``Result``; summary.json written once, at the end (docs/architecture.md).

    from rtsched.pipeline import ReportSettings, run_experiment
    from rtsched.sim import SimOptions, SimProducer
    result = run_experiment(taskset, SimProducer(SimOptions()), Path("out/x-sim"))
    result.summary["deadline_misses"], result.stats[0].response_max_ns, result.files["jobs.csv"]

``report_production`` stops before summary.json, for a caller that adds to the summary what
it learns afterwards (a comparison with a simulation); ``write_summary``
(``rtsched.pipeline.summary``) then writes it, once. Nothing is filled in afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from rtsched.analysis.overheads import Overheads
from rtsched.model import TaskSet
from rtsched.pipeline.bounds import Bounds, bounds_of
from rtsched.pipeline.result import Result
from rtsched.pipeline.summary import write_summary
from rtsched.producer import Producer
from rtsched.report import DEFAULT_WINDOW_NS, WRITE_STEPS, build_report, table_writers, write_report
from rtsched.trace import read_trace

__all__ = ["REPORT_STEPS", "ReportSettings", "report_production", "run_experiment"]

#: The steps the pipeline announces after the producer's: the report, then write_report's.
REPORT_STEPS = 1 + WRITE_STEPS


@dataclass(frozen=True)
class ReportSettings:
    plots: bool = True
    perfetto_json: bool = False              # trace.perfetto.json beside trace.pftrace
    plot_window_ns: tuple[int, int] = DEFAULT_WINDOW_NS


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
    say("the report, jobs.csv, trace.pftrace")
    trace = read_trace(production.trace_path)
    with table_writers(trace, taskset, placement, out_dir) as (writers, tables):  # one pass over the trace
        report = build_report(trace, taskset, bounds.analysis, placement,
                              kernel=production.kernel, steal=production.steal_samples,
                              release_latency_in_bounds_ns=0 if production.simulated else bounds.release_latency_ns,
                              simulated=production.simulated, chain_bounds=bounds.chains, writers=writers)
    files = {**result.files, **tables, **write_report(report, out_dir, plots=settings.plots,
                                                      plot_window_ns=settings.plot_window_ns, progress=say,
                                                      perfetto_json=settings.perfetto_json, tables=False)}
    return replace(result, report=report, files=files)


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
    result = report_production(taskset, producer, out_dir, overheads=overheads, picv=picv, noun=noun,
                               bounds=bounds, settings=settings, progress=progress)
    return write_summary(result)
