"""``rtsched tlb``: the TLB-locking study (Ishikawa et al.; docs/tlb.md) on the TLB model.

    rtsched tlb paper [--periods N] [--seed S] [--json]
    rtsched tlb trace --rt LOG [--rt LOG ...] --nr LOG [options]
    rtsched tlb trace --run --rt 'COMMAND' --nr 'COMMAND' [options]

``paper`` rebuilds the paper's study from its published parameters and prints
the model's findings beside the paper's; ``trace`` runs the same study on
memory-access traces of real programs: lackey logs, or commands traced here
under valgrind. Exit status: 0 done, 1 bad input (a trace, a command that
cannot be traced, a TLB that cannot hold the locked pages), 2 usage, 3
valgrind missing.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from rich.console import Console

from rtsched.cli.exit_codes import Exit
from rtsched.cli.latency import non_negative_int, positive_int
from rtsched.cli.tlb_table import comparison_table, study_table
from rtsched.tlb.costs import SH7750R_COSTS, LockingCosts
from rtsched.tlb.lackey import LackeyError, ValgrindMissing, read_lackey_file, trace_program
from rtsched.tlb.pages import PageTrace
from rtsched.tlb.paper import ACTIVATIONS, compare_with_paper, paper_study
from rtsched.tlb.plots import plot_execution_times, plot_locking_costs
from rtsched.tlb.replacement import RULES
from rtsched.tlb.study import run_study, study_to_dict
from rtsched.tlb.tlb import TlbGeometry
from rtsched.tlb.traces import trace_flow

__all__ = ["register"]


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "tlb", help="TLB locking (Ishikawa et al.): the paper's study, or the same study on traces of programs",
        description="The TLB-locking study on a trace-driven TLB model: no locking, static locking, dynamic "
        "locking method 1 and 2; the paper's metric, locked WCETs and their response times (docs/tlb.md).")
    sub = parser.add_subparsers(dest="tlb_command", metavar="STUDY")
    sub.required = True

    paper = sub.add_parser("paper", help="the paper's study from its published parameters, beside its findings",
                           description="Rebuilds the paper's micro-benchmark (SH7750R TLB, Table I's tasks) and "
                           "prints every policy's row, locking RT_TASK1's 16 entries and all five tasks' 49, and "
                           "the paper's findings beside the model's. About 40 s for 10,000 activations.")
    paper.add_argument("--periods", type=positive_int, default=ACTIVATIONS,
                       help=f"activations of the chain (default {ACTIVATIONS}, the paper's)")
    paper.add_argument("--seed", type=non_negative_int, default=1, help="seed of NR_TASK's gaps (default 1)")
    paper.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    paper.add_argument("--plot", type=Path, metavar="DIR", help="also write the figures (PNG) into DIR: "
                       "tlb-rt1-execution-times.png, tlb-all-rt-execution-times.png, tlb-locking-costs.png")
    paper.set_defaults(handler=run_paper)

    trace = sub.add_parser("trace", help="the study on memory-access traces of real programs (lackey)",
                           description="Each period the real-time tasks (--rt, chain order, highest priority "
                           "first) replay their traces; the non-real-time task (--nr) continues through its "
                           "trace in between. Traces are lackey logs (valgrind --tool=lackey --trace-mem=yes "
                           "--log-file=LOG PROGRAM), or with --run commands traced here.")
    trace.add_argument("--rt", action="append", required=True, metavar="TRACE",
                       help="a real-time task's lackey log (or command with --run); repeat for a chain")
    trace.add_argument("--nr", required=True, metavar="TRACE", help="the non-real-time task's lackey log "
                       "(or command with --run)")
    trace.add_argument("--run", action="store_true", help="--rt and --nr are commands to trace here")
    trace.add_argument("--max-accesses", type=positive_int, default=5_000_000,
                       help="read at most this many accesses of each trace (default 5,000,000)")
    trace.add_argument("--covered", type=positive_int, default=1,
                       help="how many real-time tasks, from the first, the locking covers (default 1)")
    trace.add_argument("--periods", type=positive_int, default=50, help="activations of the chain (default 50)")
    trace.add_argument("--nr-accesses", type=positive_int, default=100_000,
                       help="the non-real-time task's accesses per period (default 100,000)")
    trace.add_argument("--max-locked", type=non_negative_int, default=48,
                       help="lock at most this many pages, the most accessed first (default 48 of 64)")
    trace.add_argument("--access-ns", type=positive_int, default=17,
                       help="time of one access on the modelled platform (default 17 ns: about 4 cycles of the "
                       "SH7750R's 235 MHz with the cache off)")
    trace.add_argument("--miss-ns", type=positive_int, default=SH7750R_COSTS.miss_ns,
                       help=f"TLB-miss handler time (default {SH7750R_COSTS.miss_ns} ns, the SH7750R's)")
    trace.add_argument("--entries", type=positive_int, default=64, help="TLB entries (default 64)")
    trace.add_argument("--ways", type=positive_int, default=None,
                       help="ways per set (default: fully associative)")
    trace.add_argument("--rule", choices=RULES, default="urc",
                       help="replacement rule: urc (the SH-4 replace counter, default), lru, fifo, random")
    trace.add_argument("--page-bytes", type=positive_int, default=4096, help="page size (default 4096)")
    trace.add_argument("--seed", type=non_negative_int, default=0, help="seed of the random rule (default 0)")
    trace.add_argument("--period-us", type=positive_int, default=None,
                       help="the chain's period and deadline for the analysis (default: the chain's best-case "
                       "time plus the non-real-time task's work per period)")
    trace.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    trace.add_argument("--plot", type=Path, metavar="DIR",
                       help="also write the first task's execution-time distribution to DIR/tlb-execution-times.png")
    trace.set_defaults(handler=run_trace)


def run_paper(args: argparse.Namespace) -> int:
    rt1 = paper_study(covered=1, periods=args.periods, seed=args.seed)
    all_rt = paper_study(covered=5, periods=args.periods, seed=args.seed)
    comparisons = compare_with_paper(rt1, all_rt)
    if args.plot:
        args.plot.mkdir(parents=True, exist_ok=True)
        plot_execution_times(rt1, args.plot / "tlb-rt1-execution-times.png")
        plot_execution_times(all_rt, args.plot / "tlb-all-rt-execution-times.png")
        plot_locking_costs(rt1.costs, args.plot / "tlb-locking-costs.png")
    if args.json:
        json.dump({"rt_task1_locked": study_to_dict(rt1), "all_rt_locked": study_to_dict(all_rt),
                   "paper": [{"quantity": c.quantity, "paper": float(c.paper), "model": float(c.model),
                              "relative_difference": float(c.relative_difference), "fitted": c.fitted}
                             for c in comparisons]}, sys.stdout, indent=1)
        print()
        return Exit.OK
    console = _console()
    console.print(study_table(rt1, "Locking RT_TASK1 (16 entries)"))
    console.print(study_table(all_rt, "Locking all five real-time tasks (49 entries)"))
    console.print(comparison_table(comparisons))
    return Exit.OK


def _console() -> Console:
    """The tables are wide: 132 columns when the output is not a terminal."""
    console = Console()
    return console if console.is_terminal else Console(width=132)


def _load(spec: str, run: bool, page_bytes: int, max_accesses: int, name: str) -> PageTrace:
    """The page trace of ``spec`` (a lackey log, or with ``run`` a command traced here), under a
    progress bar of the accesses read against ``max_accesses`` (on a terminal only)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    what = f"tracing {name}" if run else f"reading {name}"
    with Progress(TextColumn(what), BarColumn(), MofNCompleteColumn(), TextColumn("accesses, ETA"),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=max_accesses)

        def advance(accesses: int) -> None:
            bar.update(task, completed=accesses)
        if run:
            return trace_program(shlex.split(spec), page_bytes, max_accesses, advance)
        return read_lackey_file(Path(spec), page_bytes, max_accesses, advance)


