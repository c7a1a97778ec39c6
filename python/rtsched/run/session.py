"""One ``rtsched run``: resolve a task set, run it, read its trace, write the outputs.

    from rtsched.model import load_taskset
    from rtsched.run import RunOptions, run_taskset
    result = run_taskset(load_taskset("examples/pfp-two-cpus.yaml"), RunOptions(duration_ns=2_000_000_000))
    result.summary["deadline_misses"], result.stats[0].response_max_ns, result.files["jobs.csv"]

The output folder gets: runner.json (the resolved input), trace.rtst,
jobs.csv, trace.perfetto.json, response-cdf.png, schedule.png, summary.json.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtsched.analysis import AnalysisResult, bounds_for
from rtsched.analysis.results import unsupported
from rtsched.model import TaskSet, to_runner_input
from rtsched.run.blocking import apply_blocking, blocking_by_task
from rtsched.run.export_csv import write_job_csv
from rtsched.run.export_perfetto import write_perfetto
from rtsched.run.jobs import JobTable, build_job_table
from rtsched.run.runner import RunnerOutcome, run_native, write_runner_input
from rtsched.run.steal import read_steal_ns, steal_during
from rtsched.run.stats import TaskStats, apply_bounds, events_off_cpus, server_summary, summary_dict, task_stats
from rtsched.trace import read_trace as load_trace

__all__ = ["RunOptions", "RunResult", "RunSetupError", "ShieldRefused", "run_taskset", "default_out_dir"]

DEFAULT_DURATION_NS = 5_000_000_000
DEFAULT_WINDOW_NS = (0, 200_000_000)


class RunSetupError(RuntimeError):
    """The runner could not set the run up (or refused its input); the message is its explanation."""

    def __init__(self, message: str, outcome: RunnerOutcome):
        super().__init__(message)
        self.outcome = outcome


@dataclass
class RunOptions:
    duration_ns: int | None = None           # None: the set's duration, else DEFAULT_DURATION_NS
    out_dir: Path | None = None              # None: out/<name>/
    plots: bool = True
    plot_window_ns: tuple[int, int] = DEFAULT_WINDOW_NS
    trace_markers: bool = False              # mirror events to ftrace trace_marker
    trace_buffer_events: int = 65536         # per-thread ring size
    progress: bool = True
    release_delay_ns: int | None = None      # None: the resolver's default
    shield_cpus: list[int] | None = None     # run inside a CPU shield of these CPUs (rtsched.measure.shield)
    picv: bool = True                        # callers lend servers their priority (False: to compare)


@dataclass
class RunResult:
    out_dir: Path
    runner_input: dict[str, Any]
    outcome: RunnerOutcome
    analysis: AnalysisResult | None = None
    table: JobTable | None = None
    stats: list[TaskStats] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def interrupted(self) -> bool:
        return self.outcome.interrupted


def default_out_dir(taskset: TaskSet) -> Path:
    return Path("out") / taskset.name


class ShieldRefused(ValueError):
    """--shield cannot be used with this task set; the message says why."""


def _run_shielded(runner_input: dict[str, Any], spec: Path, expected_s: float, options: RunOptions):
    """Run inside ``rtsched.measure.shield.shielded``: the runner joins the shield's cpuset
    before it starts, so its tasks get the shielded CPUs to themselves."""
    from rtsched.measure.shield import join_shield, shielded

    cpus = sorted(set(options.shield_cpus or ()))
    if runner_input["scheduler"] in ("P-EDF", "G-EDF"):
        raise ShieldRefused(
            f"--shield: {runner_input['scheduler']} makes its own exclusive cpusets (SCHED_DEADLINE root "
            "domains), which the shield's exclusive cpuset would overlap; use --shield with P-FP or G-FP"
        )
    outside = sorted(set(runner_input["cpus"]) - set(cpus))
    if outside:
        raise ShieldRefused(
            f"--shield {','.join(map(str, cpus))}: the task set uses CPU {','.join(map(str, outside))} too; "
            "the runner lives in the shield, so shield every CPU the set uses (platform.cpus)"
        )
    with shielded(cpus) as report:
        outcome = run_native(spec, expected_s, progress=options.progress, in_child=join_shield)
    return outcome, report.as_dict()


def run_taskset(taskset: TaskSet, options: RunOptions | None = None) -> RunResult:
    """Run ``taskset`` on this machine. Raises TaskSetError (resolving against this
    machine), NativeToolMissing, RunSetupError (the runner's explanation)."""
    options = options or RunOptions()
    out_dir = Path(options.out_dir) if options.out_dir is not None else default_out_dir(taskset)
    out_dir.mkdir(parents=True, exist_ok=True)
    duration = options.duration_ns or taskset.duration_ns or DEFAULT_DURATION_NS
    analysis = bounds_for(taskset)  # before the run: analyse, run, compare (DESIGN §1)
    if taskset.servers and not options.picv:
        analysis = unsupported(
            analysis.test,
            [t.name for t in analysis.tasks],
            "the RPC bounds assume PI-CV (callers lend the server their priority); this run has it off",
        )
    trace_path = out_dir / "trace.rtst"
    extra: dict[str, Any] = {}
    if options.release_delay_ns is not None:
        extra["release_delay_ns"] = options.release_delay_ns
    runner_input = to_runner_input(
        taskset,
        trace_path.resolve(),
        buffer_events=options.trace_buffer_events,
        ftrace_markers=options.trace_markers,
        duration_ns=duration,
        picv=options.picv,
        **extra,
    )
    files = {"runner.json": write_runner_input(runner_input, out_dir / "runner.json")}
    if trace_path.exists():
        trace_path.unlink()  # never report an earlier run's trace
    expected_s = (runner_input["duration_ns"] + runner_input["release_delay_ns"]) / 1e9
    steal_before = read_steal_ns(runner_input["cpus"])
    if options.shield_cpus:
        outcome, shield_report = _run_shielded(runner_input, files["runner.json"], expected_s, options)
    else:
        outcome, shield_report = run_native(files["runner.json"], expected_s, progress=options.progress), None
    steal = steal_during(steal_before, read_steal_ns(runner_input["cpus"]))
    result = RunResult(
        out_dir=out_dir, runner_input=runner_input, outcome=outcome, analysis=analysis, files=files
    )
    if not outcome.completed and not outcome.interrupted:
        lines = [l.removeprefix("rtsched-run: ") for l in outcome.stderr.strip().splitlines()]
        message = "\n".join(lines) or f"rtsched-run exited with status {outcome.returncode}"
        if outcome.returncode < 0:
            message += f"\nrtsched-run was killed by signal {-outcome.returncode}; cleanup: " + (
                outcome.cleanup_output or "nothing left behind"
            )
        raise RunSetupError(message, outcome)
    if not trace_path.exists():
        return result  # interrupted before the trace was opened
    files["trace.rtst"] = trace_path
    trace = load_trace(trace_path)
    table = build_job_table(trace)
    stats = task_stats(table)
    apply_bounds(stats, analysis)
    apply_blocking(stats, blocking_by_task(trace))
    tasks_in = runner_input["tasks"]
    files["jobs.csv"] = out_dir / "jobs.csv"
    write_job_csv(
        table,
        files["jobs.csv"],
        wcet_ns=[t["wcet_ns"] for t in tasks_in],
        task_cpus=[t["cpus"] for t in tasks_in],
    )
    files["trace.perfetto.json"] = out_dir / "trace.perfetto.json"
    write_perfetto(table, trace, files["trace.perfetto.json"])
    if options.plots:
        from rtsched.run.plots import plot_response_cdf, plot_schedule

        files["response-cdf.png"] = out_dir / "response-cdf.png"
        plot_response_cdf(table, files["response-cdf.png"])
        files["schedule.png"] = out_dir / "schedule.png"
        plot_schedule(table, trace, files["schedule.png"], options.plot_window_ns)
    files["summary.json"] = out_dir / "summary.json"
    summary = summary_dict(
        table,
        stats,
        scheduler=runner_input["scheduler"],
        picv=runner_input["picv"],
        servers=server_summary(trace, runner_input),
        events_off_cpus=events_off_cpus(trace, runner_input),
        steal_ns=steal,
        analysis={"test": analysis.test, "verdict": analysis.verdict, "reason": analysis.reason},
        completed=outcome.completed,
        interrupted=outcome.interrupted,
        runner_exit=outcome.returncode,
        shield=shield_report,
        runner_messages=[l for l in outcome.stderr.strip().splitlines() if l],
        files={k: str(v) for k, v in sorted(files.items())},
    )
    files["summary.json"].write_text(json.dumps(summary, indent=2) + "\n")
    result.table, result.stats, result.summary = table, stats, summary
    return result
