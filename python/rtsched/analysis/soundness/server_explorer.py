"""One CPU's top level with servers, tick by tick: plain tasks beside CBSs and periodic servers
whose budget a controller moves (issue 35; the families in ``families_servers``).

The rules, from the servers' definitions (docs/reservations.md; Abeni & Buttazzo 1998 for the
CBS; seed 000 §III for the periodic server and its controller), never from a bound:

- **plain task**: a sporadic job of at most C ticks, ordered by its absolute deadline (EDF) or
  its priority (FP, higher first);
- **CBS** (budget Q, period T, state (c, d)): the jobs of its tasks (implicit deadlines) queue
  in it, EDF inside (ties: the earlier arrival); it competes, with key d, while a job is queued
  and c > 0. When a job arrives at an empty queue at
  t (a wake-up) it keeps (c, d) if c·T < (d − t)·Q, else takes (Q, t + T). When c is 0 with
  work queued: a soft CBS takes (Q, d + T) at once; a hard one waits until d (throttled) and
  then takes (Q, d + T);
- **periodic server** (period P): replenished to its budget at every kP; it competes (key: the
  period's end under EDF, its priority under FP) while budget is left, whether or not a task
  inside is ready (its budget idles away); an adapted one's budget is the scenario's for each
  control period (k periods), anything in [min_budget, max_budget], the first one its initial
  budget (the controller acts at the end of a control period);
- ties: plain jobs first (the earlier ready, then the task's order), then the servers in order.

Time is integer ticks; a job that ends within tick t completes at t + 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Plain", "Cbs", "Periodic", "ServerSystem", "ServerScenario", "check_legal", "explore_servers",
           "explore_all"]


@dataclass(frozen=True)
class Plain:
    name: str
    wcet: int
    deadline: int
    period: int
    priority: int = 0


@dataclass(frozen=True)
class Cbs:
    """A CBS and its tasks ((name, wcet, period) each, deadline = period, EDF inside)."""

    name: str
    budget: int
    period: int
    hard: bool
    inner: tuple[tuple[str, int, int], ...]


@dataclass(frozen=True)
class Periodic:
    """A periodic server; adapted when ``control_periods`` is set (budgets in [min_budget, max_budget])."""

    name: str
    budget: int
    period: int
    priority: int = 0
    control_periods: int | None = None
    min_budget: int = 0
    max_budget: int = 0


@dataclass(frozen=True)
class ServerSystem:
    scheduler: str  # "EDF" | "FP"
    plain: tuple[Plain, ...]
    servers: tuple[Cbs | Periodic, ...]


@dataclass(frozen=True)
class ServerScenario:
    """Plain jobs (task, arrival, amount); CBS work (server, inner task, arrival, amount); each adapted
    server's budget per control period (missing ones: its initial budget)."""

    jobs: tuple[tuple[str, int, int], ...]
    work: tuple[tuple[str, str, int, int], ...] = ()
    budgets: dict[str, tuple[int, ...]] = field(default_factory=dict)


def check_legal(system: ServerSystem, scenario: ServerScenario) -> str | None:
    """Why ``scenario`` is not a legal behaviour of ``system`` (None: it is)."""
    plain = {p.name: p for p in system.plain}
    inner = {(s.name, n): (c, t) for s in system.servers if isinstance(s, Cbs) for n, c, t in s.inner}
    last: dict[object, int] = {}
    for name, at, amount in sorted(scenario.jobs, key=lambda j: j[1]):
        p = plain[name]
        if not 0 < amount <= p.wcet or at < 0 or (name in last and at - last[name] < p.period):
            return f"plain job {name} at {at}"
        last[name] = at
    for server, task, at, amount in sorted(scenario.work, key=lambda w: w[2]):
        c, t = inner[(server, task)]
        if not 0 < amount <= c or at < 0 or ((server, task) in last and at - last[(server, task)] < t):
            return f"work of {server}/{task} at {at}"
        last[(server, task)] = at
    for s in system.servers:
        chosen = scenario.budgets.get(s.name, ())
        if chosen and (not isinstance(s, Periodic) or s.control_periods is None or chosen[0] != s.budget
                       or any(not s.min_budget <= b <= s.max_budget for b in chosen)):
            return f"budgets of {s.name}: {chosen}"
    return None


