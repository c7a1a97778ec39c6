"""The threads of a process's children, read from /proc while they run (live tests read what the
kernel gave each thread: its policy, nice, CPUs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


def child_threads(parent: int) -> Iterator[Path]:
    """/proc/PID/task/TID of every thread of every child of ``parent`` alive now (one that ends
    while it is read is skipped)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) != parent:
                continue
            yield from list((proc / "task").iterdir())
        except (OSError, IndexError, ValueError):
            continue
