"""rt-app's ``mem`` and ``iorun`` events -> rtsched's ``memwrite`` and ``iowrite`` actions.

rt-app writes ``mem: N`` bytes into the thread's buffer of ``global.mem_buffer_size``
bytes (4 MiB by default), starting over at its start when N is larger, and
``iorun: N`` bytes to ``global.io_device`` (``/dev/null`` by default) with write(2),
in chunks of that buffer. rtsched does the same (docs/taskset.md "Memory and I/O
writes"), but its analysis and simulator need to know how long a write may take,
which its size does not say. So a thread or phase with such events gives their
WCETs in microseconds in a ``wcet`` object, keyed by the events' keys:

    "run": 1000, "mem": 1000, "iorun0": 100000,
    "wcet": {"mem": 20, "iorun0": 500},
    "timer": {"ref": "tick", "period": 10000}

rt-app reads only its events and properties and ignores ``wcet`` (no event name
starts it), so the file still runs under rt-app. A ``wcet`` on a thread with
phases gives the WCETs of its phases' events (a phase's own ``wcet`` first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtsched.model.durations import format_duration
from rtsched.model.model import IO_DEVICE_DEFAULT, WRITE_BUFFER_DEFAULT_BYTES
from rtsched.model.rtapp.events import Problems
from rtsched.model.rtapp.reader import JObject, Member
from rtsched.model.values import describe
from rtsched.model.writes import DEVICE_MAX_BYTES, WRITE_BUFFER_MAX_BYTES, WRITE_MAX_BYTES

__all__ = ["WRITE_EVENTS", "WriteSettings", "read_global_write_key", "read_wcets", "write_action"]

#: rt-app's write events.
WRITE_EVENTS = ("mem", "iorun")


@dataclass(frozen=True)
class WriteSettings:
    """rt-app's ``global.mem_buffer_size`` and ``global.io_device``, with rt-app's defaults."""

    buffer_bytes: int = WRITE_BUFFER_DEFAULT_BYTES
    device: str = IO_DEVICE_DEFAULT


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_global_write_key(member: Member, settings: WriteSettings, problems: Problems) -> WriteSettings:
    """``settings`` with ``global.mem_buffer_size`` or ``global.io_device`` (``member``) applied."""
    path, value = f"global.{member.key}", member.value
    if member.key == "mem_buffer_size":
        if not _int(value) or not 1 <= value <= WRITE_BUFFER_MAX_BYTES:
            problems.error(member, path, f"expected a buffer size of 1 to {WRITE_BUFFER_MAX_BYTES} bytes (rtsched's "
                           f"largest write buffer), got {describe(value)}")
            return settings
        return WriteSettings(value, settings.device)
    if not isinstance(value, str) or not value.startswith("/") or len(value.encode()) > DEVICE_MAX_BYTES:
        problems.error(member, path, f"expected an absolute path (at most {DEVICE_MAX_BYTES} bytes), got "
                       f"{describe(value)}: rt-app opens a relative one from where it runs, which the file does "
                       "not say")
        return settings
    return WriteSettings(settings.buffer_bytes, value)


def read_wcets(member: Member | None, path: str, write_keys: set[str], problems: Problems) -> dict[str, int]:
    """The ``wcet`` object (``member``) of a thread or phase: event key -> microseconds (> 0). Its keys
    must be keys of ``mem`` or ``iorun`` events it applies to (``write_keys``)."""
    if member is None:
        return {}
    if not isinstance(member.value, JObject):
        problems.error(member, path, f'expected an object {{"<mem or iorun key>": microseconds, ...}}, got '
                       f"{describe(member.value)}")
        return {}
    table: dict[str, int] = {}
    for m in member.value:
        mpath = f"{path}.{m.key}"
        if m.key not in write_keys:
            known = ", ".join(sorted(write_keys)) or "none here"
            problems.error(m, mpath, f'no mem or iorun event "{m.key}" to give a WCET to (its events: {known})')
        elif not _int(m.value) or m.value <= 0:
            problems.error(m, mpath, f"expected microseconds > 0, got {describe(m.value)}")
        else:
            table[m.key] = m.value
    return table


#: The WCET a write of a best-effort thread gets when the file gives none (never analysed).
BEST_EFFORT_WRITE_WCET_US = 1


def write_action(kind: str, member: Member, path: str, settings: WriteSettings, wcet_us: int | None,
                 problems: Problems, *, best_effort: bool = False) -> list[dict[str, Any]] | None:
    """The action for a ``mem`` or ``iorun`` event (none for 0 bytes), or None after reporting an error.
    A best-effort thread's write without a WCET gets BEST_EFFORT_WRITE_WCET_US (warning): its task is
    neither analysed nor simulated, and runs its writes for real."""
    value = member.value
    if not _int(value) or not 0 <= value <= WRITE_MAX_BYTES:
        problems.error(member, path, f"expected a number of bytes (0 to {WRITE_MAX_BYTES}), got {describe(value)}")
        return None
    if value == 0:
        problems.warn(member, path, f"{kind} of 0 bytes does nothing: left out")
        return []
    if wcet_us is None and best_effort:
        problems.warn(member, path, f"no WCET for this {kind}: {BEST_EFFORT_WRITE_WCET_US}us given, as its thread is "
                      "best-effort (SCHED_OTHER, SCHED_IDLE: neither analysed nor simulated; the run does the write "
                      f'for real); to analyse it under a real-time policy, add "wcet": {{"{member.key}": '
                      "MICROSECONDS}")
        wcet_us = BEST_EFFORT_WRITE_WCET_US
    if wcet_us is None:
        problems.error(member, path, f'rtsched needs the time this {kind} may take (its size does not say it): add '
                       f'"wcet": {{"{member.key}": MICROSECONDS}} to the same thread or phase (rt-app ignores '
                       "that key)")
        return None
    common = {"bytes": value, "buffer": settings.buffer_bytes, "wcet": format_duration(wcet_us * 1000)}
    if kind == "mem":
        return [{"memwrite": common}]
    return [{"iowrite": {"bytes": value, "device": settings.device, "buffer": settings.buffer_bytes,
                         "wcet": common["wcet"]}}]
