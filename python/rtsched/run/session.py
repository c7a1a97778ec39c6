"""One ``rtsched run``: resolve a task set, run it, read its trace, report it.

    from rtsched.model import load_taskset
    from rtsched.run import RunOptions, run_taskset
    result = run_taskset(load_taskset("examples/pfp-two-cpus.yaml"), RunOptions(duration_ns=2_000_000_000))
    result.summary["deadline_misses"], result.stats[0].response_max_ns, result.files["jobs.csv"]

The output folder gets: runner.json (the resolved input), trace.rtst, and the
report's files (``rtsched.report.write_report``): jobs.csv,
trace.pftrace (and with ``perfetto_json`` trace.perfetto.json), response-cdf.png, schedule.png; then summary.json (with,
for a set with reservations, the runner's own overhead lines as
``reservation_overhead``: rtsched.run.reservation_overhead).
The result carries the model objects (the task set, its placement, the
analysis) and the report; the runner's input exists only as runner.json.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from rtsched.analysis import AnalysisResult, bounds_for
from rtsched.analysis.overheads import Overheads
from rtsched.analysis.results import unsupported
from rtsched.analysis.sensitivity import Sensitivity, slack_of
from rtsched.cpus import allowed_cpus
from rtsched.measure.irqs import LocalTimerWindow
from rtsched.measure.kernel_facts import read_kernel_facts
from rtsched.measure.kernel_recorder import KernelSchedError, KernelSchedRecorder
from rtsched.model import TaskSet, to_runner_input
from rtsched.model.placement import Placement, place
from rtsched.outputs import free_space_note, write_text
from rtsched.report import DEFAULT_WINDOW_NS, JobTable, Report, TaskStats, build_report, write_report
from rtsched.report.excess import StealSample
from rtsched.run.reservation_overhead import reservation_overhead
from rtsched.run.runner import RunnerExit, RunnerOutcome, run_native, write_runner_input
from rtsched.measure.steal import StealSampler, read_steal_ns, steal_during
from rtsched.trace import read_trace
from rtsched.trace.kernel_sched import KernelSchedule

__all__ = ["RunOptions", "RunResult", "RunSetupError", "ShieldRefused", "run_taskset", "default_out_dir"]

DEFAULT_DURATION_NS = 5_000_000_000


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


@dataclass(frozen=True)
class RunResult:
    """One run: what was run (the task set, where, the analysis it was run beside), how the
    runner ended, and the report of its trace (None when it was interrupted before the trace
    was opened, and then ``summary`` is empty)."""

    out_dir: Path
    taskset: TaskSet
    placement: Placement
    analysis: AnalysisResult
    picv: bool
    outcome: RunnerOutcome
    report: Report | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    ideal_analysis: AnalysisResult | None = None  # without overheads, when ``analysis`` has them
    explain_note: str | None = None  # why jobs above their bounds could not be fully explained
    slack: Sensitivity | None = None  # how far each bound of ``analysis`` is from a cliff
    kernel: KernelSchedule | None = None  # the kernel's schedule of the run's CPUs, when recorded
    steal_samples: tuple[StealSample, ...] = ()  # host steal sampled during the run

    @property
    def interrupted(self) -> bool:
        return self.outcome.interrupted

    @property
    def table(self) -> JobTable | None:
        return self.report.table if self.report is not None else None

    @property
    def stats(self) -> tuple[TaskStats, ...]:
        return self.report.stats if self.report is not None else ()


def default_out_dir(taskset: TaskSet) -> Path:
    return Path("out") / taskset.name


class ShieldRefused(ValueError):
    """--shield cannot be used with this task set; the message says why."""


def _run_shielded(
    taskset: TaskSet, placement: Placement, spec: Path, expected_s: float, options: RunOptions
) -> tuple[RunnerOutcome, dict[str, Any]]:
    """Run inside ``rtsched.measure.shield.shielded``: the runner joins the shield's cpuset
    before it starts, so its tasks get the shielded CPUs to themselves."""
    from rtsched.measure.shield import ShieldError, join_shield, shielded

    cpus = sorted(set(options.shield_cpus or ()))
    scheduler = taskset.platform.scheduler
    if scheduler in ("P-EDF", "G-EDF"):
        raise ShieldRefused(
            f"--shield: {scheduler} makes its own exclusive cpusets (SCHED_DEADLINE root "
            "domains), which the shield's exclusive cpuset would overlap; use --shield with P-FP or G-FP"
        )
    outside = sorted(set(placement.cpus) - set(cpus))
    if outside:
        raise ShieldRefused(
            f"--shield {','.join(map(str, cpus))}: the task set uses CPU {','.join(map(str, outside))} too; "
            "the runner lives in the shield, so shield every CPU the set uses (platform.cpus)"
        )
    try:
        with shielded(cpus) as report:
            outcome = run_native(spec, expected_s, progress=options.progress, in_child=join_shield)
    except ShieldError as error:  # from making or undoing the shield, never from the run
        raise ShieldRefused(f"--shield {','.join(map(str, cpus))}: {error}") from error
    return outcome, report.as_dict()


def _setup_error(outcome: RunnerOutcome, trace_path: Path) -> RunSetupError:
    lines = [l.removeprefix("rtsched-run: ") for l in outcome.stderr.strip().splitlines()]
    message = "\n".join(lines) or f"rtsched-run exited with status {outcome.returncode}"
    if outcome.returncode < 0:
        message += f"\nrtsched-run was killed by signal {-outcome.returncode}; cleanup: " + (
            outcome.cleanup_output or "nothing left behind"
        )
    if outcome.returncode == RunnerExit.TRACE_FAILED:  # a trace cut short is not reported as the run
        message += (f"{free_space_note(trace_path.parent)}; no report is made of a part of the run: free space "
                    "where --out points and run again")
    return RunSetupError(message, outcome)


def run_taskset(taskset: TaskSet, options: RunOptions | None = None) -> RunResult:
    """Run ``taskset`` on this machine. Raises TaskSetError (resolving against this
    machine), NativeToolMissing, RunSetupError (the runner's explanation)."""
    options = options or RunOptions()
    out_dir = Path(options.out_dir) if options.out_dir is not None else default_out_dir(taskset)
    out_dir.mkdir(parents=True, exist_ok=True)
    duration = options.duration_ns or taskset.duration_ns or DEFAULT_DURATION_NS
    # before the run: analyse, run, compare (docs/architecture.md, "Python: the data flow")
    ideal = bounds_for(taskset)
    analysis = bounds_for(taskset, overheads=options.overheads) if options.overheads else ideal
    if taskset.servers and not options.picv:
        ideal = analysis = unsupported(
            analysis.test,
            [t.name for t in analysis.tasks],
            "the RPC bounds assume PI-CV (callers lend the server their priority); this run has it off",
        )
    slack = slack_of(analysis, taskset, options.overheads, cliffs_only=True)
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
    placement = place(taskset, allowed_cpus())  # as the resolver placed it
    files = {"runner.json": write_runner_input(runner_input, out_dir / "runner.json")}
    if trace_path.exists():
        trace_path.unlink()  # never report an earlier run's trace
    expected_s = (runner_input["duration_ns"] + runner_input["release_delay_ns"]) / 1e9
    steal_before = read_steal_ns(placement.cpus)
    explain_note = None
    facts = read_kernel_facts()
    with ExitStack() as observing:
        sampler = observing.enter_context(StealSampler(placement.cpus))
        ticks = observing.enter_context(LocalTimerWindow(list(placement.cpus)))
        recorder = None
        if options.explain:
            try:
                recorder = observing.enter_context(KernelSchedRecorder(placement.cpus))
            except KernelSchedError as error:
                explain_note = f"the kernel's schedule was not recorded ({error})"
        if options.shield_cpus:
            outcome, shield_report = _run_shielded(taskset, placement, files["runner.json"], expected_s, options)
        else:
            outcome, shield_report = run_native(files["runner.json"], expected_s, progress=options.progress), None
    kernel = recorder.schedule if recorder is not None else None
    if recorder is not None and recorder.lost_events:
        explain_note = f"the kernel's schedule lost {recorder.lost_events} events (its figures are short)"
    steal = steal_during(steal_before, read_steal_ns(placement.cpus))
    if not outcome.completed and not outcome.interrupted:
        raise _setup_error(outcome, trace_path)
    overhead = reservation_overhead(outcome.figures, run_ns=runner_input["duration_ns"])
    ran = partial(RunResult, out_dir, taskset, placement, analysis, options.picv, outcome,
                  ideal_analysis=ideal if options.overheads else None, explain_note=explain_note, slack=slack,
                  kernel=kernel, steal_samples=tuple(sampler.samples))
    if not trace_path.exists():
        return ran(files=files)  # interrupted before the trace was opened
    files["trace.rtst"] = trace_path
    counted = (options.overheads.release_latency_ns or 0) if options.overheads else 0
    report = build_report(read_trace(trace_path), taskset, analysis, placement, kernel=kernel,
                          steal=tuple(sampler.samples), release_latency_in_bounds_ns=counted)
    files.update(write_report(report, out_dir, plots=options.plots, plot_window_ns=options.plot_window_ns,
                               perfetto_json=options.perfetto_json))
    files["summary.json"] = out_dir / "summary.json"
    summary = report.summary(
        picv=options.picv,
        steal_ns=steal,
        completed=outcome.completed,
        interrupted=outcome.interrupted,
        runner_exit=outcome.returncode,
        shield=shield_report,
        kernel_facts=facts.as_dict(),
        local_timer_interrupts=ticks.as_json(),
        runner_messages=[l for l in outcome.stderr.strip().splitlines() if l],
        overheads=None if options.overheads is None else {
            "sources": list(options.overheads.sources),
            "ideal_bounds_ns": {b.name: b.bound_ns for b in ideal.tasks},
        },
        explain_note=explain_note,
        **({"reservation_overhead": [o.as_dict() for o in overhead]} if taskset.reservations else {}),
        files={k: str(v) for k, v in sorted(files.items())},
    )
    write_text(files["summary.json"], json.dumps(summary, indent=2) + "\n")
    return ran(report=report, summary=summary, files=files)
