"""The overheads ``rtsched analyze`` and ``rtsched run`` fold into their bounds.

By default the machine's profile (``rtsched calibrate``; its place:
``rtsched.measure.profile.default_profile_path``) when there is one, at its
p99 figures (with the OS interference at its worst window: an interrupt is
counted once, there); ``--overheads FILE`` (repeatable) folds benchmark
outputs or another profile instead; ``--ideal`` folds nothing. ``rtsched run``
measures the profile first when there is none (rtsched.cli.first_profile).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtsched.analysis.overheads import Overheads, OverheadsError, load_overheads, overheads_from_json
from rtsched.measure.profile import ProfileError, default_profile_path, load_profile

if TYPE_CHECKING:
    from rich.console import Console

AUTO_CALIBRATE_ENV = "RTSCHED_AUTO_CALIBRATE"

__all__ = ["AUTO_CALIBRATE_ENV", "OverheadChoice", "add_overhead_options", "overheads_from_args"]


@dataclass(frozen=True)
class OverheadChoice:
    """What to fold (None: nothing) and a line that says so (to be printed when ``measured_now``)."""

    overheads: Overheads | None
    description: str
    measured_now: bool = False


def add_overhead_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--overheads", action="append", default=[], metavar="JSON",
                        help="fold in these overheads (a profile from `rtsched calibrate`, or a benchmark's "
                        "--json output; repeatable) instead of this machine's profile")
    parser.add_argument("--ideal", action="store_true",
                        help="fold in no overheads, even when this machine has a profile")
    parser.add_argument("--overhead-stat", choices=("p99", "max"), default="p99",
                        help="which figures of the profile to fold (default p99; the OS interference "
                        "always at its worst window)")


def auto_calibrate_allowed() -> bool:
    """False when ``RTSCHED_AUTO_CALIBRATE=0``: a run on a machine with no profile then counts no overheads."""
    return os.environ.get(AUTO_CALIBRATE_ENV, "1") != "0"


def overheads_from_args(args: argparse.Namespace, measure_on: Console | None = None) -> OverheadChoice:
    """The overheads the options ask for. Raises ValueError with a message naming the file.

    ``measure_on``: when the machine has no profile, measure one first, saying so there.
    """
    if args.ideal:
        return OverheadChoice(None, "no overheads counted (--ideal)")
    try:
        if args.overheads:
            ov = load_overheads(*args.overheads, stat=args.overhead_stat)
            return OverheadChoice(ov, f"overheads from {', '.join(args.overheads)} ({args.overhead_stat})")
        path = default_profile_path()
        profile = load_profile(path)
        if profile is None and measure_on is not None and auto_calibrate_allowed():
            from rtsched.cli.first_profile import measure_first_profile

            first = measure_first_profile(path, measure_on)
            if first.profile is None:
                return OverheadChoice(None, f"no overheads counted: {first.note}", measured_now=True)
            ov = overheads_from_json(first.profile, source=str(path), stat=args.overhead_stat)
            return OverheadChoice(ov, f"overheads of this machine's profile, {first.note} ({args.overhead_stat})",
                                  measured_now=True)
        if profile is None:
            return OverheadChoice(None, f"no overheads counted: this machine has no profile ({path}); "
                                        "`rtsched calibrate` makes one")
        ov = overheads_from_json(profile, source=str(path), stat=args.overhead_stat)
    except (OverheadsError, ProfileError) as error:
        raise ValueError(str(error)) from error
    made = profile.get("provenance", {})
    where = ", ".join(str(made[k]) for k in ("hostname", "date") if made.get(k))
    return OverheadChoice(ov, f"overheads of this machine's profile {path}"
                              + (f" ({where}; {args.overhead_stat})" if where else f" ({args.overhead_stat})"))
