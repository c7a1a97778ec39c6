"""Running the native programs built from the C sources."""

from __future__ import annotations

import os
import sys

from rtsched.native import NativeToolMissing, native_tool

EXIT_NATIVE_MISSING = 3


def exec_native(program: str, args: list[str]) -> int:
    """Replace this process with a native program, so signals and exit codes pass through."""
    try:
        path = native_tool(program)
    except NativeToolMissing as error:
        print(f"rtsched: {error}", file=sys.stderr)
        return EXIT_NATIVE_MISSING
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [str(path), *args])
    return 0  # not reached
