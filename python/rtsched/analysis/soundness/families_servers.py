"""Families of one-CPU hierarchies with servers, and their search (issue 35: servers' wake-up rules,
controllers moving budgets), checked against the hierarchy analysis (rtsched.analysis.reservations).

Two families, small on purpose (periods 3–12 ticks, a tick = 10 µs in the task-set file):

- ``cbs-beside-edf``: P-EDF, one CBS (soft or hard; inside, EDF, a bulk task of up to 6Q every
  12T and an urgent one of up to Q every 2T or 3T) beside one or two plain tasks with constrained
  deadlines, or one long plain job (deadline T to 6T, period 12T);
- ``adapted-above-hard``: P-FP, one soft periodic server whose controller may move its budget
  in [min_budget, max_budget] every control period, above one or two plain hard tasks.

Scenarios of a set the analysis accepts (``scenarios``): the synchronous one, then
**adversarial** ones built from the servers' worst patterns, then random sporadic ones.
Adversarial, CBS: one task of the CBS arrives at 0 and runs u < Q, the other wakes the CBS at
w with its whole amount and every plain task arrives at w (a kept chunk, Q − u left before the
deadline T, meeting a critical instant), for every u and w below T. Adversarial, controller: the budget at its
max_budget from the first control period the controller acts, plain tasks synchronous at each
period start of that window. Adversarial, a CBS running ahead: one task of the CBS arrives at 0
with its whole amount and runs alone (a soft CBS postpones its deadline at each depletion), the
other and every plain task arrive at w, for every w up to 2T. Random: sporadic gaps, shorter
amounts, budgets anywhere in range.

A violation: a job responding above the bound the analysis gave its task (its deadline, for
EDF), in a set the analysis calls schedulable: a plain task's, or a CBS task's when the analysis
bounds it (a hard CBS's tasks, EDF inside: the PRM bound of its (Q, T); a soft CBS's have none).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from rtsched.analysis.reservations import analyze_reservations
from rtsched.analysis.results import AnalysisResult
from rtsched.analysis.soundness.server_explorer import (
    Cbs, Periodic, Plain, ServerScenario, ServerSystem, check_legal, explore_all)
from rtsched.model import TaskSet, taskset_from_dict

__all__ = ["ServerSubject", "SERVER_SUBJECTS", "ServerViolation", "ServerReport", "cbs_beside_edf",
           "adapted_above_hard", "as_taskset", "scenarios", "judge_servers", "search_servers"]

_PERIODS = (3, 4, 5, 6, 8, 10, 12)


#: A tick in the task-set file (SCHED_DEADLINE, which EDF tasks use, wants runtimes of at least 1024 ns).
TICK_US = 10


def _us(ticks: int) -> str:
    return f"{ticks * TICK_US}us"


def as_taskset(system: ServerSystem) -> TaskSet:
    """The task-set file the analysis reads (a tick is TICK_US; a server's tasks inside it)."""
    fp = system.scheduler == "FP"
    reservations: list[dict[str, Any]] = []
    tasks: list[dict[str, Any]] = []
    for s in system.servers:
        r: dict[str, Any] = {"name": s.name, "period": _us(s.period), "budget": _us(s.budget), "scheduler": "EDF",
                             "partition": "cpu0"}
        if isinstance(s, Cbs):
            r["kind"] = "hard-cbs" if s.hard else "cbs"
            tasks += [{"name": n, "reservation": s.name, "partition": "cpu0", "period": _us(t),
                       "body": [{"compute": _us(c)}]} for n, c, t in s.inner]
        else:
            r["priority"] = s.priority
            if s.control_periods is not None:
                r["criticality"] = "soft"
                r["controller"] = {"period": _us(s.period * s.control_periods), "min_budget": _us(s.min_budget),
                                   "max_budget": _us(s.max_budget)}
            tasks.append({"name": f"{s.name}-load", "reservation": s.name, "partition": "cpu0",
                          "period": _us(s.period), "body": [{"compute": _us(s.period)}]})
        reservations.append(r)
    for p in system.plain:
        t: dict[str, Any] = {"name": p.name, "partition": "cpu0", "period": _us(p.period), "deadline": _us(p.deadline),
             "body": [{"compute": _us(p.wcet)}]}
        if fp:
            t["priority"] = p.priority
        tasks.append(t)
    return taskset_from_dict({"name": "servers", "platform": {"scheduler": f"P-{system.scheduler}", "backend": "ult",
                                                            "cpus": [0]}, "reservations": reservations, "tasks": tasks})


def _plain(rng: random.Random, count: int, fp: bool) -> tuple[Plain, ...]:
    """Constrained deadlines, often dense (C near D): where a window shorter than a server's period
    is nearly full; the analysis keeps those it accepts."""
    out = []
    for k in range(count):
        period = rng.choice(_PERIODS)
        deadline = rng.randint(2, period)
        wcet = deadline if rng.random() < 0.5 else rng.randint(max(1, deadline // 2), deadline)
        out.append(Plain(f"p{k}", wcet, deadline, period, priority=10 - k if fp else 0))
    return tuple(out)


def cbs_beside_edf(rng: random.Random) -> ServerSystem:
    period = rng.choice(_PERIODS[2:])
    budget = rng.randint(max(1, period // 5), period // 2)
    # a bulk task that may run ahead of the CBS's bandwidth, and an urgent one that wakes it after
    inner = (("bulk", rng.randint(1, 6 * budget), 12 * period),
             ("urgent", rng.randint(1, budget), rng.choice((2, 3)) * period))
    cbs = Cbs("S", budget, period, hard=rng.random() < 0.5, inner=inner)
    plain = _plain(rng, rng.randint(1, 2), fp=False)
    if rng.random() < 0.5:  # or one long job, which a CBS woken far ahead of its bandwidth waits behind
        deadline = rng.randint(period, 6 * period)
        plain = (Plain("long", rng.randint(deadline // 2, deadline * (period - budget) // period), deadline,
                       12 * period),)
    return ServerSystem("EDF", plain, (cbs,))


def adapted_above_hard(rng: random.Random) -> ServerSystem:
    period = rng.choice(_PERIODS[:5])
    least = rng.randint(1, max(1, period // 3))
    top = rng.randint(least, period)
    server = Periodic("A", least, period, priority=20, control_periods=rng.choice((1, 2)), min_budget=least,
                      max_budget=top)
    return ServerSystem("FP", _plain(rng, rng.randint(1, 2), fp=True), (server,))


def _horizon(system: ServerSystem) -> int:
    return max(4 * max(p.period for p in system.plain), *(3 * s.period for s in system.servers), 24)


def _sporadic(rng: random.Random, period: int, horizon: int, first: int) -> list[int]:
    out, at = [], first
    while at < horizon:
        out.append(at)
        at += period + (0 if rng.random() < 0.7 else rng.randint(1, period))
    return out


def _synchronous_jobs(system: ServerSystem, start: int, horizon: int) -> tuple[tuple[str, int, int], ...]:
    return tuple((p.name, at, p.wcet) for p in system.plain for at in range(start, horizon, p.period))


def scenarios(system: ServerSystem, rng: random.Random, count: int) -> Iterator[ServerScenario]:
    """Synchronous, adversarial (the servers' worst patterns, all of them), then random; ``count`` random."""
    horizon = _horizon(system)
    cbs = [s for s in system.servers if isinstance(s, Cbs)]
    adapted = [s for s in system.servers if isinstance(s, Periodic) and s.control_periods]
    full = {s.name: (s.budget,) + (s.max_budget,) * horizon for s in adapted}
    yield ServerScenario(_synchronous_jobs(system, 0, horizon), budgets=full)
    for c in cbs:  # a kept chunk meeting a critical instant
        (first, c0, _), (second, c1, _) = c.inner[:2]
        for u, w in itertools.product(range(1, min(c0, c.budget)), range(1, c.period)):
            yield ServerScenario(_synchronous_jobs(system, w, horizon),
                                 ((c.name, first, 0, u), (c.name, second, w, c1)))
        for w in range(1, 2 * c.period + 1):  # a CBS that ran ahead alone, woken with the plain tasks
            yield ServerScenario(_synchronous_jobs(system, w, horizon),
                                 ((c.name, first, 0, c0), (c.name, second, w, c1)))
    for a in adapted:  # the raised budget from the first control window the controller sets
        start = a.period * (a.control_periods or 1)
        yield ServerScenario(_synchronous_jobs(system, start, horizon), budgets=full)
    for _ in range(count):
        jobs = tuple((p.name, at, p.wcet if rng.random() < 0.7 else rng.randint(1, p.wcet))
                     for p in system.plain for at in _sporadic(rng, p.period, horizon, rng.randrange(p.period)))
        work = tuple((s.name, n, at, rng.randint(1, c)) for s in cbs for n, c, t in s.inner
                     for at in _sporadic(rng, t, horizon, rng.randrange(s.period)))
        budgets = {s.name: (s.budget,) + tuple(rng.choice((s.min_budget, s.max_budget, rng.randint(s.min_budget,
                                                                                                    s.max_budget)))
                                                 for _ in range(horizon)) for s in adapted}
        yield ServerScenario(jobs, work, budgets)


@dataclass(frozen=True)
class ServerViolation:
    system: ServerSystem
    scenario: ServerScenario
    task: str
    arrival: int
    response: int
    bound: int

    def describe(self) -> str:
        return (f"{self.task} (job arriving at {self.arrival}) responds in {self.response} > its bound {self.bound}; "
                f"set {self.system}; scenario {self.scenario}")


def _ticks(ns: int | None) -> int | None:
    """A bound in ticks, rounded down (a response of more ticks than that exceeds it)."""
    return None if ns is None else ns // (TICK_US * 1000)


def judge_servers(system: ServerSystem, scenario: ServerScenario, result: AnalysisResult) -> ServerViolation | None:
    """The first job (by arrival) whose response exceeds its bound in this scenario: a plain task's
    (its bound, or its deadline), or a CBS task's when the analysis gave it a bound."""
    why = check_legal(system, scenario)
    if why is not None:
        raise ValueError(f"not a legal scenario: {why}")
    bound: dict[str, int] = {p.name: _ticks(result.bound(p.name)) or p.deadline for p in system.plain}
    for s in system.servers:
        for n, _, _ in s.inner if isinstance(s, Cbs) else ():
            inner = _ticks(result.bound(n)) if result.task(n).verdict == "ok" else None
            if inner is not None:
                bound[n] = inner
    arrivals = [a for _, a, _ in scenario.jobs] + [a for _, _, a, _ in scenario.work]
    until = max(arrivals, default=0) + max(max(bound.values()), 1) + 1
    finish, done = explore_all(system, scenario, until)
    judged = [(name, at, (finish[k] or until + 1) - at) for k, (name, at, _) in enumerate(scenario.jobs)]
    judged += [(name, at, (done[k] or until + 1) - at) for k, (_, name, at, _) in enumerate(scenario.work)
               if name in bound]
    for name, at, response in sorted(judged, key=lambda j: j[1]):
        if response > bound[name]:
            return ServerViolation(system, scenario, name, at, response, bound[name])
    return None


@dataclass(frozen=True)
class ServerSubject:
    id: str
    make: Callable[[random.Random], ServerSystem]


SERVER_SUBJECTS = (ServerSubject("reservations/cbs-beside-edf", cbs_beside_edf),
                   ServerSubject("reservations/adapted-above-hard", adapted_above_hard))


@dataclass
class ServerReport:
    subject: str
    sets: int = 0
    accepted: int = 0
    scenarios: int = 0
    violation: ServerViolation | None = None


def search_servers(subject: ServerSubject, seed: int, sets: int, scenarios_per_set: int,
                   draws_per_set: int = 20) -> ServerReport:
    """Draw sets until ``sets`` are accepted by the hierarchy analysis; explore each (see the module doc)."""
    rng = random.Random(f"{subject.id}:{seed}")
    report = ServerReport(subject.id)
    while report.accepted < sets and report.sets < draws_per_set * sets:
        system = subject.make(rng)
        report.sets += 1
        result = analyze_reservations(as_taskset(system)).tasks
        if not result.schedulable:
            continue
        report.accepted += 1
        for scenario in scenarios(system, rng, scenarios_per_set):
            report.scenarios += 1
            violation = judge_servers(system, scenario, result)
            if violation is not None:
                report.violation = violation
                return report
    return report
