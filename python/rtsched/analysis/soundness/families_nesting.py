"""Families for the corners of issue 35 that ``families`` never draws (uniprocessor FP, in ticks).

- :func:`nested_mixed` — a low task whose section under ``none`` or ``pip``
  holds an inner section under another protocol (``ipcp``, ``srp``, ``pcp``,
  ``pip``), a high task that locks the inner resource, and a medium task
  that locks neither: the holder of the inner resource may run at its
  ceiling (or inherit) and delay the medium task.
- :func:`repeated_requests` — jobs that request one resource two or three
  times (sections apart), with several lower-priority users of it at
  distinct priorities, so that a lower job can be waiting for the resource
  when a higher one releases it (a ``none`` or ``pip`` lock is handed to its
  most urgent waiter); a medium task that locks nothing, and a short-period
  top user, put several requests of higher jobs in a medium task's window.
- :func:`repeated_calls` — clients calling one server twice in a job
  (``picv-rpc``), with several lower clients of the same server.

Like ``families``, the sets are small (3–5 tasks, periods 2–16 ticks) with
high utilization, and nothing here knows any test's bound: the sets only
put the protocols' situations within reach; the explorer's rules decide
what runs.

:func:`blocking_chains` gives the release patterns these situations need,
tried on every set before the random scenarios: the longest blocking chains
arise when the tasks that lock arrive from the lowest priority up, each a
tick or two after the one below (it has taken its lock, or reached its
request and waits, when the next preempts it: Sha, Rajkumar and Lehoczky's
chain of blockings under PIP), and the tasks that lock nothing arrive at the
start, or with the top of the chain (a medium task's critical instant).
"""

from __future__ import annotations

import itertools
import random
from typing import Iterator

from rtsched.analysis.soundness.model import (
    CALL, EXEC, LOCK, SLEEP, UNLOCK, Job, Op, Scenario, SystemModel, TaskModel)

__all__ = ["nested_mixed", "repeated_requests", "repeated_calls", "blocking_chains", "OUTER_PROTOCOLS",
           "INNER_PROTOCOLS"]

#: The outer protocols of a nested section (no ceiling: the holder keeps its priority until the inner lock).
OUTER_PROTOCOLS = ("none", "pip")
#: The inner protocols (a ceiling protocol, or inheritance).
INNER_PROTOCOLS = ("ipcp", "srp", "pcp", "pip")


def _section(r: str, n: int) -> tuple[Op, ...]:
    return ((LOCK, r), (EXEC, n), (UNLOCK, r))


def _exec(n: int) -> tuple[Op, ...]:
    return ((EXEC, n),) if n > 0 else ()


def _task(name: str, body: tuple[Op, ...], priority: int, rng: random.Random, load: float,
          deadline_share: float = 1.0) -> TaskModel:
    """A task for ``body``: a period making it about ``load`` of the processor, D in [C + S, T]."""
    demand = sum(v for k, v in body if k in (EXEC, SLEEP)) + sum(v[1] for k, v in body if k == CALL)
    period = max(demand + 1, min(16, round(demand / max(load, 0.05)) + rng.randint(0, 2)))
    deadline = max(demand, min(period, round(period * deadline_share)))
    return TaskModel(name, period, deadline, body, priority)


def nested_mixed(rng: random.Random) -> SystemModel:
    """A low task's ``none``/``pip`` section holding an inner section under another protocol; a high
    user of the inner resource; a medium task that locks neither; sometimes another task anywhere."""
    outer = rng.choice(OUTER_PROTOCOLS)
    inner = rng.choice(INNER_PROTOCOLS)
    before, inside, after = rng.randint(0, 2), rng.randint(1, 3), rng.randint(0, 1)
    low_body = (_exec(rng.randint(0, 1)) + ((LOCK, "a"),) + _exec(before) + _section("b", inside) + _exec(after)
                + ((UNLOCK, "a"),))
    high_body = _exec(rng.randint(0, 1)) + _section("b", rng.randint(1, 2))
    mid_body = _exec(rng.randint(1, 2))
    tasks = [_task("h", high_body, 4, rng, rng.uniform(0.15, 0.35)),
             _task("m", mid_body, 3, rng, rng.uniform(0.15, 0.35), rng.uniform(0.3, 1.0)),
             _task("l", low_body, 1, rng, rng.uniform(0.2, 0.4))]
    if rng.random() < 0.5:  # another user of the outer resource, or a plain task, somewhere
        body = _section("a", rng.randint(1, 2)) if rng.random() < 0.5 else _exec(rng.randint(1, 2))
        tasks.append(_task("x", body, rng.choice((2, 5)), rng, rng.uniform(0.05, 0.2)))
    return SystemModel(tuple(tasks), "FP", 1, {"a": outer, "b": inner})


