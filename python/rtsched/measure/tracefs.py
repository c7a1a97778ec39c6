"""Where tracefs is, and the name of the instance an rtsched process records in.

One home for both, read by the recorder that makes an instance
(``kernel_recorder``) and by the code that removes one a killed process left
(``leftovers``, which must start fast and so imports nothing heavy).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["TRACEFS_DIRS", "find_tracefs", "instance_name", "instance_owner"]

TRACEFS_DIRS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
_INSTANCE = re.compile(r"rtsched-([0-9]+)")


def find_tracefs() -> Path | None:
    """The mounted tracefs that offers instances, or None."""
    for d in TRACEFS_DIRS:
        if os.path.isdir(os.path.join(d, "instances")):
            return Path(d)
    return None


def instance_name(pid: int) -> str:
    """The tracefs instance of rtsched process ``pid``: one per process, so a dead owner is told by its name."""
    return f"rtsched-{pid}"


def instance_owner(name: str) -> int | None:
    """The PID in an instance name of ``instance_name``'s form, else None (not rtsched's)."""
    match = _INSTANCE.fullmatch(name)
    return int(match.group(1)) if match else None