def run_trace(args: argparse.Namespace) -> int:
    try:
        geometry = TlbGeometry(args.entries, args.ways, args.rule, args.page_bytes, args.seed)
        costs = LockingCosts(miss_ns=args.miss_ns)
        if args.covered > len(args.rt):
            raise ValueError(f"--covered {args.covered}: the chain has {len(args.rt)} real-time task(s)")
        rt = [(f"rt{i + 1}", _load(spec, args.run, args.page_bytes, args.max_accesses, f"rt{i + 1}"))
              for i, spec in enumerate(args.rt)]
        nr = _load(args.nr, args.run, args.page_bytes, args.max_accesses, "nr")
        built = trace_flow(rt, nr, covered=args.covered, periods=args.periods, nr_accesses_per_gap=args.nr_accesses,
                           max_locked=min(args.max_locked, args.entries - 1), access_ns=args.access_ns)
        period_ns = args.period_us * 1000 if args.period_us else built.period_ns
        result = run_study(built.flow, geometry, costs, period_ns, built.nr_work_ns_per_period)
        if args.plot:
            args.plot.mkdir(parents=True, exist_ok=True)
            plot_execution_times(result, args.plot / "tlb-execution-times.png")
    except ValgrindMissing as error:
        print(f"rtsched tlb trace: {error}", file=sys.stderr)
        return Exit.NATIVE_MISSING
    except (OSError, LackeyError, ValueError, RuntimeError) as error:
        print(f"rtsched tlb trace: {error}", file=sys.stderr)
        return Exit.FAILED
    if args.json:
        out = study_to_dict(result)
        out["traces"] = [{"task": name, "source": t.source, "accesses": t.accesses, "pages": t.distinct_pages()}
                         for name, t in [*rt, ("nr", nr)]]
        out["pages_wanted"] = built.pages_wanted
        json.dump(out, sys.stdout, indent=1)
        print()
        return Exit.OK
    console = _console()
    for name, t in [*rt, ("nr", nr)]:
        console.print(f"{name}: {t.source}: {t.accesses:,} accesses, {t.distinct_pages()} pages")
    if built.pages_wanted > len(built.flow.locked_pages):
        console.print(f"the covered tasks touch {built.pages_wanted} pages: the {len(built.flow.locked_pages)} most "
                      "accessed are locked, the others can still miss")
    console.print(study_table(result, f"{len(rt)} real-time task(s), locking covers {args.covered}"))
    return Exit.OK
