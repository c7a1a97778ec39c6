"""Small random task sets for the harness, one family per kind of platform, in integer ticks.

Sets are small on purpose (2–5 tasks, periods 2–12 ticks) so that a
bounded horizon holds several hyperperiods' worth of behaviour and a
schedule can be read by eye; utilization is drawn high so that many sets
sit close to what a test accepts. Every function takes a ``random.Random``
and returns a :class:`~.model.SystemModel`; the same seed gives the same set.

Bodies: the execution is cut into pieces; a piece may be a critical section
(on one of the family's resources, sometimes with a nested inner section),
a sleep may sit between pieces, and for ``fp-lp`` every piece is a
non-preemptive interval.
"""

from __future__ import annotations

import random
from dataclasses import replace

from rtsched.analysis.generators import uunifast
from rtsched.analysis.soundness.model import CALL, EXEC, LOCK, NP, SLEEP, UNLOCK, Op, SystemModel, TaskModel

__all__ = ["uniprocessor", "partitioned_global", "partitioned_suspension", "global_multi", "rpc_clients",
           "FAMILY_PERIODS"]

FAMILY_PERIODS = (2, 3, 4, 5, 6, 8, 10, 12)


def _pieces(wcet: int, rng: random.Random) -> list[int]:
    cuts = sorted(rng.sample(range(1, wcet), min(wcet - 1, rng.randint(0, 2)))) if wcet > 1 else []
    edges = [0] + cuts + [wcet]
    return [b - a for a, b in zip(edges, edges[1:])]


def _body(wcet: int, rng: random.Random, resources: tuple[str, ...], p_section: float, sleep: int,
          np_intervals: bool, nested: bool) -> tuple[Op, ...]:
    body: list[Op] = []
    kind = NP if np_intervals else EXEC
    pieces = _pieces(wcet, rng)
    sleep_at = rng.randrange(len(pieces) + 1) if sleep else -1
    used: set[str] = set()
    for k, n in enumerate(pieces):
        if k == sleep_at:
            body.append((SLEEP, sleep))
        free = [r for r in resources if r not in used]
        if free and rng.random() < p_section:
            r = rng.choice(free)
            used.add(r)
            inner = [x for x in resources if x != r and x not in used]
            if nested and inner and n >= 2 and rng.random() < 0.4:
                x = rng.choice(inner)
                used.add(x)
                a = rng.randint(0, n - 1)
                body += [(LOCK, r), (kind, a), (LOCK, x), (kind, n - a), (UNLOCK, x), (UNLOCK, r)]
            else:
                body += [(LOCK, r), (kind, n), (UNLOCK, r)]
        else:
            body.append((kind, n))
    if sleep_at == len(pieces):
        body.append((SLEEP, sleep))
    return tuple(op for op in body if not (op[0] in (EXEC, NP) and op[1] == 0))


def _tasks(rng: random.Random, n: int, total_u: float, *, deadlines: str, jitter: bool, sleep: bool,
           resources: tuple[str, ...], p_section: float, nested: bool, np_share: float,
           rm: bool, prefix: str = "t", partition: str | None = None,
           periods: tuple[int, ...] = FAMILY_PERIODS) -> list[TaskModel]:
    us = uunifast(n, total_u, rng)
    out = []
    for k, u in enumerate(us):
        period = rng.choice(periods)
        wcet = max(1, min(period, round(u * period)))
        if deadlines == "implicit":
            deadline = period
        elif deadlines == "constrained":
            deadline = rng.randint(min(period, wcet + 1), period)
        else:  # arbitrary: some beyond the period
            deadline = rng.randint(wcet, 2 * period)
        s = rng.randint(1, 2) if sleep and rng.random() < 0.4 else 0
        np_intervals = rng.random() < np_share
        body = _body(wcet, rng, resources, p_section, s, np_intervals, nested)
        j = rng.randint(1, 2) if jitter and rng.random() < 0.4 else 0
        out.append(TaskModel(f"{prefix}{k + 1}", period, deadline, body, jitter=j, partition=partition))
    # deadline-monotonic priorities (rate-monotonic when D = T), sometimes shuffled or tied
    ranked = sorted(out, key=lambda t: (t.period if rm else t.deadline, t.name))
    prios = list(range(len(ranked), 0, -1))
    if not rm and rng.random() < 0.25:
        rng.shuffle(prios)
    if not rm and rng.random() < 0.15 and len(prios) > 1:
        prios[-1] = prios[-2]
    return [_with_priority(t, p) for t, p in zip(ranked, prios)]


