"""``rtsched validate FILE...``: check task-set files and report every error with its path.

A valid set whose nested locks can deadlock (a lock-order cycle its protocols do not rule out,
``rtsched.analysis.lock_order``) is still valid, with a warning line per cycle naming it: the
analysis calls such a set not schedulable."""

from __future__ import annotations

import argparse
import sys

from rtsched.analysis.lock_order import lock_order_cycles
from rtsched.analysis.tasks import from_taskset
from rtsched.cli.exit_codes import Exit
from rtsched.cli.invalid_input import print_invalid
from rtsched.model import TaskSetError, load_taskset


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "validate",
        help="check task-set files (YAML or JSON) and report every error",
        description="Checks each task-set file and prints `FILE: valid (N tasks, scheduler X)`, "
        "or every error with its path (`FILE: tasks[2].period: ...`). Exit status 1 when "
        "a file is invalid or unreadable; a warning line per lock-order cycle that can deadlock "
        "(the set stays valid). The format: docs/taskset.md.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="task-set file (.yaml, .yml or .json)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    status = Exit.OK
    for path in args.files:
        try:
            taskset = load_taskset(path)
        except TaskSetError as e:
            print_invalid(path, e.errors)
            status = Exit.INVALID_INPUT
            continue
        n = len(taskset.tasks)
        print(f"{path}: valid ({n} task{'s' if n != 1 else ''}, scheduler {taskset.scheduler})")
        for cycle in lock_order_cycles(from_taskset(taskset)):
            print(f"{path}: warning: deadlock possible: {cycle.describe()}", file=sys.stderr)
    return status
