"""The machine's overhead profile, measured before the first run that needs one.

``rtsched run`` sets each job's response beside its bound; a bound that leaves
out the machine's overheads (release latency, context switches, locks, OS
interference) is one the machine cannot be held to, and nearly every job of a
critical instant then shows above it. So a run on a machine with no profile
measures one first, with ``rtsched calibrate --quick`` (about 7 s; saying so,
with a bar), keeps it where ``rtsched calibrate`` would, and folds it in: its
p99 figures from 2,000 release latencies and 10,000 samples of each native
overhead, its OS interference at the worst of 200 windows.

Not measured: with ``--ideal`` or ``--overheads``, when a profile exists, when
``RTSCHED_AUTO_CALIBRATE=0`` (the test suite sets it: each test says which
overheads it counts), or when the process may not use SCHED_FIFO (then the
run says that its bounds count no overheads, and why).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rtsched.measure.calibrate import (
    CalibrationConfig,
    CalibrationError,
    calibrate,
    check_realtime_allowed,
    default_rt_cpu,
)
from rtsched.measure.profile import write_profile
from rtsched.native import NativeToolMissing

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["FirstProfile", "measure_first_profile"]

FIRST_PROFILE_COMMAND = "rtsched calibrate --quick (measured before a run: no profile existed)"


@dataclass(frozen=True)
class FirstProfile:
    """What happened: the profile measured (None: none) and a line that says so."""

    profile: dict | None
    note: str


def measure_first_profile(path: Path, console: Console, priority: int = 90) -> FirstProfile:
    """Measure a quick profile into ``path``, or say why none could be measured (never raises for that)."""
    try:
        check_realtime_allowed(priority)
    except CalibrationError as error:
        return FirstProfile(None, f"this machine has no overhead profile and none could be measured: {error}")
    config = CalibrationConfig.quick(default_rt_cpu(), priority)
    console.print(f"this machine has no overhead profile ({path}): measuring one now on CPU {config.cpu}, "
                  f"about {config.expected_seconds():.0f} s (`rtsched calibrate` measures a fuller one; "
                  "--ideal skips this)")
    from rtsched.cli.timed_progress import timed_progress

    started_s = time.monotonic()
    try:
        with timed_progress(console, config.expected_seconds()) as say:
            profile = calibrate(config, FIRST_PROFILE_COMMAND, progress=say)
    except (CalibrationError, NativeToolMissing) as error:
        return FirstProfile(None, f"this machine has no overhead profile; measuring one failed: {error}")
    took = f"measured now in {time.monotonic() - started_s:.0f} s (--quick)"
    try:
        where = write_profile(profile, path)
    except OSError as error:
        return FirstProfile(profile, f"{took}, not kept ({path}: {error.strerror})")
    return FirstProfile(profile, f"{took}, kept in {where}")
