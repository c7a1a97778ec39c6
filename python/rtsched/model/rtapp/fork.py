"""rt-app's ``fork`` event: from a launcher thread of sleeps and forks, or from a thread that runs once.

``"fork": "worker"`` starts a new instance of the thread object ``worker`` (usually
declared with ``"instance": 0``, so that only forks start it) at the moment the
forking thread reaches the event. rtsched's task set is fixed when the run starts,
so a fork maps only when that moment is known before the run: the forking thread
is a *launcher* whose events are only ``sleep`` and ``fork``, without phases or a
timer, with a finite ``loop``. Its k-th fork (in order, over its loops and its
instances) happens at ``delay`` + the sleeps before it, and becomes a copy of the
forked thread's tasks named ``<task>-f<k>``, released that much later (added to
each task's offset). The launcher itself becomes no task (it runs nothing).

A fork in a thread that also runs, waits or locks (or has phases) happens when
that thread gets there, which depends on how it runs: such a thread must run
its loop once (``loop`` 1, one instance), so its one job reaches each fork once,
and each fork becomes an ``activate`` of a copy of the forked thread's task
(``<task>-f<k>``), which is ``started_by_activation``: its first job is released
by that activation, the later ones as its kind says from there, as rt-app's new
thread starts at the fork (docs/taskset.md "Task kinds").

Refused, with the reason: a fork in an endless loop (rt-app forks until its
limit and then exits), or in a thread that runs its loop more than once, of an
unknown thread, of a thread that itself forks, and of a thread that uses a
barrier (rt-app refuses that too: a barrier's number of users must be known).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtsched.model.rtapp.events import Problems, event_kind
from rtsched.model.rtapp.reader import JObject, Member
from rtsched.model.values import describe

__all__ = ["MAX_FORKS", "ForkPlan", "fork_plan"]

#: Forks a file may map to (each one a copy of a thread's tasks).
MAX_FORKS = 64


@dataclass
class ForkPlan:
    """The launcher threads (no task of their own) and, per forked thread, its forks' times (µs); the forks
    of threads that run once: per forked thread their numbers, and per fork event (by its member's id)
    the forked thread and the number of its copy (after the launchers' forks of it)."""

    launchers: set[str] = field(default_factory=set)
    forks_us: dict[str, list[int]] = field(default_factory=dict)
    started: dict[str, list[int]] = field(default_factory=dict)
    marks: dict[int, tuple[str, int]] = field(default_factory=dict)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _events(obj: JObject) -> list[tuple[str, Member]]:
    return [(kind, m) for m in obj if (kind := event_kind(m.key)) is not None]


def _phase_events(obj: JObject) -> list[tuple[str, Member, str]]:
    """Every event in the thread's phases, with the phase's name."""
    phases = obj.get("phases")
    if phases is None or not isinstance(phases.value, JObject):
        return []
    return [(kind, m, ph.key) for ph in phases.value if isinstance(ph.value, JObject) for kind, m in _events(ph.value)]


def _forks(obj: JObject) -> bool:
    return any(kind == "fork" for kind, _ in _events(obj)) or any(kind == "fork" for kind, _, _ in _phase_events(obj))


def _count(obj: JObject, key: str, path: str, problems: Problems, *, default: int, what: str) -> int | None:
    member = obj.get(key)
    if member is None:
        return default
    if not _int(member.value) or member.value < 0:
        problems.error(member, f"{path}.{key}", f"expected {what}, got {describe(member.value)}")
        return None
    return int(member.value)


def _launcher(obj: JObject) -> bool:
    """Only sleeps and forks, without phases: its forks' times are known before the run."""
    return obj.get("phases") is None and all(kind in ("sleep", "fork") for kind, _ in _events(obj))


def _running_forks(member: Member, names: set[str], problems: Problems) -> list[Member] | None:
    """The fork events of a thread that also runs (each an activation), in order; None after an error."""
    obj, path = member.value, f"tasks.{member.key}"
    assert isinstance(obj, JObject)
    forks = [m for kind, m in _events(obj) if kind == "fork"] if obj.get("phases") is None else \
        [m for kind, m, _ in _phase_events(obj) if kind == "fork"]
    ok = True
    for m in forks:
        if not isinstance(m.value, str) or m.value not in names:
            problems.error(m, f"{path}.{m.key}", f"fork of {describe(m.value)}: no such thread in tasks")
            ok = False
    loop_member, instance = obj.get("loop"), obj.get("instance")
    if loop_member is None or loop_member.value != 1 or (instance is not None and instance.value not in (0, 1)):
        got = "none (rt-app's default, -1)" if loop_member is None else describe(loop_member.value)
        problems.error(loop_member or member, f"{path}.loop", f"a thread that runs and forks must run its loop "
                       f"once (loop 1, one instance), got loop {got}: its one job then reaches each fork once, "
                       "and each fork starts a copy of the forked thread's task when it gets there")
        ok = False
    return forks if ok else None


def _launch_times(member: Member, names: set[str], problems: Problems) -> list[tuple[str, int]] | None:
    """(forked thread, time in µs) of each fork of a launcher thread, in order; None after an error."""
    obj, path = member.value, f"tasks.{member.key}"
    assert isinstance(obj, JObject)
    ok = True
    events = _events(obj)
    for kind, m in events:
        if kind == "sleep" and (not _int(m.value) or m.value < 0):
            problems.error(m, f"{path}.{m.key}", f"expected microseconds >= 0, got {describe(m.value)}")
            ok = False
        elif kind == "fork" and (not isinstance(m.value, str) or m.value not in names):
            problems.error(m, f"{path}.{m.key}", f"fork of {describe(m.value)}: no such thread in tasks")
            ok = False
    loop_member = obj.get("loop")
    if loop_member is None or not _int(loop_member.value) or loop_member.value < 1:
        got = "none (rt-app's default, -1)" if loop_member is None else describe(loop_member.value)
        problems.error(loop_member or member, f"{path}.loop", f"a launcher needs a finite loop (> 0), got {got}: "
                       "rt-app would fork until its fork limit and then exit")
        ok = False
    delay = _count(obj, "delay", path, problems, default=0, what="microseconds >= 0")
    instances = _count(obj, "instance", path, problems, default=1, what="a thread count >= 0")
    if not ok or delay is None or instances is None:
        return None
    assert loop_member is not None
    times: list[tuple[str, int]] = []
    for _instance in range(instances):  # every instance of the launcher forks at the same times
        at_us = delay
        for _loop in range(int(loop_member.value)):
            for kind, m in events:
                if kind == "sleep":
                    at_us += m.value
                else:
                    times.append((m.value, at_us))
    return times


def fork_plan(threads: JObject, problems: Problems) -> ForkPlan:
    """Which threads launch which, and when; every refused fork is reported."""
    plan = ForkPlan()
    names = {m.key for m in threads}
    forking = [m for m in threads if isinstance(m.value, JObject) and _forks(m.value)]
    launcher_names = {m.key for m in forking}
    all_forks: list[tuple[str, int, Member]] = []
    running: list[tuple[Member, Member]] = []  # (forking thread, fork event)
    for member in forking:
        assert isinstance(member.value, JObject)
        if _launcher(member.value):
            times = _launch_times(member, names, problems)
            plan.launchers.add(member.key)
            all_forks += [(name, at, member) for name, at in times or []]
        else:
            running += [(member, m) for m in _running_forks(member, names, problems) or []]
    all_forks += [(str(m.value), -1, member) for member, m in running]
    for name, at, member in all_forks:
        target = threads.get(name)
        assert target is not None  # _launch_times checked the name
        if name in launcher_names:
            problems.error(member, f"tasks.{member.key}", f'fork of "{name}", which forks itself: only one level '
                           "of forks maps (a launcher's forks are its own threads' copies)")
            return plan
        if isinstance(target.value, JObject):
            barriers = [(k, m) for k, m in _events(target.value) if k == "barrier"]
            barriers += [(k, m) for k, m, _ in _phase_events(target.value) if k == "barrier"]
            if barriers:
                problems.error(barriers[0][1], f"tasks.{name}", "a forked thread cannot use a barrier (rt-app "
                               "refuses it too: a barrier's number of users must be known)")
                return plan
        if at >= 0:
            plan.forks_us.setdefault(name, []).append(at)
    for _, m in running:  # numbered after the launchers' forks of the same thread
        name = str(m.value)
        k = len(plan.forks_us.get(name, ())) + len(plan.started.get(name, ()))
        plan.started.setdefault(name, []).append(k)
        plan.marks[id(m)] = (name, k)
    if len(all_forks) > MAX_FORKS:
        problems.error(forking[0], f"tasks.{forking[0].key}", f"{len(all_forks)} forks, each a copy of a thread's "
                       f"tasks (at most {MAX_FORKS})")
    return plan
