"""``rtsched``: one command, one subcommand per job.

It offers only what works; subcommands arrive with the issues that build them.
Exit codes: 0 success, 1 the job ran and reported a failure, 2 usage error,
3 a native program is missing.
"""

from __future__ import annotations

import argparse
import os
import sys

from rtsched import __version__
from rtsched.native import NativeToolMissing, native_tool

EXIT_USAGE = 2
EXIT_NATIVE_MISSING = 3


def _run_native(program: str, args: list[str]) -> int:
    """Replace this process with a native program, so signals and exit codes pass through."""
    try:
        path = native_tool(program)
    except NativeToolMissing as error:
        print(f"rtsched: {error}", file=sys.stderr)
        return EXIT_NATIVE_MISSING
    sys.stdout.flush()
    os.execv(path, [str(path), *args])
    return 0  # not reached


def _lockbench(args: argparse.Namespace, native_args: list[str]) -> int:
    return _run_native("rtsched-lockbench", native_args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rtsched",
        description="Real-time scheduling and locking on a stock Linux kernel.",
    )
    parser.add_argument("--version", action="version", version=f"rtsched {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    lockbench = commands.add_parser(
        "lockbench",
        help="lock and condition-variable overheads against glibc (seed 001 Table I layout)",
        description="Runs rtsched-lockbench; every option after `lockbench` goes to it "
        "(see `rtsched lockbench --help`).",
        add_help=False,
    )
    lockbench.set_defaults(handler=_lockbench, passes_arguments_on=True)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if getattr(args, "passes_arguments_on", False):
        return args.handler(args, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
