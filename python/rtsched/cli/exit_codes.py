"""The exit codes of every ``rtsched`` subcommand (one meaning each)."""

from __future__ import annotations

import signal
from enum import IntEnum

__all__ = ["Exit"]


class Exit(IntEnum):
    OK = 0
    FAILED = 1            # the job ran and reported a failure (bad input, set-up refused, a miss with --fail-on-miss)
    USAGE = 2             # the command line is wrong (argparse's own code)
    INVALID_INPUT = 2     # an input file is wrong: one line per error, with its path (an alias of USAGE)
    NATIVE_MISSING = 3    # a native program is not installed (rtsched.native.NativeToolMissing)
    INTERRUPTED = 128 + signal.SIGINT  # stopped by SIGINT / SIGTERM / SIGHUP, after cleanup
