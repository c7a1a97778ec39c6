"""Helper of the lock tests: the order in which a trace's tasks asked for and took one mutex."""

from __future__ import annotations

from rtsched.trace import EventType as EV

__all__ = ["acquisitions"]


def acquisitions(trace, resource: int) -> list[tuple[str, list[str]]]:
    """Per LOCK_ACQUIRE of ``resource`` in time order: (the task that took it, the tasks that
    had asked for it and not taken it yet, in the order of their LOCK_REQUESTs, the taker
    among them)."""
    names = {int(s["stream_id"]): s["name"] for s in trace.streams}
    waiting: list[str] = []
    out = []
    for ev in trace.events:  # sorted by time, stable
        if int(ev["arg0"]) != resource:
            continue
        name = names[int(ev["stream"])]
        if ev["type"] == EV.LOCK_REQUEST:
            waiting.append(name)
        elif ev["type"] == EV.LOCK_ACQUIRE:
            out.append((name, list(waiting)))
            waiting.remove(name)
    return out
