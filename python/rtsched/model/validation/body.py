"""A task's ``body``: its actions in order, each a mapping of one key, and the rules of their
order: locks nest (no relock, unlock the innermost first, nothing held at the end of the job),
a condvar is used with its mutex held (innermost, to wait)."""

from __future__ import annotations

import re
from typing import Any

from rtsched.model.demand_format import parse_compute
from rtsched.model.model import (ACTIONS, Action, Activate, Affinity, Broadcast, Compute, Lock, SetSched, SetTaskgroup,
                                 Signal, Sleep, Unlock, Wait)
from rtsched.model.prem import parse_prem
from rtsched.model.validation.checker import Checker, Declared, suggest
from rtsched.model.validation.fields import ACTION_NAMES, BODY, FUTURE_ACTIONS
from rtsched.model.validation.servers import read_call
from rtsched.model.values import describe
from rtsched.model.writes import parse_write

__all__ = ["read_body"]

#: The locks held at a point of the body, innermost last: (resource, path of its lock).
Held = list[tuple[str, str]]

_SIGNALLING: dict[str, type[Wait | Signal | Broadcast]] = {"wait": Wait, "signal": Signal, "broadcast": Broadcast}

def read_body(c: Checker, value: Any, path: str, declared: Declared) -> list[Action] | None:
    items = BODY.read(c, value, path)
    if items is None or not items:
        return None
    actions: list[Action] = []
    ok = True
    held: Held = []
    for i, item in enumerate(items):
        action = _action(c, item, f"{path}[{i}]", held, declared)
        if action is None:
            ok = False
        else:
            actions.append(action)
    for res, where in held:
        c.error(path, f'"{res}" (locked at {where}) is still held at the end of the job: add unlock: {res}')
        ok = False
    return actions if ok else None


def _action(c: Checker, item: Any, apath: str, held: Held, declared: Declared) -> Action | None:
    """One action (None when it is wrong); lock, unlock and wait update ``held``."""
    if not isinstance(item, dict) or len(item) != 1:
        c.error(
            apath,
            "an action is a mapping with one key, such as {compute: 1ms} or {lock: r1}; "
            f"got {describe(item)}" + (f" with {len(item)} keys" if isinstance(item, dict) else ""),
        )
        return None
    ((op, arg),) = item.items()
    opath = f"{apath}.{op}"
    if op in FUTURE_ACTIONS:
        c.error(opath, FUTURE_ACTIONS[op])
        return None
    if op not in ACTIONS:
        c.error(opath, "unknown action" + suggest(str(op), ACTION_NAMES) + f" (actions: {', '.join(ACTION_NAMES)})")
        return None
    if op in ("memwrite", "iowrite"):
        return c.reported(parse_write(op, arg, opath))
    if op == "prem":
        return c.reported(parse_prem(arg, opath))
    if op == "call":
        return read_call(c, arg, opath, declared.servers)
    if op == "activate":  # its task is an event task of the set: checked once every task is read
        name = c.name(arg, opath)
        return Activate(name) if name is not None else None
    if op == "affinity":  # its CPUs are the platform's: checked once the platform is known (task.py)
        return _affinity(c, arg, opath)
    if op == "sched":  # its task's backend and policy: checked once the platform is known (task.py)
        return _set_sched(c, arg, opath)
    if op == "taskgroup":  # its task's backend and policy: checked once the platform is known (task.py)
        path = read_taskgroup(c, arg, opath)
        return SetTaskgroup(path) if path is not None else None
    if op == "compute" and isinstance(arg, dict):  # a varying demand
        return c.reported(parse_compute(arg, opath, c.base_dir))
    if op in ("compute", "sleep"):
        ns = c.duration(arg, opath)
        if ns is None:
            return None
        return Compute(ns) if op == "compute" else Sleep(ns)
    if op in ("lock", "unlock"):
        return _lock(c, op, arg, apath, opath, held, declared)
    return _condvar_op(c, op, arg, opath, held, declared)


def _affinity(c: Checker, arg: Any, opath: str) -> Affinity | None:
    """``affinity: [0, 1]``: a non-empty list of distinct CPU numbers (>= 0)."""
    if not isinstance(arg, list) or not arg:
        c.error(opath, f"expected a non-empty list of CPU numbers, such as [0] or [0, 1]; got {describe(arg)}")
        return None
    for k, cpu in enumerate(arg):
        if not isinstance(cpu, int) or isinstance(cpu, bool) or cpu < 0:
            c.error(f"{opath}[{k}]", f"expected a CPU number (an integer >= 0), got {describe(cpu)}")
            return None
    if len(set(arg)) != len(arg):
        c.error(opath, f"CPU {next(cpu for cpu in arg if arg.count(cpu) > 1)} is listed twice")
        return None
    return Affinity(tuple(sorted(arg)))


