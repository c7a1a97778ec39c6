"""``rtsched lockbench``: lock and condition-variable overheads against glibc.

Every rtsched protocol (NONE, PIP, and the ceiling protocols PCP, SRP, IPCP,
MPCP, FMLP+ in their deferred and eager forms) and glibc's PRIO_NONE,
PRIO_INHERIT and PRIO_PROTECT, in one run: uncontended loops, a two-thread
hand-over, and seed 001's periodic task workload on one CPU and on two
(Table I: lock and unlock separately, avg / 99th percentile / max, cycles and
ns, system calls per operation). The C tool does the work.
"""

from __future__ import annotations

import argparse
import sys

from rtsched.cli.exit_codes import Exit
from rtsched.native import NativeToolMissing, exec_native


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "lockbench",
        help="lock overheads of every protocol against glibc (seed 001 Table I)",
        description="Runs rtsched-lockbench; every option after `lockbench` goes to it "
        "(see `rtsched lockbench --help`).",
        add_help=False,
    )
    parser.set_defaults(handler=run, passes_arguments_on=True)


def run(args: argparse.Namespace, native_args: list[str]) -> int:
    try:
        exec_native("rtsched-lockbench", native_args)
    except NativeToolMissing as error:
        print(f"rtsched: {error}", file=sys.stderr)
        return Exit.NATIVE_MISSING