def _with_priority(t: TaskModel, p: int) -> TaskModel:
    return TaskModel(t.name, t.period, t.deadline, t.body, p, t.jitter, t.partition)


def uniprocessor(rng: random.Random, *, scheduler: str = "FP", protocols: tuple[str, ...] = ("pip",),
                 deadlines: str = "constrained", jitter: bool = False, sleep: bool = False,
                 resources: int = 2, nested: bool = False, np_share: float = 0.0, rm: bool = False,
                 partitions: int = 1, u_range: tuple[float, float] = (0.4, 0.95)) -> SystemModel:
    """One processor (or ``partitions`` of them, local resources only): FP or EDF.

    EDF sets with resources and a partition at exactly U = 1 are drawn again: the demand
    test's busy-period search runs 10^7 steps on them (issue 22 defect 3), too slow for
    the CI budget.
    """
    while True:
        model = _uniprocessor(rng, scheduler, protocols, deadlines, jitter, sleep, resources, nested, np_share, rm,
                              partitions, u_range)
        problem = model.problem()
        if scheduler == "FP" or not problem.resources() or all(
                sum(t.utilization for t in tasks) != 1 for tasks in problem.partitions().values()):
            return model


def _uniprocessor(rng: random.Random, scheduler: str, protocols: tuple[str, ...], deadlines: str, jitter: bool,
                  sleep: bool, resources: int, nested: bool, np_share: float, rm: bool, partitions: int,
                  u_range: tuple[float, float]) -> SystemModel:
    names = tuple("abc"[:resources])
    tasks: list[TaskModel] = []
    for p in range(partitions):
        part = f"p{p}" if partitions > 1 else None
        n = rng.randint(2, 4)
        local = tuple(f"{r}{p}" for r in names) if partitions > 1 else names
        tasks += _tasks(rng, n, rng.uniform(*u_range), deadlines=deadlines, jitter=jitter, sleep=sleep,
                        resources=local, p_section=0.5 if resources else 0.0, nested=nested,
                        np_share=np_share, rm=rm, prefix=f"t{p}_" if part else "t", partition=part)
    protocols_of = {op[1]: rng.choice(protocols) for t in tasks for op in t.body if op[0] == LOCK}
    sched = scheduler if partitions == 1 else f"P-{scheduler}"
    return SystemModel(tuple(tasks), sched, max(1, partitions), protocols_of)


def partitioned_global(rng: random.Random, *, protocol: str, local_protocols: tuple[str, ...] = ("pcp",),
                       sleep: bool = False) -> SystemModel:
    """Two processors under P-FP sharing a global resource ``q`` (and maybe a local one each)."""
    out: list[TaskModel] = []
    for p in range(2):
        n = rng.randint(2, 4) if p == 0 else rng.randint(1, 2)
        tasks = _tasks(rng, n, rng.uniform(0.3, 0.8), deadlines="constrained", jitter=False, sleep=sleep,
                       resources=(f"l{p}",), p_section=0.3, nested=False, np_share=0.0, rm=False,
                       prefix=f"t{p}_", partition=f"p{p}")
        # at least one user of q per processor (a piece of its execution becomes the section), others at random
        first = rng.randrange(len(tasks))
        out += [_with_global(t, rng) if k == first or rng.random() < 0.3 else t for k, t in enumerate(tasks)]
    protocols = {"q": protocol}
    for t in out:
        for kind, r in t.body:
            if kind == LOCK and r != "q":
                protocols[r] = rng.choice(local_protocols)
    return SystemModel(tuple(out), "P-FP", 2, protocols)


def _with_global(t: TaskModel, rng: random.Random) -> TaskModel:
    """The task with one of its plain execution pieces (outside any section) made a section on q."""
    depth = 0
    spots = []
    for k, (kind, v) in enumerate(t.body):
        if kind == LOCK:
            depth += 1
        elif kind == UNLOCK:
            depth -= 1
        elif kind == EXEC and depth == 0 and v > 0:
            spots.append(k)
    if not spots:
        return t
    k = rng.choice(spots)
    n = t.body[k][1]
    length = rng.randint(1, n)
    piece = [(LOCK, "q"), (EXEC, length), (UNLOCK, "q")] + ([(EXEC, n - length)] if n > length else [])
    if rng.random() < 0.5:
        piece = piece[-1:] + piece[:-1] if n > length else piece
    body = t.body[:k] + tuple(piece) + t.body[k + 1:]
    return TaskModel(t.name, t.period, t.deadline, body, t.priority, t.jitter, t.partition)