#: A cpu cgroup's path (docs/taskset.schema.json ``#/$defs/taskgroup``).
TASKGROUP_PATTERN = re.compile(r"/(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*)?")
TASKGROUP_MAX = 200


def read_taskgroup(c: Checker, arg: Any, opath: str) -> str | None:
    """A taskgroup: "/" or "/a/b", each part of letters, digits, ``_ . -`` not starting with a dot."""
    if not isinstance(arg, str) or len(arg) > TASKGROUP_MAX or not TASKGROUP_PATTERN.fullmatch(arg):
        c.error(opath, f'expected a cpu cgroup such as "/tg1" or "/tg1/tg11" ("/": the root; parts of letters, '
                       f"digits, _ . - not starting with a dot, at most {TASKGROUP_MAX} characters); got "
                       f"{describe(arg)}")
        return None
    return arg


_SCHED_POLICIES = ("fifo", "other", "batch", "idle")
#: The keys of a ``sched`` action's mapping (docs/taskset.schema.json ``#/$defs/sched``).
SCHED_KEYS = frozenset({"policy", "priority", "nice"})


def _set_sched(c: Checker, arg: Any, opath: str) -> SetSched | None:
    """``sched: {policy: fifo, priority: 30}``, ``{policy: other, nice: 5}``, ``{policy: idle}``."""
    if not isinstance(arg, dict):
        c.error(opath, f"expected a mapping such as {{policy: fifo, priority: 30}}; got {describe(arg)}")
        return None
    unknown = sorted(set(arg) - SCHED_KEYS)
    if unknown:
        c.error(f"{opath}.{unknown[0]}", "unknown key (keys: policy, priority, nice)")
        return None
    policy = arg.get("policy")
    if policy not in _SCHED_POLICIES:
        why = (" (a task keeps the SCHED_DEADLINE reservation it starts with, or has none)"
               if policy == "deadline" else "")
        c.error(f"{opath}.policy", f"expected one of {', '.join(_SCHED_POLICIES)}{why}; got {describe(policy)}")
        return None
    priority, nice = arg.get("priority"), arg.get("nice", 0)
    if policy == "fifo":
        if not isinstance(priority, int) or isinstance(priority, bool) or not 1 <= priority <= 99:
            c.error(f"{opath}.priority", f"SCHED_FIFO needs a priority in 1..99; got {describe(priority)}")
            return None
    elif priority is not None:
        c.error(f"{opath}.priority", f"policy {policy} has no real-time priority: remove it")
        return None
    if "nice" in arg and (policy not in ("other", "batch") or not isinstance(nice, int) or isinstance(nice, bool)
                          or not -20 <= nice <= 19):
        c.error(f"{opath}.nice", f"nice is -20..19, for policies other and batch only; got {describe(nice)} "
                                 f"for policy {policy}")
        return None
    return SetSched(policy, priority, nice)


def _lock(c: Checker, op: str, arg: Any, apath: str, opath: str, held: Held, declared: Declared) -> Action | None:
    """``lock`` or ``unlock`` of a resource, the locks nesting: no relock, the innermost unlocked first."""
    res = c.reference(arg, opath, declared.resources, "resource")
    if res is None:
        return None
    held_names = [r for r, _ in held]
    if op == "lock":
        if res in held_names:
            where = held[held_names.index(res)][1]
            c.error(opath, f'"{res}" is already held (locked at {where}): no relock')
            return None
        held.append((res, apath))
        return Lock(res)
    if res not in held_names:
        c.error(opath, f'unlock of "{res}", which is not held at this point')
        return None
    if held_names[-1] != res:
        inner, where = held[-1]
        c.error(
            opath,
            f'unlock of "{res}" out of order: "{inner}" (locked at {where}) '
            "is held inside it and must be unlocked first (locks nest)",
        )
        held[:] = [h for h in held if h[0] != res]
        return None
    held.pop()
    return Unlock(res)


def _condvar_op(c: Checker, op: str, arg: Any, opath: str, held: Held, declared: Declared) -> Action | None:
    """``wait``, ``signal`` or ``broadcast`` on a condvar, with its mutex held (innermost, to wait)."""
    cv = c.reference(arg, opath, declared.condvars, "condvar")
    if cv is None:
        return None
    mutex = declared.condvars[cv].mutex
    held_names = [r for r, _ in held]
    if mutex not in held_names:
        c.error(opath, f'{op} on "{cv}" without holding its mutex "{mutex}": lock "{mutex}" before')
        return None
    if op == "wait" and held_names[-1] != mutex:
        c.error(
            opath,
            f'wait on "{cv}" releases "{mutex}" while "{held_names[-1]}", locked inside '
            f'it, stays held: unlock "{held_names[-1]}" before waiting',
        )
        return None
    return _SIGNALLING[op](cv)
