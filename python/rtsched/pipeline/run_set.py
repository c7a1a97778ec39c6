"""One ``rtsched run``: the pipeline with the C runner as its producer.

    from rtsched.model import load_taskset
    from rtsched.pipeline.run_set import RunOptions, run_taskset
    result = run_taskset(load_taskset("examples/pfp-two-cpus.yaml"), RunOptions(duration_ns=2_000_000_000))
    result.summary["deadline_misses"], result.stats[0].response_max_ns, result.files["jobs.csv"]

The output folder gets runner.json (the resolved input) and trace.rtst (the runner's:
``rtsched.run.RunnerProducer``), the report's files (``rtsched.report.write_report``): jobs.csv,
trace.pftrace (and with ``perfetto_json`` trace.perfetto.json), response-cdf.png,
schedule.png; then summary.json, written once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtsched.analysis.overheads import Overheads
from rtsched.model import TaskSet
from rtsched.pipeline.experiment import ReportSettings, report_production, run_experiment
from rtsched.pipeline.result import Result
from rtsched.report import DEFAULT_WINDOW_NS
from rtsched.run import RunnerProducer, RunnerSettings

__all__ = ["RunOptions", "default_out_dir", "report_run", "run_taskset"]


@dataclass
class RunOptions:
    duration_ns: int | None = None           # None: the set's duration, else DEFAULT_DURATION_NS
    out_dir: Path | None = None              # None: out/<name>/
    plots: bool = True
    perfetto_json: bool = False              # trace.perfetto.json beside trace.pftrace
    plot_window_ns: tuple[int, int] = DEFAULT_WINDOW_NS
    trace_markers: bool = False              # mirror events to ftrace trace_marker
    trace_buffer_events: int = 65536         # per-thread ring size
    progress: bool = True
    release_delay_ns: int | None = None      # None: the resolver's default
    shield_cpus: list[int] | None = None     # run inside a CPU shield of these CPUs (rtsched.measure.shield)
    picv: bool = True                        # callers lend servers their priority (False: to compare)
    overheads: Overheads | None = None       # the machine's overheads, folded into the bounds
    explain: bool = True                     # record the kernel's schedule to explain jobs above bounds


def default_out_dir(taskset: TaskSet) -> Path:
    return Path("out") / taskset.name


def _setup(taskset: TaskSet, options: RunOptions) -> tuple[Path, RunnerProducer, ReportSettings]:
    """Where ``taskset``'s run goes, the runner as ``options`` set it, and how its trace is reported."""
    out_dir = Path(options.out_dir) if options.out_dir is not None else default_out_dir(taskset)
    producer = RunnerProducer(RunnerSettings(
        duration_ns=options.duration_ns,
        trace_markers=options.trace_markers,
        trace_buffer_events=options.trace_buffer_events,
        progress=options.progress,
        release_delay_ns=options.release_delay_ns,
        shield_cpus=options.shield_cpus,
        picv=options.picv,
        explain=options.explain,
    ))
    settings = ReportSettings(plots=options.plots, perfetto_json=options.perfetto_json,
                              plot_window_ns=options.plot_window_ns)
    return out_dir, producer, settings


def report_run(taskset: TaskSet, options: RunOptions | None = None) -> Result:
    """Run ``taskset`` on this machine and report it, all but summary.json (``write_summary``).
    Raises TaskSetError (resolving against this machine), NativeToolMissing, ShieldRefused,
    RunSetupError (the runner's explanation)."""
    options = options or RunOptions()
    out_dir, producer, settings = _setup(taskset, options)
    return report_production(taskset, producer, out_dir, overheads=options.overheads, picv=options.picv,
                             noun="run", settings=settings)


def run_taskset(taskset: TaskSet, options: RunOptions | None = None) -> Result:
    """Run ``taskset`` on this machine, report it and write summary.json. Raises what
    ``report_run`` raises."""
    options = options or RunOptions()
    out_dir, producer, settings = _setup(taskset, options)
    return run_experiment(taskset, producer, out_dir, overheads=options.overheads, picv=options.picv,
                          noun="run", settings=settings)
