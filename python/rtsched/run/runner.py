"""Running the C runner ``rtsched-run`` on a resolved task set.

``run_native`` starts ``rtsched-run SPEC.json --json`` in its own session (its
standard output is then one JSON object of the run's figures, per task and the
reservation scheduler's overhead: ``RunnerOutcome.figures``),
shows a progress bar over the run (release delay + duration), forwards
SIGINT / SIGTERM / SIGHUP it receives to the runner (which stops the tasks,
writes the trace and removes its cpusets), and after any exit other than
success or an input error calls ``rtsched-run --cleanup`` so that nothing the
run set up (P-EDF cpusets) survives a crash.

Runner exit codes (tools/run/main.c): ``RunnerExit``; 128 + signal when a
signal ended it early.
"""

from __future__ import annotations

import json
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable

from rtsched.native import NativeToolFailed, run_native_tool, start_native
from rtsched.outputs import write_text

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = [
    "RUNNER",
    "RunnerExit",
    "RunnerOutcome",
    "RunnerOutputError",
    "cleanup",
    "read_runner_figures",
    "run_native",
    "write_runner_input",
]

RUNNER = "rtsched-run"


class RunnerExit(IntEnum):
    """rtsched-run's exit codes (tools/run/main.c)."""

    OK = 0
    SETUP_FAILED = 1   # the kernel refused a task, a cpuset, ...
    INPUT_ERROR = 2    # the runner input is invalid
    TRACE_FAILED = 3   # the run went to its end, but its trace could not be written whole (a full disk)

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# After the expected end, how long the runner may take to stop its jobs and write the trace.
GRACE_S = 30.0


class RunnerOutputError(ValueError):
    """The runner's figures are not in the format ``print_figures_json`` writes."""


@dataclass(frozen=True)
class RunnerOutcome:
    returncode: int             # the runner's; negative: killed by that signal
    stdout: str
    stderr: str
    signal_received: int = 0    # the signal this process received and forwarded, 0 if none
    cleanup_output: str = ""    # what `rtsched-run --cleanup` said, if it was called
    elapsed_s: float = 0.0

    @property
    def completed(self) -> bool:
        return self.returncode == RunnerExit.OK

    @property
    def interrupted(self) -> bool:
        return self.signal_received != 0 or self.returncode in (128 + s for s in FORWARDED)

    @property
    def figures(self) -> dict[str, Any]:
        """The figures ``rtsched-run --json`` printed at the end of the run (tools/run/main.c
        ``print_figures_json``); empty when it printed none (it stopped before the run's end).
        Raises RunnerOutputError for output that is not one JSON object."""
        return read_runner_figures(self.stdout)


def read_runner_figures(stdout: str) -> dict[str, Any]:
    """``RunnerOutcome.figures`` from the runner's standard output."""
    if not stdout.strip():
        return {}
    try:
        figures = json.loads(stdout)
    except json.JSONDecodeError as error:
        raise RunnerOutputError(f"rtsched-run --json printed something that is not JSON ({error}): "
                                f"{stdout.strip()[:200]!r}") from None
    if not isinstance(figures, dict):
        raise RunnerOutputError(f"rtsched-run --json printed {type(figures).__name__}, not an object")
    return figures


def write_runner_input(runner_input: dict[str, Any], path: str | Path) -> Path:
    path = Path(path)
    write_text(path, json.dumps(runner_input, indent=2) + "\n")
    return path


def cleanup() -> str:
    """Run ``rtsched-run --cleanup`` (removes cpusets an interrupted run left behind); what it said."""
    try:
        return run_native_tool(RUNNER, ["--cleanup"], timeout_s=60).strip()
    except NativeToolFailed as error:
        return str(error)


def _progress(enabled: bool) -> Progress | None:
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        return None
    return Progress(
        TextColumn("[bold]running[/bold]"),
        BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:.1f} s"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def run_native(
    spec_path: str | Path,
    expected_s: float,
    *,
    progress: bool = True,
    in_child: Callable[[], None] | None = None,
) -> RunnerOutcome:
    """Run ``rtsched-run`` on ``spec_path``; ``expected_s`` = release delay + duration.
    ``in_child`` runs in the child before it executes the runner (e.g. to join a cpuset)."""
    received: list[int] = []
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        began = time.monotonic()
        proc = start_native(
            RUNNER,
            [str(spec_path), "--json"],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # only this process forwards signals to it, once
            preexec_fn=in_child,
        )

        def forward(signum: int, _frame: FrameType | None) -> None:
            received.append(signum)
            try:
                proc.send_signal(signum)
            except ProcessLookupError:
                pass

        previous = {s: signal.signal(s, forward) for s in FORWARDED}
        bar = _progress(progress)
        try:
            task = None
            if bar is not None:
                bar.start()
                task = bar.add_task("run", total=expected_s)
            escalated = 0
            while proc.poll() is None:
                elapsed = time.monotonic() - began
                if bar is not None and task is not None:
                    bar.update(task, completed=min(elapsed, expected_s))
                if elapsed > expected_s + GRACE_S * (escalated + 1):
                    # A runner that does not stop: ask, then insist.
                    proc.send_signal(signal.SIGTERM if escalated == 0 else signal.SIGKILL)
                    escalated += 1
                try:
                    proc.wait(timeout=0.1)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            if bar is not None:
                bar.stop()
            for s, handler in previous.items():
                signal.signal(s, handler)
        elapsed = time.monotonic() - began
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    return RunnerOutcome(
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        signal_received=received[0] if received else 0,
        cleanup_output="" if proc.returncode in (RunnerExit.OK, RunnerExit.INPUT_ERROR) else cleanup(),
        elapsed_s=elapsed,
    )
