"""rt-app events and what each becomes in an rtsched job body.

rt-app recognises an event by the *start* of its key, testing the names in
the order of :data:`RT_APP_EVENTS` (so ``run0``, ``run_end``, ``runtime2``,
``sleep1``, ``lockA`` are events, and ``runtime`` is not ``run``). Every
other key of a thread or phase is a property or, if rt-app does not know
it, ignored.

Each event becomes zero or more rtsched actions (docs/from-rtapp.md has the
table); ``mem`` and ``iorun``, which need the settings of ``global`` and a
WCET, are translated by writes.py, and ``fork`` (a launcher thread's) by
fork.py. Conditions and mutexes are collected in :class:`Names` so the
importer can declare them; a barrier is left as a marker that the importer
expands once it knows every thread that uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtsched.model.durations import format_duration
from rtsched.model.rtapp.reader import JObject, Member
from rtsched.model.values import describe

__all__ = ["RT_APP_EVENTS", "SUPPORTED_EVENTS", "SYNC_TO_ITSELF", "event_kind", "Names", "Problems", "translate_event"]

#: rt-app's event names, in the order rt-app tests them as key prefixes.
RT_APP_EVENTS = (  # rt-app master, rt-app/src/rt-app_parse_config.c, events[] (obj_is_event)
    "lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run",
    "timer", "suspend", "resume", "memrun", "mem", "iorun", "yield", "barrier", "fork",
    "sem_post", "sem_wait",
)

#: Why each refused event cannot be given rtsched's meaning.
REFUSED_EVENTS = {
    "memrun": "its reads, writes and pointer chases take as long as the caches make them, which their size "
              "does not say, and rtsched has no action that does them (mem, a write of N bytes with a wcet, "
              "is the nearest)",
}
SUPPORTED_EVENTS = frozenset(RT_APP_EVENTS) - set(REFUSED_EVENTS)

#: Why a ``sync`` whose signal no event task takes is refused (importer.link_activations).
SYNC_TO_ITSELF = ("it signals a condition and then waits on the same one; rtsched's condition signals are "
                  "counted, so the thread would take its own signal and not wait: a sync maps only when its "
                  "signal wakes a thread whose loop waits on the condition (an event task); else write the "
                  "handover with two conditions (signal one, wait on the other)")

#: The warning at a ``signal``: the one place where rt-app's condition and rtsched's differ.
SIGNAL_KEPT = ("rt-app's signal (pthread_cond_signal) is lost when no thread waits at that moment, rtsched's "
               "is kept for the next wait: a waiter that comes late runs at once here and waits for the next "
               "signal under rt-app (they agree while the waiter is always waiting first; sem_post and "
               "sem_wait are kept in both)")


def event_kind(key: str) -> str | None:
    """The rt-app event a key names (``run0`` -> ``run``, ``runtime2`` -> ``runtime``), or None."""
    for event in RT_APP_EVENTS:
        if key.startswith(event):
            return event
    return None


@dataclass
class Problems:
    """Errors and warnings, each starting with the position of the key it is about."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def error(self, member: Member | JObject, path: str, message: str) -> None:
        self.errors.append(f"{member.line}:{member.column}: {path}: {message}")

    def warn(self, member: Member | JObject, path: str, message: str) -> None:
        text = f"{member.line}:{member.column}: {path}: {message}"
        if text not in self.warnings:  # an event repeated by its phase's loop warns once
            self.warnings.append(text)


@dataclass
class Names:
    """The mutexes and condition variables the events name, in order of first use."""

    mutexes: dict[str, None] = field(default_factory=dict)
    cond_mutex: dict[str, tuple[str, str]] = field(default_factory=dict)  # cond -> (mutex, where)
    signalled: dict[str, str] = field(default_factory=dict)  # cond -> where first signalled

    def bind(self, cond: str, mutex: str, where: str) -> str | None:
        """Tie a condition to its mutex; the mutex it already has if it differs."""
        self.mutexes.setdefault(mutex, None)
        known = self.cond_mutex.setdefault(cond, (mutex, where))
        return None if known[0] == mutex else f'{known[0]}" at {known[1]}'


def _usec(value: Any, member: Member, path: str, problems: Problems) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        problems.error(member, path, f"expected an integer of microseconds, got {describe(value)}")
        return None
    if value < 0:
        problems.error(member, path, f"must be >= 0 microseconds, got {value}")
        return None
    return value


def _name(value: Any, member: Member, path: str, problems: Problems) -> str | None:
    if not isinstance(value, str) or not value:
        problems.error(member, path, f"expected a name, got {describe(value)}")
        return None
    return value


