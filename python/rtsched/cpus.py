"""CPU lists ("0-2,5", the kernel's syntax) and CPU masks (Python ints of any width,
and the kernel's hex form "00000002,00000000"), checked against this machine.

Every CPU list is a tuple of CPU numbers, sorted, without duplicates. A mask is
an int whose bit c is CPU c: no limit on the number of CPUs.

    parse_cpu_list("0-2,5")     # (0, 1, 2, 5)
    format_cpu_list([0, 1, 5])  # "0-1,5"
    cpu_mask([0, 2]) == 5; mask_cpus(5) == (0, 2)
    parse_mask("00000000,00000003") == 3; format_mask(1 << 33) == "00000002,00000000"
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "CpuListError",
    "allowed_cpus",
    "check_allowed",
    "checked_cpu_list",
    "cpu_mask",
    "format_cpu_list",
    "format_mask",
    "mask_cpus",
    "online_cpus",
    "parse_cpu_list",
    "parse_mask",
]

SYS_CPU = Path("/sys/devices/system/cpu")
_MASK_GROUP_BITS = 32


class CpuListError(ValueError):
    """A CPU list that is malformed or names a CPU that does not exist."""


def parse_cpu_list(text: str) -> tuple[int, ...]:
    """The CPUs of ``text``, sorted, without duplicates. Raises CpuListError saying what is wrong."""
    stripped = text.strip()
    if not stripped:
        raise CpuListError("empty CPU list")
    cpus: set[int] = set()
    for item in stripped.split(","):
        first, dash, last = item.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise CpuListError(f"'{text}' is not a CPU list (expected e.g. 0,2-3)")
        lo, hi = int(first), int(last) if dash else int(first)
        if hi < lo:
            raise CpuListError(f"reversed range {lo}-{hi} in CPU list '{text}'")
        cpus.update(range(lo, hi + 1))
    return tuple(sorted(cpus))


def format_cpu_list(cpus: Iterable[int]) -> str:
    """The shortest kernel-syntax list: [0, 1, 2, 5] -> "0-2,5"."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def cpu_mask(cpus: Iterable[int]) -> int:
    """The mask with bit c set for each CPU c."""
    mask = 0
    for cpu in cpus:
        mask |= 1 << cpu
    return mask


def mask_cpus(mask: int) -> tuple[int, ...]:
    """The CPUs whose bits are set in ``mask``."""
    return tuple(bit for bit in range(mask.bit_length()) if mask >> bit & 1)


def parse_mask(text: str) -> int:
    """A kernel hex CPU mask ("3", "00000000,00000003") as an int."""
    return int(text.strip().replace(",", "") or "0", 16)


def format_mask(mask: int) -> str:
    """An int as a kernel hex CPU mask, in comma-separated 32-bit groups."""
    groups = []
    while True:
        groups.append(f"{mask & (1 << _MASK_GROUP_BITS) - 1:08x}")
        mask >>= _MASK_GROUP_BITS
        if not mask:
            break
    return ",".join(reversed(groups))


def online_cpus() -> tuple[int, ...]:
    """The CPUs online now (/sys/devices/system/cpu/online; without sysfs: 0 .. cpu_count - 1)."""
    try:
        return parse_cpu_list((SYS_CPU / "online").read_text())
    except OSError:
        return tuple(range(os.cpu_count() or 1))


def allowed_cpus() -> tuple[int, ...]:
    """The online CPUs this process may run on: its affinity, which the kernel keeps within its
    cpuset (``taskset -c 0``, a container's cpuset, a shield). Every CPU rtsched picks by itself
    (a calibration's CPU, a sweep's worker count, a file's CPUs when it names none) comes from here."""
    online = online_cpus()
    try:
        affinity = os.sched_getaffinity(0)
    except OSError:  # pragma: no cover - Linux always answers for the calling process
        return online
    return tuple(c for c in online if c in affinity) or online


def check_allowed(cpus: Iterable[int]) -> None:
    """Raise CpuListError naming the cause when a CPU is offline, or online but outside this
    process's allowed CPUs (where pinning a thread to it fails with EINVAL)."""
    online = online_cpus()
    offline = [cpu for cpu in cpus if cpu not in online]
    if offline:
        raise CpuListError(f"CPU {format_cpu_list(offline)} does not exist or is offline "
                           f"(online: {format_cpu_list(online)})")
    allowed = allowed_cpus()
    outside = [cpu for cpu in cpus if cpu not in allowed]
    if outside:
        raise CpuListError(
            f"CPU {format_cpu_list(outside)} is online but this process may not run on it: its affinity "
            f"allows only CPU {format_cpu_list(allowed)} (set by taskset, a cpuset or a shield: "
            "`rtsched shield --status`); run without the restriction or choose among those")


def checked_cpu_list(text: str) -> tuple[int, ...]:
    """parse_cpu_list, and every CPU must be online and allowed to this process (check_allowed)."""
    cpus = parse_cpu_list(text)
    check_allowed(cpus)
    return cpus
