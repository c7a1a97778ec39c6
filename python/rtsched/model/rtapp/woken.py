"""rt-app threads without a timer whose loop waits for another thread -> rtsched ``event`` tasks.

rt-app's ``suspend NAME`` is ``pthread_cond_wait`` on NAME's condition, and
``resume NAME`` a ``pthread_cond_broadcast`` of it under NAME's mutex
(rt-app/src/rt-app.c, ``run_event``); ``wait {ref, mutex}`` waits on the
condition ``ref`` (its mutex held by a ``lock`` before it), ``signal`` and
``broad`` wake one waiter or all. Either way a wake-up that finds the thread
not waiting (it runs its loop) is lost. That is an rtsched event task with
``activation_queue`` 0: each ``resume``/``signal``/``broad`` of the condition
from another thread becomes an ``activate`` of the task (the importer's
``link_activations``), which releases a job if the task waits and is lost
otherwise.

Write the loop as P, W, R: the events before the first ``suspend`` or
``wait`` (W), W, and the events after it. The thread does P W R P W R ... =
P, (W R P)*: a job R + P after each wake-up. So the event task's job body is
R + P, and when P is not empty the thread runs P before it first waits:
``activated_at_start``, its first job released at the thread's ``delay``
(which is then P alone). A loop where both P and R have events, or that
starts with W after a ``delay`` (it waits only after the delay), has no such
job: it is a self-paced task whose waits stay in its job, exact for
``resume`` and ``broad``, which wake only the threads waiting then. Around a
``wait``, its ``lock`` (the last event of P) is the mutex the wait releases:
the job starts by taking it again (``lock``) as ``pthread_cond_wait`` does on
its way out, and R's ``unlock`` releases it.

Later ``suspend``/``wait`` events in the loop stay condition waits in the job
(a ``resume`` or ``broad`` wakes only current waiters in both; a ``signal``
sent before such a wait is kept by rtsched: the importer warns at it).
``barrier`` and ``sem_wait`` are not wake-ups of this kind: they are exact
with rtsched's counted signals, and a loop with only those is self-paced.

The least time between releases (the task's period, for the analysis) is the
job's runs and sleeps: an activation that comes while a job runs is lost, so
two jobs never start closer than one job's length, which is at least that.
Its deadline, the least time between its activations, needs the whole set
(deadlines.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtsched.model.durations import format_duration, parse_duration
from rtsched.model.rtapp.events import Names, Problems
from rtsched.model.rtapp.reader import Member

__all__ = ["WAKE_UPS", "Woken", "woken"]

#: Events whose first occurrence in a loop without a timer makes the thread an event task.
WAKE_UPS = ("suspend", "wait")


@dataclass(frozen=True)
class Woken:
    """What a loop woken by others becomes: its job body, the condition whose wake-ups release it,
    whether it runs a first job unasked, and its least gap."""

    body: list[dict[str, Any]]
    condition: str
    event: str  # suspend or wait
    activated_at_start: bool
    period_us: int


def _length_us(action: dict[str, Any]) -> int:
    """What an action surely takes: a run or sleep its length; a write nothing known (its wcet bounds it
    from above), a wait or an activation nothing."""
    for key in ("sleep", "compute"):
        if key in action:
            return parse_duration(action[key]) // 1000
    return 0


def woken(pieces: list[tuple[str, Member, str, list[dict[str, Any]]]], *, delay_us: int, names: Names,
          problems: Problems) -> Woken | None:
    """The event task of a loop with no timer whose first wake-up event is in ``pieces`` (each event with
    its actions), or None when it is none: a self-paced loop with its waits in its job (warned), or an
    error in the event's value (reported where it was translated)."""
    w = next(i for i, (kind, _, _, _) in enumerate(pieces) if kind in WAKE_UPS)
    kind, member, path, actions = pieces[w]
    condition = next((a["wait"] for a in actions if "wait" in a), None)
    if condition is None:
        return None
    before = [a for _, _, _, acts in pieces[:w] for a in acts]
    after = [a for _, _, _, acts in pieces[w + 1:] for a in acts]
    retake: list[dict[str, Any]] = []
    if kind == "wait":
        mutex = names.cond_mutex[condition][0]
        if before and before[-1] == {"lock": mutex}:
            before = before[:-1]  # the mutex pthread_cond_wait releases, and takes again on its way out
            retake = [{"lock": mutex}]
    if (before and after) or (not before and delay_us):
        why = (f'events both before and after its first "{kind}" (it runs the ones before once, then after '
               "each wake-up the ones after it and the ones before: no one job body)" if before else
               f'a delay before its first "{kind}" (it waits only after it, an event task from the start)')
        problems.warn(member, path, f"no timer, and the loop has {why}: a self-paced task, its waits inside its "
                      "job (a resume or broad wakes only the threads waiting then, in both; a signal: see its "
                      "warning); each job is one loop, its response counted from the last loop's end")
        return None
    body = retake + after + before
    period_us = max(sum(_length_us(a) for a in body), 1)
    woken_by = {"suspend": f'"resume": "{condition}"',
                "wait": f'"signal" or "broad" of "{condition}"'}[kind]
    problems.warn(member, path, f'no timer, and the loop waits at this "{kind}": an event task, each job '
                  f"released by a {woken_by} from another thread while it waits (one that finds it running "
                  "is lost, as in rt-app)" + (", its first job at the start (the events before the "
                  f'"{kind}")' if before else "") + f"; least gap {format_duration(period_us * 1000)} (the "
                  "job's runs and sleeps) for the analysis")
    return Woken(body=body, condition=condition, event=kind, activated_at_start=bool(before), period_us=period_us)
