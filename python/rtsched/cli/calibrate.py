"""``rtsched calibrate``: measure this machine's overheads and write its profile (docs/calibrate.md)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from rtsched.cli.latency import positive_int
from rtsched.cli.timed_progress import timed_progress
from rtsched.measure.calibrate import (
    LOCK_KEYS,
    SCALAR_KEYS,
    CalibrationConfig,
    CalibrationError,
    calibrate,
    default_profile_path,
    default_rt_cpu,
    steal_warning,
    write_profile,
)
from rtsched.cpus import CpuListError, check_allowed
from rtsched.measure.interference_causes import causes_line, quiet_machine_note
from rtsched.native import NativeToolMissing

EXIT_FAILED = 1
EXIT_NATIVE_MISSING = 3
EXIT_INTERRUPTED = 130


def priority_arg(text: str) -> int:
    value = positive_int(text)
    if not 2 <= value <= 98:
        raise argparse.ArgumentTypeError(f"'{text}' is not a SCHED_FIFO priority in 2..98 "
                                         "(the RPC server runs one below, lockbench's contender one above)")
    return value


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "calibrate",
        help="measure this machine's overheads for the analysis and write its profile",
        description="Measures, on the real-time CPU under pinned SCHED_FIFO, the overheads the "
        "schedulability analysis needs (release latency, context switch, lock and unlock per protocol, "
        "PI-CV RPC call, trace event, OS interference) as maxima and 99th percentiles, and writes them "
        "with their provenance to $RTSCHED_OVERHEADS, else $XDG_CACHE_HOME/rtsched/overheads.json "
        "(~/.cache/rtsched/overheads.json). About 40 s; --quick about 10 s.",
    )
    parser.add_argument("--cpu", type=int, default=None,
                        help="the real-time CPU to measure on (default: the highest-numbered online CPU)")
    parser.add_argument("--priority", type=priority_arg, default=90,
                        help="SCHED_FIFO priority of the measuring threads, 2..98 (90)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer samples (about 10 s): checks the machinery, not a profile to trust")
    parser.add_argument("--out", metavar="FILE", help="write the profile here instead of the standard place")
    parser.set_defaults(handler=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    cpu = default_rt_cpu() if args.cpu is None else args.cpu
    try:
        check_allowed([cpu])
    except CpuListError as error:
        parser.error(f"argument --cpu: {error}")
    out = Path(args.out) if args.out else default_profile_path()
    if out.is_dir():
        parser.error(f"argument --out: {out} is a directory; give a file name")
    config = CalibrationConfig.quick(cpu, args.priority) if args.quick else CalibrationConfig(cpu, args.priority)

    console = Console()
    command = command_line(args)
    console.print(f"calibrating on CPU {cpu} (SCHED_FIFO {args.priority}), about "
                  f"{config.expected_seconds():.0f} s{' (--quick)' if args.quick else ''}")
    try:
        with timed_progress(console, config.expected_seconds()) as say:
            profile = calibrate(config, command, progress=say)
        where = write_profile(profile, out)
    except NativeToolMissing as error:
        print(f"rtsched calibrate: {error}", file=sys.stderr)
        return EXIT_NATIVE_MISSING
    except CalibrationError as error:
        print(f"rtsched calibrate: {error}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as error:
        print(f"rtsched calibrate: cannot write the profile to {out}: {error.strerror}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"rtsched calibrate: interrupted; no profile written (the one at {out}, if any, is unchanged)",
              file=sys.stderr)
        return EXIT_INTERRUPTED

    console.print(profile_table(profile))
    for line in interference_lines(profile):
        console.print(line)
    console.print(f"profile written to {where}")
    warning = steal_warning(profile)
    if warning:
        console.print(Panel(warning, title="WARNING: host steal", style="bold red"))
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The command that makes this calibration again (recorded in the provenance)."""
    words = ["rtsched", "calibrate"]
    if args.cpu is not None:
        words += ["--cpu", str(args.cpu)]
    if args.priority != 90:
        words += ["--priority", str(args.priority)]
    if args.quick:
        words.append("--quick")
    if args.out:
        words += ["--out", args.out]
    return shlex.join(words)


def interference_lines(profile: dict) -> list[str]:
    """What took the CPU from the OS-interference loop, by cause; or why that is not known."""
    causes = profile["provenance"].get("os_interference_causes")
    if not causes:
        return []
    if not causes["kernel_schedule"]:
        why = causes.get("why_no_kernel_schedule", "no kernel schedule was recorded")
        return [f"OS interference by cause: host steal only ({why})",
                causes_line(causes["worst_window"], "  worst window")]
    lines = ["OS interference by cause (from the kernel's schedule of the CPU, recorded meanwhile):",
             causes_line(causes["worst_window"], "  worst window"),
             causes_line(causes["all_windows"], f"  all {causes['windows']} windows")]
    quiet = quiet_machine_note(causes["worst_window"])
    if quiet:
        lines.append(f"  {quiet}")
    return lines


def _us(ns: float) -> str:
    return f"{ns / 1000:.3f}"


def profile_table(profile: dict) -> Table:
    """What was measured: one row per overhead (per protocol for locks), max, p99 and samples."""
    prov = profile["provenance"]
    table = Table(title=f"Overheads of {prov['hostname']} on CPU {prov['cpu']} ({prov['kernel']}, {prov['date']})")
    table.add_column("overhead")
    table.add_column("max (us)", justify="right")
    table.add_column("p99 (us)", justify="right")
    table.add_column("samples", justify="right")
    p99, samples = profile["p99"], profile["samples"]
    for key in SCALAR_KEYS:
        table.add_row(key, _us(profile[key]), _us(p99[key]), str(samples[key]))
    for key in LOCK_KEYS:
        for protocol in profile[key]:
            table.add_row(f"{key}.{protocol}", _us(profile[key][protocol]), _us(p99[key][protocol]),
                          str(samples[key][protocol]))
    window_ms = profile["os_interference"]["window_ns"] / 1e6
    table.add_row(f"os_interference (lost per {window_ms:g} ms)", _us(profile["os_interference"]["max_lost_ns"]),
                  _us(p99["os_interference"]["max_lost_ns"]), str(samples["os_interference"]))
    steal = ", ".join(f"CPU {cpu} {ratio:.2%}" for cpu, ratio in prov["steal_ratio"].items())
    table.caption = f"host steal during calibration: {steal or 'unknown'}"
    return table
