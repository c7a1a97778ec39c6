"""``rtsched sim FILE``: simulate a task set and report it as ``rtsched run`` reports a run.

The same task-set file, the same validation and error messages, the same
pipeline (``rtsched.pipeline``: placement, bounds with the same overhead options,
the report) with the simulator as its producer, the same result: the table is
printed by ``rtsched.cli.run.print_table``. See docs/sim.md.

Exit codes: 0 the simulation completed (misses are reported, not errors,
unless ``--fail-on-miss``); 1 invalid input, a feature that is not simulated,
or with ``--fail-on-miss`` a missed deadline.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rtsched.cli.exit_codes import Exit
from rtsched.cli.invalid_input import print_invalid
from rtsched.cli.overhead_profile import add_overhead_options, overheads_from_args
from rtsched.cli.sim_dvfs import add_dvfs_options, sim_dvfs

if TYPE_CHECKING:
    from rtsched.analysis.overheads import Overheads
    from rtsched.sim import SimOptions


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "sim",
        help="simulate a task set (discrete events, integer ns) and report it like `rtsched run`",
        description="Validates FILE as `rtsched run` does, simulates its schedule (P-FP, G-FP, P-EDF, G-EDF; "
        "locks none, pip, pcp, srp, ipcp, mpcp, fmlp+; condition variables; RPC servers with or without PI-CV) "
        "deterministically and writes DIR/: trace.rtst (the runner's format), "
        "jobs.csv, trace.pftrace (Perfetto's protobuf format), summary.json, and with --plots response-cdf.png, "
        "schedule.png. The overheads of "
        "--overheads (or this machine's profile; none with --ideal) are charged in the simulation and "
        "folded into the bounds. See docs/sim.md.",
    )
    parser.add_argument("file", metavar="FILE", help="task-set file (.yaml, .yml or .json)")
    parser.add_argument("--duration", metavar="TIME", help="simulated length (e.g. 60s; default: the set's, else 5s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the execution-time and jitter draws (default 1)")
    parser.add_argument("--exec-low", metavar="FRACTION", type=float,
                        help="draw each compute uniformly in [FRACTION x its length, its length] "
                        "(default: every compute runs its full length, the WCET)")
    parser.add_argument("--release-jitter", metavar="TIME",
                        help="each job becomes runnable a uniform [0, TIME] after its release")
    parser.add_argument("--cpus", metavar="LIST",
                        help="the CPUs when the set names none (e.g. 0-3; default: this machine's online CPUs)")
    parser.add_argument("--out", metavar="DIR", type=Path, help="output folder (default: out/<task-set name>-sim/)")
    parser.add_argument("--json", action="store_true", help="print the summary JSON to stdout instead of the table")
    parser.add_argument("--plot-window", metavar="FROM:TO", default="0ms:200ms",
                        help="window of the schedule chart (default 0ms:200ms)")
    plots = parser.add_mutually_exclusive_group()
    plots.add_argument("--plots", action="store_true",
                       help="draw the PNG plots (response-cdf.png, schedule.png; matplotlib takes seconds)")
    plots.add_argument("--no-plots", action="store_true", help="do not draw the PNG plots (the default)")
    parser.add_argument("--perfetto-json", action="store_true",
                        help="also write trace.perfetto.json (Perfetto's JSON format, beside trace.pftrace)")
    parser.add_argument("--fail-on-miss", action="store_true", help="exit 1 when any deadline was missed")
    parser.add_argument("--no-picv", action="store_true",
                        help="sets with servers: callers do not lend the server their priority while they wait")
    parser.add_argument("--python-loop", action="store_true",
                        help="simulate a compute-only set in Python even where the compiled loop (rtsched-sim-loop) "
                        "is installed; the trace is the same (summary.json's simulated.engine says which ran)")
    add_overhead_options(parser)
    add_dvfs_options(parser)
    parser.set_defaults(handler=sim)


def _options(args: argparse.Namespace, overheads: Overheads | None) -> SimOptions:
    from rtsched.cpus import parse_cpu_list
    from rtsched.model import DurationError, parse_duration
    from rtsched.pipeline.sim_overheads import sim_overheads
    from rtsched.sim import SimOptions

    def positive(flag: str, text: str | None) -> int | None:
        if text is None:
            return None
        try:
            value = parse_duration(text)
        except DurationError as e:
            raise ValueError(f"{flag}: {e}") from None
        if value <= 0:
            raise ValueError(f"{flag}: must be > 0, got {text}")
        return value

    low = None
    if args.exec_low is not None:
        if not 0 < args.exec_low <= 1:
            raise ValueError(f"--exec-low: a fraction in (0, 1], got {args.exec_low}")
        low = round(args.exec_low * 1_000_000)
    cpus = tuple(parse_cpu_list(args.cpus)) if args.cpus is not None else None
    return SimOptions(
        duration_ns=positive("--duration", args.duration),
        seed=args.seed,
        exec_low_ppm=low,
        release_jitter_ns=positive("--release-jitter", args.release_jitter) or 0,
        overheads=sim_overheads(overheads),
        cpus=cpus,
        picv=not args.no_picv,
        native=not args.python_loop,
    )


def sim(args: argparse.Namespace) -> int:
    from rtsched.cli.run import _parse_window, print_table
    from rtsched.cli.timed_progress import step_progress
    from rtsched.cpus import CpuListError
    from rtsched.model import TaskSetError, load_taskset
    from rtsched.pipeline import REPORT_STEPS, ReportSettings, run_experiment
    from rtsched.sim import SimProducer, SimUnsupported

    try:
        taskset = load_taskset(args.file)
    except TaskSetError as e:
        print_invalid(args.file, e.errors)
        return Exit.INVALID_INPUT
    try:
        counted = overheads_from_args(args)
        options = _options(args, counted.overheads)
        window = _parse_window(args.plot_window)
    except (ValueError, CpuListError) as e:
        print(f"rtsched sim: {e}", file=sys.stderr)
        return Exit.FAILED
    if (args.tau0 or args.segments) and args.dvfs is None:
        print(f"rtsched sim: {'--tau0' if args.tau0 else '--segments'} needs --dvfs", file=sys.stderr)
        return Exit.FAILED
    if args.dvfs is not None:
        return sim_dvfs(args, taskset, options)
    if args.no_picv and not taskset.servers:
        print(f"rtsched sim: --no-picv: {args.file} has no servers, so PI-CV changes nothing", file=sys.stderr)
        return Exit.FAILED
    out_dir = args.out if args.out is not None else Path("out") / f"{taskset.name}-sim"
    try:
        with step_progress(1 + REPORT_STEPS) as step:  # simulating, then the report's
            result = run_experiment(
                taskset, SimProducer(options), out_dir, overheads=counted.overheads, picv=options.picv,
                noun="simulation", progress=step,
                settings=ReportSettings(plots=args.plots, plot_window_ns=window, perfetto_json=args.perfetto_json),
            )
    except TaskSetError as e:  # what only the machine's CPUs can tell (a partition it lacks)
        print_invalid(args.file, e.errors)
        return Exit.INVALID_INPUT
    except SimUnsupported as e:
        for problem in e.problems:
            print(f"{args.file}: {problem}", file=sys.stderr)
        return Exit.FAILED
    except ValueError as e:
        print(f"rtsched sim: {e}", file=sys.stderr)
        return Exit.FAILED
    if args.json:
        print(json.dumps(result.summary, indent=2))
    else:
        from rich.console import Console

        console = Console(highlight=False)
        if not console.is_terminal:
            console = Console(highlight=False, width=160)
        jobs = result.summary["simulated"]["jobs_completed"]
        console.print(f"simulated: {jobs} jobs, seed {options.seed}; {counted.description}")
        print_table(result, console)
    misses = result.summary["deadline_misses"]
    if args.fail_on_miss and misses:
        print(f"rtsched sim: {misses} deadline miss(es) (--fail-on-miss)", file=sys.stderr)
        return Exit.FAILED
    return Exit.OK
