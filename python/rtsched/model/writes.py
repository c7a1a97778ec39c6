"""The ``memwrite`` and ``iowrite`` actions in the task-set file: read and check them.

``memwrite: {bytes: 1000, buffer: 1MiB, wcet: 50us}`` stores ``bytes`` into the
task's write buffer, in chunks of ``buffer`` (each from the buffer's start);
``iowrite: {bytes: 100KiB, device: /dev/null, buffer: 1MiB, wcet: 2ms}`` writes
``bytes`` to ``device`` with write(2), in chunks of ``buffer``. These are
rt-app's ``mem`` and ``iorun`` (docs/from-rtapp.md). A write's duration does
not follow from its size, so each gives ``wcet``: the CPU time the analysis
and the simulator charge for it. docs/taskset.md describes the keys; how the
runner performs the writes is in tools/run/writes.c.

The parser returns the action (or None) with the problems found, each a
(path, message) pair, as ``rtsched.model.prem`` does; validate.py reports them.
"""

from __future__ import annotations

import re
from typing import Any

from rtsched.model.durations import DurationError, parse_duration
from rtsched.model.model import IO_DEVICE_DEFAULT, WRITE_BUFFER_DEFAULT_BYTES, IoWrite, MemWrite
from rtsched.model.values import describe

__all__ = [
    "DEVICE_MAX_BYTES",
    "IOWRITE_KEYS",
    "MEMWRITE_KEYS",
    "WRITE_BUFFER_MAX_BYTES",
    "WRITE_MAX_BYTES",
    "parse_bytes",
    "parse_write",
]

MEMWRITE_KEYS = frozenset({"bytes", "buffer", "wcet"})
IOWRITE_KEYS = frozenset({"bytes", "device", "buffer", "wcet"})
#: A task's write buffer at most (as a PREM buffer: tools/run/spec.h RUN_BUFFER_MAX_BYTES).
WRITE_BUFFER_MAX_BYTES = 256 << 20
#: One action writes at most this much per job (1 TiB: far beyond any job, and exact in int64 ns arithmetic).
WRITE_MAX_BYTES = 1 << 40
#: A device path fits the runner's path field (tools/run/spec.h RUN_PATH_MAX, with its NUL).
DEVICE_MAX_BYTES = 511

_SIZE = re.compile(r"^\s*([0-9]+)\s*(B|KiB|MiB|GiB|TiB)\s*$")
_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

Problems = list[tuple[str, str]]


def parse_bytes(value: Any, path: str, limit: int) -> tuple[int | None, Problems]:
    """A byte count in 1..limit: an integer, or a string such as ``100KiB`` (binary units B to TiB)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None, [(path, f"expected a number of bytes such as 4096 or 64KiB, got {describe(value)}")]
    if isinstance(value, str):
        match = _SIZE.match(value)
        if match is None:
            return None, [(path, f'expected a number of bytes such as 4096 or 64KiB (units B, KiB, MiB, GiB, '
                                 f'TiB), got {describe(value)}')]
        value = int(match.group(1)) * _UNITS[match.group(2)]
    if not 1 <= value <= limit:
        return None, [(path, f"must be 1 to {limit} bytes, got {describe(value)}")]
    return value, []


def _device(value: Any, path: str) -> tuple[str | None, Problems]:
    if not isinstance(value, str) or not value.startswith("/"):
        return None, [(path, f"expected an absolute path such as /dev/null, got {describe(value)}")]
    if "\0" in value or len(value.encode()) > DEVICE_MAX_BYTES:
        return None, [(path, f"a path of at most {DEVICE_MAX_BYTES} bytes without NUL, got {describe(value)}")]
    return value, []


def parse_write(op: str, value: Any, path: str) -> tuple[MemWrite | IoWrite | None, Problems]:
    """``memwrite`` or ``iowrite`` (``op``) given ``value`` at ``path``."""
    allowed = MEMWRITE_KEYS if op == "memwrite" else IOWRITE_KEYS
    if not isinstance(value, dict):
        return None, [(path, f"expected a mapping {{{', '.join(sorted(allowed))}}}, got {describe(value)}")]
    problems: Problems = [(f"{path}.{k}", f"unknown key (keys of {op}: {', '.join(sorted(allowed))})")
                          for k in value if k not in allowed]
    for key in ("bytes", "wcet"):
        if key not in value:
            why = (" (a write's duration does not follow from its size: give the time it may take)"
                   if key == "wcet" else "")
            problems.append((path, f'missing required key "{key}"{why}'))
    size, errs = parse_bytes(value["bytes"], f"{path}.bytes", WRITE_MAX_BYTES) if "bytes" in value else (None, [])
    problems += errs
    buffer, errs = (parse_bytes(value["buffer"], f"{path}.buffer", WRITE_BUFFER_MAX_BYTES) if "buffer" in value
                    else (WRITE_BUFFER_DEFAULT_BYTES, []))
    problems += errs
    wcet = None
    if "wcet" in value:
        try:
            wcet = parse_duration(value["wcet"])
        except DurationError as err:
            problems.append((f"{path}.wcet", str(err)))
        else:
            if wcet <= 0:
                problems.append((f"{path}.wcet", f"must be > 0, got {value['wcet']!r}"))
    device: str | None = IO_DEVICE_DEFAULT
    if op == "iowrite" and "device" in value:
        device, errs = _device(value["device"], f"{path}.device")
        problems += errs
    if problems or size is None or buffer is None or wcet is None or device is None:
        return None, problems
    if op == "memwrite":
        return MemWrite(bytes=size, buffer_bytes=buffer, wcet_ns=wcet), []
    return IoWrite(bytes=size, buffer_bytes=buffer, wcet_ns=wcet, device=device), []
