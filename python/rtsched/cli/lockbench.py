"""``rtsched lockbench``: lock and condition-variable overheads against glibc."""

from __future__ import annotations

import argparse

from rtsched.cli.native import exec_native


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "lockbench",
        help="lock and condition-variable overheads against glibc (seed 001 Table I layout)",
        description="Runs rtsched-lockbench; every option after `lockbench` goes to it "
        "(see `rtsched lockbench --help`).",
        add_help=False,
    )
    parser.set_defaults(handler=run, passes_arguments_on=True)


def run(args: argparse.Namespace, native_args: list[str]) -> int:
    return exec_native("rtsched-lockbench", native_args)
