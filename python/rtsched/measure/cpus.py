"""CPU lists in the kernel's syntax ("0-2,5"), checked against this machine."""

from __future__ import annotations

import os
from pathlib import Path

SYS_CPU = Path("/sys/devices/system/cpu")


class CpuListError(ValueError):
    """A CPU list that is malformed or names a CPU that does not exist."""


def parse_cpu_list(text: str) -> list[int]:
    """The CPUs of ``text``, sorted, without duplicates. Raises CpuListError."""
    stripped = text.strip()
    if not stripped:
        raise CpuListError("empty CPU list")
    cpus: set[int] = set()
    for item in stripped.split(","):
        item = item.strip()
        first, dash, last = item.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise CpuListError(f"'{text}' is not a CPU list (expected e.g. 0,2-3)")
        lo, hi = int(first), int(last) if dash else int(first)
        if hi < lo:
            raise CpuListError(f"reversed range {lo}-{hi} in CPU list '{text}'")
        cpus.update(range(lo, hi + 1))
    return sorted(cpus)


def format_cpu_list(cpus: list[int] | set[int]) -> str:
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


def cpu_mask(cpus: list[int] | set[int]) -> int:
    mask = 0
    for cpu in cpus:
        mask |= 1 << cpu
    return mask


def mask_cpus(mask: int) -> list[int]:
    return [bit for bit in range(mask.bit_length()) if mask >> bit & 1]


def online_cpus() -> list[int]:
    path = SYS_CPU / "online"
    try:
        return parse_cpu_list(path.read_text())
    except OSError:
        return list(range(os.cpu_count() or 1))


def checked_cpu_list(text: str) -> list[int]:
    """parse_cpu_list, and every CPU must be online on this machine."""
    cpus = parse_cpu_list(text)
    online = set(online_cpus())
    missing = [cpu for cpu in cpus if cpu not in online]
    if missing:
        raise CpuListError(
            f"CPU {format_cpu_list(missing)} does not exist or is offline "
            f"(online: {format_cpu_list(sorted(online))})"
        )
    return cpus
