"""``rtsched analyze FILE``: schedulability analysis of a task-set file.

By default the test that fits the set's scheduler and protocols (see
``rtsched.analysis.default_test``); ``--test NAME`` picks another
(``--list`` shows them). Prints per task the bound and the verdict, or
``--json``. Exit status: 0 schedulable, 1 not schedulable / not analysable /
invalid file, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2


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
    parser.add_argument("--overheads", action="append", default=[], metavar="JSON",
                        help="fold in overheads from a benchmark's --json output (repeatable; docs/analysis.md)")
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


def run(args: argparse.Namespace) -> int:
    from rtsched.analysis import DESCRIPTIONS, TESTS, default_test, from_taskset, run_test
    from rtsched.model import TaskSetError, load_taskset

    err = Console(stderr=True)
    if args.list:
        for name in sorted(TESTS):
            print(f"{name:16} {DESCRIPTIONS.get(name, '')}")
        return EXIT_OK
    if not args.file:
        err.print("rtsched analyze: FILE is required (or --list)")
        return EXIT_USAGE
    if args.test and args.test not in TESTS:
        err.print(f"rtsched analyze: unknown test {args.test!r}; known: {', '.join(sorted(TESTS))}")
        return EXIT_USAGE
    try:
        options = _parse_options(args.option)
    except ValueError as error:
        err.print(f"rtsched analyze: {error}")
        return EXIT_USAGE
    try:
        taskset = load_taskset(args.file)
    except TaskSetError as error:
        for e in error.errors:
            print(f"{args.file}: {e}", file=sys.stderr)
        return EXIT_FAIL
    except OSError as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return EXIT_FAIL
    problem = from_taskset(taskset, cpus=args.cpus)
    if args.overheads:
        from rtsched.analysis.overheads import OverheadsError, load_overheads

        try:
            options["overheads"] = load_overheads(*args.overheads)
        except OverheadsError as error:
            print(f"rtsched analyze: {error}", file=sys.stderr)
            return EXIT_FAIL
    name = args.test or default_test(problem)
    try:
        result = run_test(name, problem, **options)
    except TypeError as error:
        err.print(f"rtsched analyze: test {name}: {error}")
        return EXIT_USAGE
    status = EXIT_OK if result.schedulable else EXIT_FAIL
    if args.json:
        out = {"file": args.file, "taskset": taskset.name, "scheduler": taskset.scheduler, **result.to_dict()}
        json.dump(out, sys.stdout, indent=1)
        print()
        return status
    console = Console()
    table = Table(title=f"{taskset.name}: {result.test} ({taskset.platform.policy})")
    for col in ("task", "period", "deadline", "WCET", "blocking", "bound", "verdict"):
        table.add_column(col, justify="right" if col not in ("task", "verdict") else "left")
    style = {"ok": "green", "miss": "red", "unknown": "yellow"}
    for b in result.tasks:
        t = problem.task(b.name)
        table.add_row(b.name, _fmt(t.period_ns), _fmt(t.deadline_ns), _fmt(t.wcet_ns), _fmt(b.blocking_ns),
                      _fmt(b.bound_ns), f"[{style[b.verdict]}]{b.verdict}[/]")
    console.print(table)
    for b in result.tasks:
        console.print(f"  {b.name}: {b.reason}", highlight=False)
    for note in result.details.get("notes", []):
        console.print(f"note: {note}")
    colour = "green" if result.schedulable else "red" if result.verdict == "not schedulable" else "yellow"
    console.print(f"[{colour}]{result.verdict}[/] ({result.label} test): {result.reason}")
    return status
