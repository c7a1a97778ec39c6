"""``rtsched``: one command, one subcommand per job.

It offers only what works; subcommands arrive with the issues that build
them. Each lives in its own module of this package with a
``register(commands)`` function that adds its parser and sets ``handler``;
list the module in COMMAND_MODULES. A subcommand that wraps a native program
sets ``passes_arguments_on=True`` and its handler receives the options it did
not parse itself.

Exit codes: ``rtsched.cli.exit_codes.Exit`` (0 success, 1 the job ran and reported a
failure, 2 usage error or an invalid input file, 3 a native program is missing, 130 interrupted).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from rtsched import __version__
from rtsched.cli.exit_codes import Exit
from rtsched.outputs import OutputError

COMMAND_MODULES = ["lockbench", "validate", "import_rtapp", "latency", "overhead", "shield", "run", "sim", "analyze",
                   "calibrate", "sweep", "io_flows", "tlb"]

__all__ = ["Exit", "build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rtsched",
        description="Real-time scheduling and locking on a stock Linux kernel.",
    )
    parser.add_argument("--version", action="version", version=f"rtsched {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f"rtsched.cli.{name}").register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if getattr(args, "passes_arguments_on", False):
        return args.handler(args, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return args.handler(args)
    except OutputError as error:  # a full disk: one line, and no partial file left (rtsched.outputs)
        print(f"rtsched {args.command}: {error.strerror}", file=sys.stderr)
        return Exit.FAILED


if __name__ == "__main__":
    sys.exit(main())
