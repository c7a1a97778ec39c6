"""``rtsched analyze FILE``: schedulability analysis of a task-set file.

By default the test that fits the set's scheduler and protocols (see
``rtsched.analysis.default_test``), or for a set with reservations the
hierarchy's analysis (``rtsched.cli.analyze_reservations``); ``--test NAME`` picks another
(``--list`` shows them). Prints per task the bound and the verdict, then
the bounds of the set's cause-effect chains (docs/chains.md), or ``--json``. Exit status: 0 schedulable, 1 not schedulable / not analysable,
2 usage or an invalid file.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console

from rtsched.cli.overhead_profile import add_overhead_options, overheads_from_args
from rich.table import Table

from rtsched.cli.chain_table import print_chain_bounds
from rtsched.cli.exit_codes import Exit
from rtsched.cli.tables import print_fitting

if TYPE_CHECKING:
    from rtsched.analysis.overheads import Overheads
    from rtsched.analysis.results import AnalysisResult, ChainBound, TaskBound
    from rtsched.analysis.tasks import AnalysisProblem
    from rtsched.model import TaskSet


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "analyze",
        help="schedulability analysis: per-task response-time bounds and verdicts",
        description="Analyses a task-set file with the test that fits its scheduler and protocols, "
        "or the one given with --test, and prints each task's bound and verdict. Exit status 0 when "
        "schedulable, 1 when not (or not analysable, or the file is invalid), 2 on usage errors. "
        "The tests: docs/analysis.md.",
    )
    parser.add_argument("file", nargs="?", metavar="FILE", help="task-set file (.yaml, .yml or .json)")
    parser.add_argument("--test", metavar="NAME", help="the test to run (default: chosen from the set)")
    parser.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    parser.add_argument("--list", action="store_true", help="list the tests and exit")
    parser.add_argument("--cpus", type=int, metavar="N", help="processors for global schedulers (default: the set's)")
    add_overhead_options(parser)
    parser.add_argument("--sensitivity", action="store_true",
                        help="also how far each bound is from a cliff: slack per task, overhead headroom, "
                        "critical scaling factor (docs/analysis.md)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="test option, e.g. period_ns=100000000 or supply=linear (prm-fp, prm-edf)")
    parser.set_defaults(handler=run)


def _parse_options(items: list[str]) -> dict:
    options: dict = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--option {item!r}: expected KEY=VALUE")
        key, value = item.split("=", 1)
        key = key.strip()
        if not key.isidentifier():
            raise ValueError(f"--option {item!r}: bad key")
        options[key] = int(value) if value.strip().lstrip("-").isdigit() else value
    return options


def _fmt(ns: int | None) -> str:
    if ns is None:
        return "—"
    from rtsched.model import format_duration

    return format_duration(ns)


#: The most tasks the table lists; a larger set shows those closest to (or past) their deadlines.
TABLE_ROWS_MAX = 100


def _rows_shown(tasks: Sequence[TaskBound], problem: AnalysisProblem) -> Sequence[TaskBound]:
    """Every task of a set of at most TABLE_ROWS_MAX, else the TABLE_ROWS_MAX with the least slack
    (deadline - bound; a task without a bound first), in the set's order."""
    if len(tasks) <= TABLE_ROWS_MAX:
        return tasks

    def slack(b: TaskBound) -> float:
        return -math.inf if b.bound_ns is None else problem.job_parameters(b.name)[1] - b.bound_ns
    kept = {id(b) for b in heapq.nsmallest(TABLE_ROWS_MAX, tasks, key=slack)}
    return [b for b in tasks if id(b) in kept]


def _chain_bounds(taskset: TaskSet, result: AnalysisResult, overheads: Overheads | None) -> tuple[ChainBound, ...]:
    """The chains' bounds from ``result``'s per-task bounds, with the release latency ``overheads``
    count (as ``rtsched run`` computes them)."""
    from rtsched.analysis.chains import chain_bounds

    jitter_ns = (overheads.release_latency_ns or 0) if overheads is not None else 0
    return chain_bounds(taskset, result, release_jitter_ns=jitter_ns) if taskset.chains else ()


