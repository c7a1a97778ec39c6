"""Where tracefs is, and the name of the instance an rtsched process records in.

One home for both, read by the recorder that makes an instance
(``kernel_recorder``) and by the code that removes one a killed process left
(``leftovers``, which must start fast and so imports nothing heavy).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["TRACEFS_DIRS", "find_tracefs", "instance_name", "instance_owner", "mount_tracefs"]

TRACEFS_DIRS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
_INSTANCE = re.compile(r"rtsched-([0-9]+)")


def find_tracefs() -> Path | None:
    """The mounted tracefs that offers instances, or None."""
    for d in TRACEFS_DIRS:
        if os.path.isdir(os.path.join(d, "instances")):
            return Path(d)
    return None


def mount_tracefs() -> tuple[Path | None, str]:
    """Mount tracefs at its standard place when it is mounted nowhere, as trace-cmd and perf do:
    (the path, "") when mounted, else (None, why not in words). Needs CAP_SYS_ADMIN (root)."""
    import ctypes
    import errno

    target = TRACEFS_DIRS[0]
    if not os.path.isdir(target):
        return None, f"{target} does not exist (a kernel without tracefs)"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b"nodev", target.encode(), b"tracefs", 0, None) == 0:
        return Path(target), ""
    err = ctypes.get_errno()
    if err == errno.EPERM:
        return None, f"mounting it needs root (CAP_SYS_ADMIN): sudo mount -t tracefs nodev {target}"
    return None, f"mount -t tracefs nodev {target}: {os.strerror(err)}"


def instance_name(pid: int) -> str:
    """The tracefs instance of rtsched process ``pid``: one per process, so a dead owner is told by its name."""
    return f"rtsched-{pid}"


def instance_owner(name: str) -> int | None:
    """The PID in an instance name of ``instance_name``'s form, else None (not rtsched's)."""
    match = _INSTANCE.fullmatch(name)
    return int(match.group(1)) if match else None
