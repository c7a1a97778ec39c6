"""rt-app threads without a timer (self-paced loops) -> rtsched ``self-paced`` tasks.

A self-paced thread starts each loop the moment the last one ended, so its
pace is the length of its loop: the sum of its runs and sleeps. Written as
leading sleeps L, then a body B (from the first non-sleep event to the last),
then trailing sleeps T, the thread does L B T L B T ... = L, B, (T+L), B, ...:
an rtsched ``self-paced`` task with offset L, job body B and least gap
(period) L + |B| + T: job k+1 is released when job k completes, but not before
release k + period. The two agree as long as every loop takes no longer than
its runs and sleeps; after a loop that took longer (preempted, or blocked on a
lock), rt-app sleeps T + L after the late end, while rtsched releases the next
job at that end (or at its least gap, if later): up to T + L earlier. A loop
with no sleep at all (L + T = 0) is exact: both start the next loop at the
last one's end.

A loop that waits at a ``barrier`` or ``sem_wait`` stays self-paced: the wait
is part of its job (exact with rtsched's counted signals, importer.py), and
its next loop starts when the last one ends; its deadline counts the loops of
the threads it waits for (deadlines.py). A loop woken by a ``suspend`` or
``wait`` is an event task instead (woken.py). A loop with ``mem`` or ``iorun`` is
exact when it has no sleep at its ends (the next loop starts at the last
one's end in both; the least gap counts its runs and sleeps, not the writes,
whose length the file bounds only from above); with one it is refused: its
pace would depend on how long its writes take.

The time units are rt-app's: microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtsched.model.durations import format_duration, parse_duration
from rtsched.model.rtapp.events import Problems
from rtsched.model.rtapp.reader import Member
from rtsched.model.rtapp.writes import WRITE_EVENTS

__all__ = ["Pace", "self_paced"]


@dataclass(frozen=True)
class Pace:
    """What a self-paced loop becomes: its period, its offset and its job body."""

    period_us: int
    lead_us: int  # the sleeps before the first other event: the offset
    body: list[dict[str, Any]]  # without the leading and trailing sleeps


def _sleep_us(action: dict[str, Any]) -> int | None:
    return parse_duration(action["sleep"]) // 1000 if "sleep" in action else None


def _length_us(action: dict[str, Any]) -> int:
    for key in ("sleep", "compute"):
        if key in action:
            return parse_duration(action[key]) // 1000
    return 0  # lock, unlock, signal, broadcast: no length of their own


def self_paced(events: list[tuple[str, Member, str]], body: list[dict[str, Any]], where: Member, path: str,
               problems: Problems) -> Pace | None:
    """The periodic task of a loop with no timer (``events``, translated into ``body``), or None
    after reporting why it cannot be one."""
    lead = 0
    while lead < len(body) and _sleep_us(body[lead]) is not None:
        lead += 1
    trail = len(body)
    while trail > lead and _sleep_us(body[trail - 1]) is not None:
        trail -= 1
    writes = [(kind, m, p) for kind, m, p in events if kind in WRITE_EVENTS]
    if writes and (lead or trail < len(body)):
        for kind, member, event_path in writes:
            problems.error(member, event_path, f'no timer, and "{kind}" is part of a loop that starts or ends with '
                           "a sleep: the loop's pace then depends on how long the write takes, which the file "
                           "does not give (a wcet bounds it from above, while the least gap needs the fastest "
                           "pace); give the loop a timer event {\"ref\": ..., \"period\": ...} as its last "
                           "event, or no sleep at its ends")
        return None
    job = body[lead:trail]
    if not any(op in action for action in job for op in ("compute", "memwrite", "iowrite")):
        problems.error(where, path, "no timer and nothing to run: a loop of sleeps only gives no job")
        return None
    lead_us = sum(_length_us(a) for a in body[:lead])
    gap_us = lead_us + sum(_length_us(a) for a in body[trail:])
    period_us = sum(_length_us(a) for a in body)
    problems.warn(where, path, f"no timer: the self-paced loop becomes a self-paced task (next job at the "
                  f"last one's end) of least gap {format_duration(period_us * 1000)} (its runs and sleeps)"
                  + (f", offset by its first sleep {format_duration(lead_us * 1000)}" if lead_us else "")
                  + ("" if not gap_us else f"; it matches rt-app while every loop takes no longer than that, "
                     f"after a longer one rt-app sleeps {format_duration(gap_us * 1000)} after its end where "
                     "rtsched releases the next job at once (or at the least gap)"))
    return Pace(period_us=period_us, lead_us=lead_us, body=job)