def run(args: argparse.Namespace) -> int:
    from rtsched.analysis import DESCRIPTIONS, TESTS, default_test, from_taskset, run_test
    from rtsched.model import TaskSetError, load_taskset

    err = Console(stderr=True)
    if args.list:
        for name in sorted(TESTS):
            print(f"{name:16} {DESCRIPTIONS.get(name, '')}")
        return Exit.OK
    if not args.file:
        err.print("rtsched analyze: FILE is required (or --list)")
        return Exit.USAGE
    if args.test and args.test not in TESTS:
        err.print(f"rtsched analyze: unknown test {args.test!r}; known: {', '.join(sorted(TESTS))}")
        return Exit.USAGE
    try:
        options = _parse_options(args.option)
    except ValueError as error:
        err.print(f"rtsched analyze: {error}")
        return Exit.USAGE
    try:
        taskset = load_taskset(args.file)
    except TaskSetError as error:
        for e in error.errors:
            print(f"{args.file}: {e}", file=sys.stderr)
        return Exit.INVALID_INPUT
    except OSError as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return Exit.FAILED
    try:
        choice = overheads_from_args(args)
    except ValueError as error:
        print(f"rtsched analyze: {error}", file=sys.stderr)
        return Exit.FAILED
    if taskset.reservations and not args.test:
        from rtsched.cli.analyze_reservations import show_reservations

        return show_reservations(args.file, taskset, args.json, choice.overheads, choice.description)
    problem = from_taskset(taskset, cpus=args.cpus)
    if choice.overheads is not None:
        options["overheads"] = choice.overheads
    name = args.test or default_test(problem)
    try:
        result = run_test(name, problem, **options)
        ideal = (run_test(name, problem, **{k: v for k, v in options.items() if k != "overheads"})
                 if choice.overheads is not None else None)
    except TypeError as error:
        err.print(f"rtsched analyze: test {name}: {error}")
        return Exit.USAGE
    status = Exit.OK if result.schedulable else Exit.FAILED
    chains = _chain_bounds(taskset, result, choice.overheads)
    slack = None
    if args.sensitivity:
        from rtsched.analysis.sensitivity import sensitivity

        slack = sensitivity(name, problem, **options)
    if args.json:
        out = {"file": args.file, "taskset": taskset.name, "scheduler": taskset.scheduler, **result.to_dict(),
               "overheads": choice.description}
        if ideal is not None:
            out["ideal"] = ideal.to_dict()
        if slack is not None:
            out["sensitivity"] = slack.to_dict()
        if chains:
            out["chains"] = [c.to_dict() for c in chains]
        json.dump(out, sys.stdout, indent=1)
        print()
        return status
    console = Console()
    table = Table(title=f"{taskset.name}: {result.test} ({taskset.platform.policy})")
    columns = ["task", "period", "deadline", "WCET", "blocking", "bound"] + (["ideal"] if ideal else []) + ["verdict"]
    if slack is not None:
        columns += ["cliff", "to deadline", "per-job overhead"]
    for col in columns:
        table.add_column(col, justify="right" if col not in ("task", "verdict") else "left")
    style = {"ok": "green", "miss": "red", "unknown": "yellow"}
    shown = _rows_shown(result.tasks, problem)
    for b in shown:
        period, deadline, wcet = problem.job_parameters(b.name)
        row = [b.name, _fmt(period), _fmt(deadline), _fmt(wcet), _fmt(b.blocking_ns),
               _fmt(b.bound_ns)] + ([_fmt(ideal.bound(b.name))] if ideal else []) + \
            [f"[{style[b.verdict]}]{b.verdict}[/]"]
        if slack is not None:
            s = slack.task(b.name)
            row += [_fmt(s.cliff_ns), _fmt(s.deadline_slack_ns), _fmt(s.overhead_slack_ns)]
        table.add_row(*row)
    print_fitting(console, table)
    for b in shown:
        console.print(f"  {b.name}: {b.reason}", highlight=False)
    if len(shown) < len(result.tasks):
        console.print(f"{len(result.tasks) - len(shown):,} more tasks not shown, each further from its deadline "
                      "than every task shown; --json lists every task", highlight=False)
    console.print(choice.description + ("; ideal: the bound without them" if ideal else ""), highlight=False)
    for note in result.details.get("notes", []):
        console.print(f"note: {note}")
    if slack is not None:
        console.print("cliff: extra execution time of the task's own job before its bound jumps; to deadline: "
                      "before it misses; per-job overhead: extra time on every job of every task before it "
                      "misses", highlight=False)
        console.print(f"overhead headroom per job: {_fmt(slack.overhead_headroom_ns)}; critical scaling factor: "
                      + ("—" if slack.critical_scaling_factor is None else
                         f"{float(slack.critical_scaling_factor):.3f}"), highlight=False)
    colour = "green" if result.schedulable else "red" if result.verdict == "not schedulable" else "yellow"
    console.print(f"[{colour}]{result.verdict}[/] ({result.label} test): {result.reason}")
    print_chain_bounds(chains, console)
    return status