def translate_event(kind: str, member: Member, path: str, *, thread: str, policy: str,
                    names: Names, problems: Problems) -> list[dict[str, Any]] | None:
    """The actions for one event (possibly none), or None after reporting an error."""
    value = member.value
    if kind in REFUSED_EVENTS:
        problems.error(member, path, f'rt-app event "{kind}" is not supported: {REFUSED_EVENTS[kind]}')
        return None
    if kind in ("run", "runtime", "sleep"):
        us = _usec(value, member, path, problems)
        if us is None:
            return None
        if us == 0:
            problems.warn(member, path, f"{kind} of 0 us does nothing: left out")
            return []
        return [{"sleep" if kind == "sleep" else "compute": format_duration(us * 1000)}]
    if kind in ("lock", "unlock"):
        mutex = _name(value, member, path, problems)
        if mutex is None:
            return None
        names.mutexes.setdefault(mutex, None)
        return [{kind: mutex}]
    if kind in ("signal", "broad"):
        cond = _name(value, member, path, problems)
        if cond is None:
            return None
        names.signalled.setdefault(cond, member.where)
        if kind == "signal":  # the importer makes it an activation, or warns (SIGNAL_KEPT)
            return [{"signal": cond, "_at": (member, path)}]
        return [{"broadcast": cond}]
    if kind in ("wait", "sync"):
        if not isinstance(value, JObject):
            problems.error(member, path, f'expected {{"ref": condition, "mutex": mutex}}, got {describe(value)}')
            return None
        ref, lock = value.get("ref"), value.get("mutex")
        cond = _name(ref.value if ref is not None else None, member, f"{path}.ref", problems)
        mutex = _name(lock.value if lock is not None else None, member, f"{path}.mutex", problems)
        if cond is None or mutex is None:
            return None
        clash = names.bind(cond, mutex, member.where)
        if clash:
            problems.error(member, f"{path}.mutex", f'condition "{cond}" is used with mutex "{clash}: an '
                           "rtsched condvar belongs to one mutex")
            return None
        if kind == "sync":  # rt-app: pthread_cond_signal, then pthread_cond_wait on the same condition
            names.signalled.setdefault(cond, member.where)
            return [{"signal": cond, "_at": (member, path), "_sync": True}, {"wait": cond}]
        return [{"wait": cond}]
    if kind in ("suspend", "resume"):
        # rt-app gives the name both a mutex and a condition: suspend waits on it, resume broadcasts it
        target = value if kind == "resume" or value else thread
        target = _name(target, member, path, problems)
        if target is None:
            return None
        clash = names.bind(target, target, member.where)
        if clash:
            problems.error(member, path, f'condition "{target}" is used with mutex "{clash}: an rtsched '
                           "condvar belongs to one mutex")
            return None
        if kind == "suspend":
            return [{"lock": target}, {"wait": target}, {"unlock": target}]
        names.signalled.setdefault(target, member.where)
        return [{"lock": target}, {"broadcast": target}, {"unlock": target}]
    if kind in ("sem_post", "sem_wait"):
        # a POSIX semaphore, count 0 at the start: exactly a condition whose signals are counted
        sem = _name(value, member, path, problems)
        if sem is None:
            return None
        cond = f"sem.{sem}"  # rt-app's semaphores have names of their own, apart from mutexes and conditions
        clash = names.bind(cond, cond, member.where)
        if clash:
            problems.error(member, path, f'condition "{cond}" is used with mutex "{clash}: an rtsched '
                           "condvar belongs to one mutex")
            return None
        if kind == "sem_wait":
            return [{"lock": cond}, {"wait": cond}, {"unlock": cond}]
        names.signalled.setdefault(cond, member.where)
        return [{"lock": cond}, {"signal": cond}, {"unlock": cond}]
    if kind == "yield":
        if policy == "deadline":
            problems.error(member, path, "yield of a SCHED_DEADLINE thread gives up the rest of its runtime "
                           "until the next period: rtsched has no such action")
            return None
        problems.warn(member, path, "yield left out: rtsched has no yield action (it only lets a thread of "
                      "the same priority on the same CPU run first)")
        return []
    if kind == "barrier":
        barrier = _name(value, member, path, problems)
        if barrier is None:
            return None
        return [{"_barrier": barrier, "_where": member.where}]
    raise AssertionError(kind)  # pragma: no cover - timer: the importer; mem, iorun: writes.py; fork: fork.py
