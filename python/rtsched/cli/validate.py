"""``rtsched validate FILE...``: check task-set files and report every error with its path."""

from __future__ import annotations

import argparse

from rtsched.cli.exit_codes import Exit
from rtsched.cli.invalid_input import print_invalid
from rtsched.model import TaskSetError, load_taskset


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "validate",
        help="check task-set files (YAML or JSON) and report every error",
        description="Checks each task-set file and prints `FILE: valid (N tasks, scheduler X)`, "
        "or every error with its path (`FILE: tasks[2].period: ...`). Exit status 1 when "
        "a file is invalid or unreadable. The format: docs/taskset.md.",
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
    return status