def global_multi(rng: random.Random, *, scheduler: str = "G-EDF", cpus: int = 2, deadlines: str = "constrained",
                 sleep: bool = False, u_range: tuple[float, float] = (0.6, 1.7)) -> SystemModel:
    """m processors, global EDF or FP, independent tasks (some with sleeps)."""
    n = rng.randint(cpus + 1, cpus + 3)
    total = rng.uniform(*u_range)
    while True:
        tasks = _tasks(rng, n, total, deadlines=deadlines, jitter=False, sleep=sleep, resources=(),
                       p_section=0.0, nested=False, np_share=0.0, rm=False)
        if all(t.wcet <= t.period for t in tasks):
            return SystemModel(tuple(tasks), scheduler, cpus, {})


def partitioned_suspension(rng: random.Random, *, protocol: str) -> SystemModel:
    """The shape where a suspension-based analysis is most fragile: on p0 a top task, a middle task
    whose whole job is a section on global q (so it suspends while q is taken elsewhere), and a low
    task; on p1 one or two other users of q. Implicit deadlines.

    (The middle task's execution, delayed by its wait and by the top task, can fall back to back
    with its next job inside the low task's window: issue 22, defect 1.)
    """
    top_t = rng.choice((2, 3))
    mid_t = rng.randint(4, 6)
    low_t = rng.randint(4, 8)
    tasks = [
        TaskModel("t1", top_t, top_t, ((EXEC, 1),), 3, partition="p0"),
        TaskModel("t2", mid_t, mid_t, ((LOCK, "q"), (EXEC, 1 if rng.random() < 0.7 else 2), (UNLOCK, "q")), 2,
                  partition="p0"),
        TaskModel("t3", low_t, low_t, ((EXEC, rng.randint(1, 2)),), 1, partition="p0"),
    ]
    for k in range(1 if rng.random() < 0.8 else 2):
        period = rng.randint(4, 6)
        tasks.append(TaskModel(f"t{4 + k}", period, period, ((LOCK, "q"), (EXEC, rng.randint(1, 2)), (UNLOCK, "q")),
                               1 + k, partition="p1"))
    return SystemModel(tuple(tasks), "P-FP", 2, {"q": protocol})


def rpc_clients(rng: random.Random, *, servers: tuple[str, ...] = ("S1", "S2")) -> SystemModel:
    """One processor, FP clients calling servers (``picv-rpc``): some tasks call 1–2 servers
    (calls of 1–2 ticks between pieces of execution), the others are plain tasks."""
    n = rng.randint(2, 4)
    tasks = _tasks(rng, n, rng.uniform(0.3, 0.8), deadlines="constrained", jitter=False, sleep=False,
                   resources=(), p_section=0.0, nested=False, np_share=0.0, rm=False)
    out = []
    for t in tasks:
        body = list(t.body)
        if rng.random() < 0.7:
            for server in rng.sample(servers, rng.randint(1, len(servers))):
                body.insert(rng.randint(0, len(body)), (CALL, (server, rng.randint(1, 2))))
        out.append(TaskModel(t.name, t.period, t.deadline, tuple(body), t.priority, t.jitter, t.partition))
    return SystemModel(tuple(out), "FP", 1, {})


def partitioned_distributed(rng: random.Random, *, protocol: str) -> SystemModel:
    """``partitioned_global`` or ``partitioned_suspension`` with q under ``protocol`` (dpcp, dflp), its agents
    on either processor; half the time the local resources too (one partition's resource then runs on
    the other partition's processor, or shares a processor's agents with q)."""
    make = partitioned_global if rng.random() < 0.5 else partitioned_suspension
    model = make(rng, protocol=protocol)
    protocols = dict(model.protocols)
    if rng.random() < 0.5:
        protocols = {r: protocol for r in protocols}
    sync = {r: rng.choice(("p0", "p1")) for r, p in protocols.items() if p == protocol}
    return replace(model, protocols=protocols, sync_partitions=sync)
