"""rt-app threads without a timer (self-paced loops) -> periodic rtsched tasks, where that is honest.

A self-paced thread starts each loop the moment the last one ended, so its
pace is the length of its loop: the sum of its runs and sleeps. Written as
leading sleeps L, then a body B (from the first non-sleep event to the last),
then trailing sleeps T, the thread does L B T L B T ... = L, B, (T+L), B, ...:
exactly an rtsched task with offset L, job body B and period L + |B| + T,
released while the last job's gap of T + L goes by. The two agree as long as
every loop takes no longer than its runs and sleeps; after a loop that took
longer (preempted, or blocked on a lock), rt-app starts the next one late and
keeps that delay, while rtsched's next release stays on the grid: rtsched's
task is the thread at its fastest pace, the most it can demand.

That holds only when the loop's length is known from the file: a loop that
waits for another thread (``wait``, ``suspend``, ``barrier``, ``sem_wait``) is paced by that
thread, a loop with ``mem`` or ``iorun`` is paced by how long its writes
take (the file bounds that only from above), and a loop with no sleep at its
start or end (L + T = 0) would meet every release exactly at the end of its
previous job; all three are refused.

The time units are rt-app's: microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtsched.model.durations import format_duration, parse_duration
from rtsched.model.rtapp.events import Problems
from rtsched.model.rtapp.reader import Member
from rtsched.model.rtapp.writes import WRITE_EVENTS

__all__ = ["PACED_BY_OTHERS", "Pace", "self_paced"]

#: Events that make a loop wait for another thread, and so take that thread's pace.
PACED_BY_OTHERS = ("wait", "suspend", "barrier", "sem_wait")


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
    waits = [(kind, m, p) for kind, m, p in events if kind in PACED_BY_OTHERS]
    for kind, member, event_path in waits:
        problems.error(member, event_path, f'no timer, and "{kind}" makes the loop wait for another thread: '
                       "its pace is that thread's, not a period rtsched can release it at; give the loop a "
                       'timer event {"ref": ..., "period": ...} as its last event')
    writes = [(kind, m, p) for kind, m, p in events if kind in WRITE_EVENTS]
    for kind, member, event_path in writes:
        problems.error(member, event_path, f'no timer, and "{kind}" is part of the loop: the loop\'s pace then '
                       "depends on how long the write takes, which the file does not give (a wcet bounds it "
                       "from above, while a period needs the fastest pace); give the loop a timer event "
                       '{"ref": ..., "period": ...} as its last event')
    if waits or writes:
        return None
    lead = 0
    while lead < len(body) and _sleep_us(body[lead]) is not None:
        lead += 1
    trail = len(body)
    while trail > lead and _sleep_us(body[trail - 1]) is not None:
        trail -= 1
    job = body[lead:trail]
    if not any("compute" in action for action in job):
        problems.error(where, path, "no timer and nothing to run: a loop of sleeps only gives no job")
        return None
    lead_us = sum(_length_us(a) for a in body[:lead])
    gap_us = lead_us + sum(_length_us(a) for a in body[trail:])
    if gap_us == 0:
        problems.error(where, path, "no timer, and the loop neither starts nor ends with a sleep: each loop "
                       "starts the instant the last one ends, which no periodic release matches (it would "
                       "meet each job exactly at its end); end the loop with its sleep, or give it a timer")
        return None
    period_us = sum(_length_us(a) for a in body)
    problems.warn(where, path, f"no timer: the self-paced loop becomes a task of period "
                  f"{format_duration(period_us * 1000)} (its runs and sleeps)"
                  + (f", offset by its first sleep {format_duration(lead_us * 1000)}" if lead_us else "")
                  + "; it matches rt-app while every loop takes no longer than that, after a longer one rt-app "
                  "starts late and stays late where rtsched keeps the period")
    return Pace(period_us=period_us, lead_us=lead_us, body=job)
