"""The C runner as a producer of traces (``rtsched.producer.Producer``): resolve the placed
set for this machine, run it with ``rtsched-run``, and hand its trace to the pipeline.

    from rtsched.run import RunnerProducer, RunnerSettings
    producer = RunnerProducer(RunnerSettings(duration_ns=2_000_000_000))
    production = producer.produce(taskset, producer.place(taskset), out_dir, say)

The output folder gets runner.json (the resolved input; the runner's input exists only
there) and trace.rtst; the production carries what only the runner knows for summary.json:
PI-CV, steal time, exit status, the shield, the kernel's facts, the local timer interrupts,
the runner's messages, why a job above its bound could not be explained and, for a set with
reservations, the runner's own overhead figures (``reservation_overhead``:
rtsched.run.reservation_overhead). Bounds and the report are the pipeline's
(``rtsched.pipeline``), never the runner's.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtsched.cpus import allowed_cpus
from rtsched.measure.irqs import LocalTimerWindow
from rtsched.measure.kernel_facts import read_kernel_facts
from rtsched.measure.kernel_recorder import KernelSchedError, KernelSchedRecorder
from rtsched.measure.steal import StealSampler, read_steal_ns, steal_during
from rtsched.model import TaskSet, to_runner_input
from rtsched.model.placement import Placement, place
from rtsched.outputs import free_space_note
from rtsched.producer import Production
from rtsched.run.reservation_overhead import reservation_overhead
from rtsched.run.runner import RunnerExit, RunnerOutcome, run_native, write_runner_input

__all__ = ["DEFAULT_DURATION_NS", "RunnerProducer", "RunnerSettings", "RunSetupError", "ShieldRefused"]

DEFAULT_DURATION_NS = 5_000_000_000


class RunSetupError(RuntimeError):
    """The runner could not set the run up (or refused its input); the message is its explanation."""

    def __init__(self, message: str, outcome: RunnerOutcome):
        super().__init__(message)
        self.outcome = outcome


@dataclass(frozen=True)
class RunnerSettings:
    """How the runner runs a set (the report's settings are the pipeline's)."""

    duration_ns: int | None = None           # None: the set's duration, else DEFAULT_DURATION_NS
    trace_markers: bool = False              # mirror events to ftrace trace_marker
    trace_buffer_events: int = 65536         # per-thread ring size
    progress: bool = True
    release_delay_ns: int | None = None      # None: the resolver's default
    shield_cpus: list[int] | None = None     # run inside a CPU shield of these CPUs (rtsched.measure.shield)
    picv: bool = True                        # callers lend servers their priority (False: to compare)
    explain: bool = True                     # record the kernel's schedule to explain jobs above bounds


class ShieldRefused(ValueError):
    """--shield cannot be used with this task set; the message says why."""


def _run_shielded(
    taskset: TaskSet, placement: Placement, spec: Path, expected_s: float, options: RunnerSettings
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


@dataclass(frozen=True)
class RunnerProducer:
    """``rtsched-run`` on this machine, under the set's backend."""

    settings: RunnerSettings = field(default_factory=RunnerSettings)

    def place(self, taskset: TaskSet) -> Placement:
        """The set on the CPUs this process may use (what the resolver checks it against)."""
        return place(taskset, allowed_cpus())

    def produce(self, taskset: TaskSet, placement: Placement, out_dir: Path,
                say: Callable[[str], None]) -> Production:
        """Run ``taskset`` so placed. Raises TaskSetError (resolving against this machine),
        NativeToolMissing, ShieldRefused, RunSetupError (the runner's explanation)."""
        options = self.settings
        duration = options.duration_ns or taskset.duration_ns or DEFAULT_DURATION_NS
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
            placement=placement,
            **extra,
        )
        files = {"runner.json": write_runner_input(runner_input, out_dir / "runner.json")}
        if trace_path.exists():
            trace_path.unlink()  # never report an earlier run's trace
        expected_s = (runner_input["duration_ns"] + runner_input["release_delay_ns"]) / 1e9
        steal_before = read_steal_ns(placement.cpus)
        explain_note = None
        facts = read_kernel_facts()
        say("running")
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
                outcome, shield_report = _run_shielded(taskset, placement, files["runner.json"], expected_s,
                                                       options)
            else:
                outcome, shield_report = run_native(files["runner.json"], expected_s,
                                                    progress=options.progress), None
        kernel = recorder.schedule if recorder is not None else None
        if recorder is not None and recorder.lost_events:
            explain_note = f"the kernel's schedule lost {recorder.lost_events} events (its figures are short)"
        steal = steal_during(steal_before, read_steal_ns(placement.cpus))
        if not outcome.completed and not outcome.interrupted:
            raise _setup_error(outcome, trace_path)
        overhead = reservation_overhead(outcome.figures, run_ns=runner_input["duration_ns"])
        messages = tuple(line for line in outcome.stderr.strip().splitlines() if line)
        if not trace_path.exists():  # interrupted before the trace was opened
            return Production(None, files, interrupted=outcome.interrupted, messages=messages)
        files["trace.rtst"] = trace_path
        return Production(
            trace_path,
            files,
            summary_head={
                "picv": options.picv,
                "steal_ns": steal,
                "completed": outcome.completed,
                "interrupted": outcome.interrupted,
                "runner_exit": outcome.returncode,
                "shield": shield_report,
                "kernel_facts": facts.as_dict(),
                "local_timer_interrupts": ticks.as_json(),
                "runner_messages": list(messages),
            },
            summary_tail={
                "explain_note": explain_note,
                **({"reservation_overhead": [o.as_dict() for o in overhead]} if taskset.reservations else {}),
            },
            kernel=kernel,
            steal_samples=tuple(sampler.samples),
            explain_note=explain_note,
            interrupted=outcome.interrupted,
            messages=messages,
        )