class _CbsState:
    def __init__(self, s: Cbs) -> None:
        self.s, self.c, self.d, self.backlogged = s, 0, 0, False
        self.queue: list[list[int]] = []  # [absolute deadline, arrival, work left, work index], EDF first

    def update(self, now: int) -> None:
        s = self.s
        busy = bool(self.queue)
        if busy and not self.backlogged and (self.d <= now or self.c * s.period >= (self.d - now) * s.budget):
            self.c, self.d = s.budget, now + s.period
        if busy and self.c == 0 and not (s.hard and self.d > now):
            self.c, self.d = s.budget, self.d + s.period
        self.backlogged = busy


def explore_servers(system: ServerSystem, scenario: ServerScenario, until: int) -> dict[int, int | None]:
    """Each plain job's completion time (index into ``scenario.jobs``; None: unfinished at ``until``)."""
    return explore_all(system, scenario, until)[0]


def explore_all(system: ServerSystem, scenario: ServerScenario, until: int
                ) -> tuple[dict[int, int | None], dict[int, int | None]]:
    """The completion times of the plain jobs and of the CBS jobs (indexes into ``scenario.jobs``
    and ``scenario.work``; None: unfinished at ``until``)."""
    edf = system.scheduler == "EDF"
    order = {p.name: k for k, p in enumerate(system.plain)}
    plain = {p.name: p for p in system.plain}
    arrivals: dict[int, list[int]] = {}
    for k, (_, at, _) in enumerate(scenario.jobs):
        arrivals.setdefault(at, []).append(k)
    inner_period = {(s.name, n): t for s in system.servers if isinstance(s, Cbs) for n, _, t in s.inner}
    work: dict[int, list[tuple[str, list[int]]]] = {}
    for k, (owner, task, at, amount) in enumerate(scenario.work):
        work.setdefault(at, []).append((owner, [at + inner_period[(owner, task)], at, amount, k]))
    cbs = {s.name: _CbsState(s) for s in system.servers if isinstance(s, Cbs)}
    periodic = [s for s in system.servers if isinstance(s, Periodic)]
    left = {s.name: 0 for s in periodic}
    remaining: dict[int, int] = {}
    finish: dict[int, int | None] = {k: None for k in range(len(scenario.jobs))}
    done: dict[int, int | None] = {k: None for k in range(len(scenario.work))}
    for now in range(until):
        for s in periodic:
            if now % s.period == 0:
                chosen = scenario.budgets.get(s.name, ())
                window = now // s.period // s.control_periods if s.control_periods else 0
                left[s.name] = chosen[window] if window < len(chosen) else (chosen[-1] if chosen else s.budget)
        for k in arrivals.get(now, ()):
            remaining[k] = scenario.jobs[k][2]
        for owner, job in work.get(now, ()):
            cbs[owner].queue.append(job)
            cbs[owner].queue.sort()
        for state in cbs.values():
            state.update(now)
        best: tuple[tuple[int, int, int, int], str, object] | None = None
        for k in remaining:
            name, at, _ = scenario.jobs[k]
            key = at + plain[name].deadline if edf else -plain[name].priority
            rank = (key, 0, at, order[name])
            if best is None or rank < best[0]:
                best = (rank, "job", k)
        for i, server in enumerate(system.servers):
            if isinstance(server, Cbs):
                state = cbs[server.name]
                if state.queue and state.c > 0:
                    rank = (state.d, 1, i, 0)
                    if best is None or rank < best[0]:
                        best = (rank, "cbs", state)
            elif left[server.name] > 0:
                key = (now // server.period + 1) * server.period if edf else -server.priority
                rank = (key, 1, i, 0)
                if best is None or rank < best[0]:
                    best = (rank, "periodic", server.name)
        if best is None:
            continue
        _, what, which = best
        if what == "job":
            assert isinstance(which, int)
            remaining[which] -= 1
            if remaining[which] == 0:
                del remaining[which]
                finish[which] = now + 1
        elif what == "cbs":
            assert isinstance(which, _CbsState)
            which.c -= 1
            which.queue[0][2] -= 1
            if which.queue[0][2] == 0:
                done[which.queue.pop(0)[3]] = now + 1
        else:
            left[str(which)] -= 1
    return finish, done

