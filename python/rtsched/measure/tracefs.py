"""Where tracefs is, and the name of the instance an rtsched process records in.

One home for both, read by the recorder that makes an instance
(``kernel_recorder``) and by the code that removes one a killed process left
(``leftovers``, which must start fast and so imports nothing heavy).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["TRACEFS_DIRS", "find_tracefs", "instance_name", "instance_owner", "mount_command"]

TRACEFS_DIRS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
_INSTANCE = re.compile(r"rtsched-([0-9]+)")


def find_tracefs() -> Path | None:
    """The mounted tracefs that offers instances, or None."""
    for d in TRACEFS_DIRS:
        if os.path.isdir(os.path.join(d, "instances")):
            return Path(d)
    return None


def mount_command() -> tuple[str | None, str]:
    """(where tracefs would be mounted, what to run to mount it), or (None, why it cannot be)."""
    target = TRACEFS_DIRS[0]
    if not os.path.isdir(target):
        return None, f"{target} does not exist (a kernel without tracefs)"
    how = f"mount -t tracefs nodev {target}"
    return target, (how if os.geteuid() == 0 else f"sudo {how} (mounting needs root)")


def instance_name(pid: int) -> str:
    """The tracefs instance of rtsched process ``pid``: one per process, so a dead owner is told by its name."""
    return f"rtsched-{pid}"


def instance_owner(name: str) -> int | None:
    """The PID in an instance name of ``instance_name``'s form, else None (not rtsched's)."""
    match = _INSTANCE.fullmatch(name)
    return int(match.group(1)) if match else None
