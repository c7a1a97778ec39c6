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
# The subcommands that make tracefs instances, cpusets, shields or child processes: each first removes
# what killed rtsched commands left (rtsched.measure.leftovers), then starts its own watcher, so that
# it is ready long before anything is made (docs/run.md "After a crash").
CLEANS_LEFTOVERS_FIRST = {"run", "shield", "calibrate", "latency", "overhead", "sweep"}

__all__ = ["Exit", "build_parser", "main"]


#: Command name -> its module, where they differ ("import-rtapp" -> import_rtapp).
_MODULE_OF = {"import-rtapp": "import_rtapp", "io": "io_flows"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or only of ``command`` (one of them): a command then
    imports its own module alone (``rtsched sim`` does not load the runner's, the sweep's...)."""
    parser = argparse.ArgumentParser(
        prog="rtsched",
        description="Real-time scheduling and locking on a stock Linux kernel.",
    )
    parser.add_argument("--version", action="version", version=f"rtsched {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    for name in [_MODULE_OF.get(command, command)] if command is not None else COMMAND_MODULES:
        importlib.import_module(f"rtsched.cli.{name}").register(commands)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names first, when it is one (else None: the whole parser)."""
    first = argv[0] if argv else None
    return first if first is not None and _MODULE_OF.get(first, first) in COMMAND_MODULES else None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(_command_of(sys.argv[1:] if argv is None else argv))
    args, rest = parser.parse_known_args(argv)
    if rest and not getattr(args, "passes_arguments_on", False):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command in CLEANS_LEFTOVERS_FIRST:
        from rtsched.measure.guard import guard_this_process
        from rtsched.measure.leftovers import remove_leftovers, say_removed

        say_removed(remove_leftovers(), "killed rtsched commands")
        guard_this_process()
    if getattr(args, "passes_arguments_on", False):
        return args.handler(args, rest)
    try:
        return args.handler(args)
    except OutputError as error:  # a full disk: one line, and no partial file left (rtsched.outputs)
        print(f"rtsched {args.command}: {error.strerror}", file=sys.stderr)
        return Exit.FAILED


if __name__ == "__main__":
    sys.exit(main())
