"""Traces of rtsched runs (docs/trace-format.md): the reader and the event types.

    from rtsched.trace import read_trace, EventType
    trace = read_trace("out/trace.rtst")
    releases = trace.events[trace.events["type"] == EventType.RELEASE]
"""

from rtsched.trace.events import (
    EV_BOOST,
    EV_BUDGET_OVERRUN,
    EV_COMPLETE,
    EV_COND_BROADCAST,
    EV_COND_SIGNAL,
    EV_COND_WAIT,
    EV_COND_WAKE,
    EV_DEADLINE_MISS,
    EV_LOCK_ACQUIRE,
    EV_LOCK_BLOCKED,
    EV_LOCK_RELEASE,
    EV_LOCK_REQUEST,
    EV_MARKER,
    EV_RELEASE,
    EV_SLEEP,
    EV_START,
    EV_TASK_EXIT,
    EV_UNBOOST,
    RESERVED_FIRST,
    USER_FIRST,
    BlockCause,
    EventType,
    event_name,
)
from rtsched.trace.reader import (
    CPU_UNKNOWN,
    EVENT_DTYPE,
    Trace,
    TraceFormatError,
    parse_trace,
    read_trace,
)

__all__ = [
    "CPU_UNKNOWN",
    "EVENT_DTYPE",
    "EV_BOOST",
    "EV_BUDGET_OVERRUN",
    "EV_COMPLETE",
    "EV_COND_BROADCAST",
    "EV_COND_SIGNAL",
    "EV_COND_WAIT",
    "EV_COND_WAKE",
    "EV_DEADLINE_MISS",
    "EV_LOCK_ACQUIRE",
    "EV_LOCK_BLOCKED",
    "EV_LOCK_RELEASE",
    "EV_LOCK_REQUEST",
    "EV_MARKER",
    "EV_RELEASE",
    "EV_SLEEP",
    "EV_START",
    "EV_TASK_EXIT",
    "EV_UNBOOST",
    "RESERVED_FIRST",
    "USER_FIRST",
    "BlockCause",
    "EventType",
    "Trace",
    "TraceFormatError",
    "event_name",
    "parse_trace",
    "read_trace",
]
