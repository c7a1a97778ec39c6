"""One ``rtsched sim``: simulate a task set, read its trace back, report it as a run's.

The analysis is the caller's (this part does not run tests; the command line
does, as for ``rtsched run``), so the bounds beside the simulated responses
are the same ones the real run shows. The output folder gets trace.rtst,
the report's files (jobs.csv, trace.pftrace, PNGs when asked) and summary.json.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any

from rtsched.analysis.results import AnalysisResult
from rtsched.model import TaskSet
from rtsched.model.placement import Placement
from rtsched.outputs import write_text
from rtsched.report import DEFAULT_WINDOW_NS, WRITE_STEPS, Report, TaskStats, build_report, write_report
from rtsched.sim.options import SimOptions
from rtsched.sim.simulate import SimRun, simulate
from rtsched.trace import read_trace

__all__ = ["SIM_STEPS", "SimResult", "simulate_to_dir"]

#: The steps simulate_to_dir announces: simulating, the report, then write_report's.
SIM_STEPS = 2 + WRITE_STEPS


@dataclass(frozen=True)
class SimResult:
    """A simulation and its report; the fields ``rtsched run``'s table prints from."""

    out_dir: Path
    taskset: TaskSet
    placement: Placement
    analysis: AnalysisResult
    run: SimRun
    report: Report
    summary: dict[str, Any]
    files: dict[str, Path] = field(default_factory=dict)
    ideal_analysis: AnalysisResult | None = None
    slack: Any = None  # rtsched.analysis.sensitivity.Sensitivity of ``analysis``, given by the caller
    explain_note: str | None = None
    picv: bool = True

    @property
    def stats(self) -> tuple[TaskStats, ...]:
        return self.report.stats


def simulate_to_dir(
    taskset: TaskSet,
    options: SimOptions,
    analysis: AnalysisResult,
    out_dir: Path,
    *,
    ideal_analysis: AnalysisResult | None = None,
    slack: Any = None,
    overhead_sources: tuple[str, ...] = (),
    plots: bool = True,
    plot_window_ns: tuple[int, int] = DEFAULT_WINDOW_NS,
    progress: Callable[[str], None] | None = None,
    perfetto_json: bool = False,
) -> SimResult:
    """Simulate into ``out_dir`` and report. Raises what ``simulate`` raises. ``progress`` hears
    each step's name as it begins (SIM_STEPS of them at most)."""
    say = progress or (lambda _step: None)
    out_dir.mkdir(parents=True, exist_ok=True)
    trace_path = out_dir / "trace.rtst"
    say("simulating")
    run = simulate(taskset, options, trace_path)
    assert run.trace_path is not None
    files: dict[str, Path] = {"trace.rtst": run.trace_path}
    say("the report")
    report = build_report(read_trace(run.trace_path), taskset, analysis, run.placement, simulated=True)
    files.update(write_report(report, out_dir, plots=plots, plot_window_ns=plot_window_ns, progress=say,
                               perfetto_json=perfetto_json))
    files["summary.json"] = out_dir / "summary.json"
    summary = report.summary(
        simulated={
            "seed": options.seed,
            "exec_low_ppm": options.exec_low_ppm,
            "release_jitter_ns": options.release_jitter_ns,
            "jobs_completed": run.jobs_completed,
            "engine": run.engine,
        },
        overheads=None if ideal_analysis is None else {
            "sources": list(overhead_sources),
            "ideal_bounds_ns": {b.name: b.bound_ns for b in ideal_analysis.tasks},
        },
        files={k: str(v) for k, v in sorted(files.items())},
    )
    write_text(files["summary.json"], json.dumps(summary, indent=2) + "\n")
    return SimResult(out_dir, taskset, run.placement, analysis, run, report, summary, files,
                     ideal_analysis=ideal_analysis, slack=slack)