def repeated_requests(rng: random.Random, protocols: tuple[str, ...] = ("pip", "none")) -> SystemModel:
    """A top user of ``r`` that requests it two or three times in a job; two or three lower users of it at
    distinct priorities (one sometimes requesting it twice too, or sleeping inside its section, which lets
    an equal-priority user reach the lock under ``none``); sometimes a medium task locking nothing."""
    protocol = rng.choice(protocols)
    requests = rng.choice((2, 2, 3))
    top: tuple[Op, ...] = ()
    for k in range(requests):
        top += _section("r", rng.randint(1, 2)) + (_exec(rng.randint(0, 1)) if k < requests - 1 else ())
    tasks = [_task("h", top, 6, rng, rng.uniform(0.2, 0.45), rng.uniform(0.6, 1.0))]
    if protocol == "pip" and rng.random() < 0.6:
        tasks.append(_task("m", _exec(rng.randint(1, 2)), 5, rng, rng.uniform(0.1, 0.3), rng.uniform(0.5, 1.0)))
    lows = rng.randint(2, 3)
    equal = protocol == "none"  # a plain mutex with a task between holder and waiter is refused as unbounded
    for k in range(lows):  # the lowest locks at once; the others run a tick first (preempting it, then waiting)
        body = _exec(0 if k == lows - 1 else 1) + ((LOCK, "r"),) + _exec(rng.randint(1, 3))
        if equal and rng.random() < 0.7:
            body += ((SLEEP, rng.randint(1, 2)),) + _exec(rng.randint(0, 1))
        body += ((UNLOCK, "r"),)
        if rng.random() < 0.3:
            body += _exec(rng.randint(0, 1)) + _section("r", 1)
        tasks.append(_task(f"l{k + 1}", body, 1 if equal else 4 - k, rng, rng.uniform(0.1, 0.3)))
    return SystemModel(tuple(tasks), "FP", 1, {"r": protocol})


def repeated_calls(rng: random.Random) -> SystemModel:
    """A client calling server ``S`` two or three times in a job; two or three lower clients of ``S``;
    sometimes a medium task that calls nothing, or a call to a second server ``V``."""
    calls = rng.choice((2, 2, 3))
    top: tuple[Op, ...] = _exec(rng.randint(0, 1))
    for k in range(calls):
        top += ((CALL, ("S", rng.randint(1, 2))),) + (_exec(rng.randint(0, 1)) if k < calls - 1 else ())
    tasks = [_task("c", top, 6, rng, rng.uniform(0.2, 0.45), rng.uniform(0.6, 1.0))]
    if rng.random() < 0.5:
        tasks.append(_task("m", _exec(rng.randint(1, 2)), 5, rng, rng.uniform(0.1, 0.3), rng.uniform(0.5, 1.0)))
    lows = rng.randint(2, 3)
    for k in range(lows):  # as in repeated_requests: the lowest calls at once, the others after a tick
        body: tuple[Op, ...] = _exec(0 if k == lows - 1 else 1) + ((CALL, ("S", rng.randint(1, 3))),)
        if rng.random() < 0.3:
            body += ((CALL, (rng.choice(("S", "V")), 1)),)
        tasks.append(_task(f"l{k + 1}", body, 4 - k, rng, rng.uniform(0.1, 0.3)))
    return SystemModel(tuple(tasks), "FP", 1, {})


def blocking_chains(model: SystemModel, horizon: int) -> Iterator[Scenario]:
    """Periodic scenarios whose first releases climb the priorities of the tasks that lock or call.

    The k-th such task (from the lowest priority) first arrives 1 or 2 ticks after the (k−1)-th, every
    combination of gaps (at most 16); the other tasks at 0 or with the last of the chain. Full bodies.
    """
    lockers = sorted((t for t in model.tasks if any(k in (LOCK, CALL) for k, _ in t.body)),
                     key=lambda t: (t.priority, t.name))
    others = [t for t in model.tasks if t not in lockers]
    for gaps in itertools.product((1, 2), repeat=min(4, max(0, len(lockers) - 1))):
        first = [0]
        for k in range(1, len(lockers)):
            first.append(first[-1] + (gaps[k - 1] if k - 1 < len(gaps) else 1))
        for at_top in ((False, True) if others else (False,)):
            offsets = {t.name: o for t, o in zip(lockers, first)}
            offsets.update((t.name, first[-1] if at_top else 0) for t in others)
            jobs = tuple(Job(t.name, a, 0, t.body) for t in model.tasks
                         for a in range(offsets[t.name], horizon, t.period))
            yield Scenario(jobs, tuple(t.name for t in model.tasks))
