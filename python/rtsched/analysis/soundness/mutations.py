"""Changes of a task set that the adversary tries: one small edit of a :class:`~.model.SystemModel`.

The edits stay in the model's language (what a task-set file can say) and in
the *space* of the subject: the protocols, resources, partitions, servers,
jitter and sleeps its family draws (:func:`learn_space`), plus what the
family never draws but every test must face: a job requesting a resource
several times, sections nested in sections of another protocol, deadlines
beyond the period, a third processor, two calls of one server. A test that
does not model something must say ``unsupported``, never ``schedulable``; a
model the explorer cannot run is dropped (``None``).

The edits (:data:`MUTATIONS`): execution, section lengths and positions, requests added,
repeated (a section or a call again in the same job), shared (another task locks the
resource too), wrapped in an outer section (nesting) and removed, protocols, periods,
deadlines, priorities, jitter, sleeps, calls, tasks moved to another processor, tasks
added and removed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable

from rtsched.analysis.soundness.model import (
    CALL, EXEC, LOCK, NP, SLEEP, TIMED, UNLOCK, Op, SystemModel, TaskModel)

__all__ = ["Space", "learn_space", "mutate_model", "stretch", "MUTATIONS"]


@dataclass(frozen=True)
class Space:
    """What the edits may use, as the subject's family draws it."""

    protocols: tuple[str, ...]
    resources: tuple[str, ...]
    partitions: tuple[str | None, ...]
    servers: tuple[str, ...]
    jitter: bool
    sleep: bool
    intervals: bool  # np body intervals (fp-lp)
    nesting: bool  # sections inside sections


def learn_space(make: Callable[[random.Random], SystemModel], rng: random.Random, draws: int = 30,
                nesting: bool | None = None) -> Space:
    """What ``draws`` sets of the family use; ``nesting``: whether edits may nest sections (None: when
    the family draws nested sections)."""
    protocols: set[str] = set()
    resources: set[str] = set()
    partitions: set[str | None] = set()
    servers: set[str] = set()
    jitter = sleep = intervals = nested = False
    for _ in range(draws):
        model = make(rng)
        protocols |= set(model.protocols.values())
        for t in model.tasks:
            partitions.add(t.partition)
            jitter |= t.jitter > 0
            for k, (kind, value) in enumerate(t.body):
                if kind == LOCK:
                    nested |= bool(_held_at(t.body, k))
                    resources.add(value)
                elif kind == CALL:
                    servers.add(value[0])
                sleep |= kind == SLEEP
                intervals |= kind == NP
    return Space(tuple(sorted(protocols)), tuple(sorted(resources)), tuple(sorted(partitions, key=str)),
                 tuple(sorted(servers)), jitter, sleep, intervals, nested if nesting is None else nesting)


def _retask(model: SystemModel, old: TaskModel, new: TaskModel) -> SystemModel:
    return replace(model, tasks=tuple(new if t is old else t for t in model.tasks))


def _with_body(model: SystemModel, task: TaskModel, body: list[Op]) -> SystemModel:
    merged: list[Op] = []
    for op in body:  # adjacent execution merges; empty execution goes
        if op[0] == EXEC and op[1] == 0:
            continue
        if op[0] == EXEC and merged and merged[-1][0] == EXEC:
            merged[-1] = (EXEC, merged[-1][1] + op[1])
        else:
            merged.append(op)
    if not any(k in (EXEC, NP) for k, _ in merged):
        merged.append((EXEC, 1))
    _check_sections_run(task.name, merged)
    return _retask(model, task, replace(task, body=tuple(merged)))


def _check_sections_run(name: str, body: list[Op]) -> None:
    """ValueError when a section holds no execution. The explorer tries a lock only on a processor,
    so a job whose last work is an empty section waits a whole preemption to finish the zero-time
    lock and unlock, a delay the analyses (zero-cost lock calls) rightly do not count: a set with
    such a section would show a false excess. The families never draw one either."""
    ran: list[bool] = []
    for kind, value in body:
        if kind == LOCK:
            ran.append(False)
        elif kind == UNLOCK:
            if not ran.pop():
                raise ValueError(f"{name}: the section on {value} holds no execution")
        elif kind in (EXEC, NP) and value > 0:
            ran = [True] * len(ran)


def _held_at(body: tuple[Op, ...], index: int) -> list[str]:
    held: list[str] = []
    for kind, value in body[:index]:
        if kind == LOCK:
            held.append(value)
        elif kind == UNLOCK:
            held.remove(value)
    return held


def _amount(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    timed = [i for i, (k, _) in enumerate(task.body) if k in TIMED or k == CALL]
    if not timed:
        return None
    i = rng.choice(timed)
    kind, value = task.body[i]
    body = list(task.body)
    if kind == CALL:
        body[i] = (CALL, (value[0], max(1, value[1] + rng.choice((-1, 1)))))
    else:
        body[i] = (kind, max(0 if kind == SLEEP else 1, value + rng.choice((-1, 1, 1))))
    return _with_body(model, task, body)


def _add_request(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    """A section on a resource around a piece of execution (anywhere: outside, or nested in another
    section; the resource may be one the job already requests elsewhere)."""
    known = sorted(set(space.resources) | set(model.protocols))
    return _insert_section(model, task, rng.choice(known), space, rng) if known else None


def _insert_section(model: SystemModel, task: TaskModel, r: str, space: Space,
                    rng: random.Random) -> SystemModel | None:
    pieces = [i for i, (k, v) in enumerate(task.body) if k in (EXEC, NP) and r not in _held_at(task.body, i)
              and (space.nesting or not _held_at(task.body, i))]
    if not pieces:
        return None
    i = rng.choice(pieces)
    kind, n = task.body[i]
    before = rng.randint(0, n - 1)
    inside = rng.randint(1, n - before)
    after = n - before - inside
    body = list(task.body[:i]) + [(kind, before), (LOCK, r), (kind, inside), (UNLOCK, r), (kind, after)] \
        + list(task.body[i + 1:])
    body = [op for op in body if not (op[0] in (EXEC, NP) and op[1] == 0)]
    out = _with_body(model, task, body)
    if r not in out.protocols:
        out = replace(out, protocols={**out.protocols, r: rng.choice(space.protocols or ("pip",))})
    return out


def _spans(body: tuple[Op, ...]) -> list[tuple[int, int]]:
    """(first, last) index of every section (lock to its unlock) and every call."""
    out = []
    for i, (kind, value) in enumerate(body):
        if kind == LOCK:
            out.append((i, next(k for k in range(i + 1, len(body)) if body[k] == (UNLOCK, value))))
        elif kind == CALL:
            out.append((i, i))
    return out


def _repeat_request(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    """A section (with what it nests) or a call of the job repeated at another place outside every
    section: one resource or server requested several times per job (Sha et al.'s "blocked at most
    once per resource" and one call per server both assume once)."""
    spans = _spans(task.body)
    if not spans:
        return None
    first, last = rng.choice(spans)
    copy = list(task.body[first:last + 1])
    spots = [k for k in range(len(task.body) + 1) if not _held_at(task.body, k) and not first < k <= last]
    k = rng.choice(spots)
    return _with_body(model, task, list(task.body[:k]) + copy + list(task.body[k:]))


def _share(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    """Another task gets a section on one of this task's resources (a new blocker, or one more
    request of a lower task: MPCP's boosted local sections, PIP's chains)."""
    mine = sorted({v for k, v in task.body if k == LOCK})
    others = [t for t in model.tasks if t is not task]
    if not mine or not others:
        return None
    return _insert_section(model, rng.choice(others), rng.choice(mine), space, rng)


def _wrap(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    """A section or call of the job wrapped in an outer section on another resource (nesting, across
    protocols when the resources' protocols differ)."""
    spans = [(a, b) for a, b in _spans(task.body) if task.body[a][0] == LOCK]
    known = sorted(set(space.resources) | set(model.protocols))
    if not spans or not known or not space.nesting:
        return None
    first, last = rng.choice(spans)
    inside = {v for k, v in task.body[first:last + 1] if k == LOCK}
    free = [r for r in known if r not in inside and r not in _held_at(task.body, first)]
    if not free:
        return None
    r = rng.choice(free)
    body = list(task.body[:first]) + [(LOCK, r)] + list(task.body[first:last + 1]) + [(UNLOCK, r)] \
        + list(task.body[last + 1:])
    out = _with_body(model, task, body)
    if r not in out.protocols:
        out = replace(out, protocols={**out.protocols, r: rng.choice(space.protocols or ("pip",))})
    return out


def _remove_request(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    locks = [i for i, (k, _) in enumerate(task.body) if k == LOCK]
    if not locks:
        return None
    i = rng.choice(locks)
    r = task.body[i][1]
    j = next(k for k in range(i + 1, len(task.body)) if task.body[k] == (UNLOCK, r))
    return _with_body(model, task, [op for k, op in enumerate(task.body) if k not in (i, j)])


def _shift_boundary(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    """One tick of execution moved across a lock or an unlock (a section starts or ends a tick
    earlier or later: its position in the job and its length)."""
    marks = [i for i, (k, _) in enumerate(task.body) if k in (LOCK, UNLOCK)]
    if not marks:
        return None
    i = rng.choice(marks)
    body = list(task.body)
    if rng.random() < 0.5:  # a tick from before the mark to after it
        if i == 0 or body[i - 1][0] != EXEC:
            return None
        body[i - 1] = (EXEC, body[i - 1][1] - 1)
        body.insert(i + 1, (EXEC, 1))
    else:
        if i + 1 >= len(body) or body[i + 1][0] != EXEC:
            return None
        body[i + 1] = (EXEC, body[i + 1][1] - 1)
        body.insert(i, (EXEC, 1))
    return _with_body(model, task, body)


def _protocol(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    if not model.protocols or len(space.protocols) < 2:
        return None
    r = rng.choice(sorted(model.protocols))
    return replace(model, protocols={**model.protocols, r: rng.choice(space.protocols)})


def _period(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    period = max(2, task.period + rng.choice((-2, -1, 1, 2)))
    deadline = task.deadline if task.deadline <= period or rng.random() < 0.5 else period
    return _retask(model, task, replace(task, period=period, deadline=deadline))


def _deadline(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    deadline = max(1, min(2 * task.period, task.deadline + rng.choice((-1, 1, 1))))
    return _retask(model, task, replace(task, deadline=deadline))


def _priority(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    other = rng.choice(model.tasks)
    if other is task:
        return None
    if rng.random() < 0.8:
        swapped = {task.name: other.priority, other.name: task.priority}
    else:  # a tie
        swapped = {task.name: other.priority}
    return replace(model, tasks=tuple(replace(t, priority=swapped.get(t.name, t.priority)) for t in model.tasks))


def _jitter(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    if not space.jitter:
        return None
    return _retask(model, task, replace(task, jitter=max(0, min(3, task.jitter + rng.choice((-1, 1))))))


def _sleep(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    if not space.sleep:
        return None
    i = rng.randint(0, len(task.body))
    return _with_body(model, task, list(task.body[:i]) + [(SLEEP, rng.randint(1, 2))] + list(task.body[i:]))


def _call(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    """A call of a server (again, maybe: several calls of one server in one job), outside sections."""
    if not space.servers:
        return None
    spots = [i for i in range(len(task.body) + 1) if not _held_at(task.body, i)]
    i = rng.choice(spots)
    op: Op = (CALL, (rng.choice(space.servers), rng.randint(1, 2)))
    return _with_body(model, task, list(task.body[:i]) + [op] + list(task.body[i:]))


def _partition(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    """The task to another processor of the family's, or to a new one (at most three in all)."""
    parts = [p for p in space.partitions if p is not None]
    if not parts:
        return None
    used = {t.partition for t in model.tasks}
    choices = sorted(set(parts) | used | ({f"p{len(used)}"} if len(used) < 3 else set()), key=str)
    target = rng.choice([p for p in choices if p != task.partition] or choices)
    return _with_cpus(_retask(model, task, replace(task, partition=target)))


def _with_cpus(model: SystemModel) -> SystemModel:
    """A partitioned model's processor count: one per partition in use."""
    if all(t.partition is None for t in model.tasks):
        return model
    return replace(model, cpus=len({t.partition for t in model.tasks}))


def _add_task(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    if len(model.tasks) >= 6:
        return None
    names = {t.name for t in model.tasks}
    name = next(f"a{k}" for k in range(1, 10) if f"a{k}" not in names)
    period = rng.randint(3, 12)
    body: list[Op] = [(EXEC, rng.randint(1, 2))]
    known = sorted(set(space.resources) | set(model.protocols))
    if known and rng.random() < 0.7:
        r = rng.choice(known)
        body = [(LOCK, r), (EXEC, rng.randint(1, 2)), (UNLOCK, r)]
    priority = rng.choice([t.priority for t in model.tasks]) + rng.choice((-1, 1))
    new = TaskModel(name, period, rng.randint(max(2, period // 2), period), tuple(body), priority,
                    partition=rng.choice([t.partition for t in model.tasks]))
    out = replace(model, tasks=model.tasks + (new,))
    for kind, r in new.body:
        if kind == LOCK and r not in out.protocols:
            out = replace(out, protocols={**out.protocols, r: rng.choice(space.protocols or ("pip",))})
    return out


def _remove_task(model: SystemModel, task: TaskModel, space: Space, rng: random.Random) -> SystemModel | None:
    if len(model.tasks) <= 2:
        return None
    return _with_cpus(replace(model, tasks=tuple(t for t in model.tasks if t is not task)))


Mutation = Callable[[SystemModel, TaskModel, Space, random.Random], "SystemModel | None"]

#: (edit, weight): amounts and section positions most often, structure now and then.
MUTATIONS: tuple[tuple[Mutation, int], ...] = (
    (_amount, 6), (_shift_boundary, 5), (_add_request, 2), (_repeat_request, 2), (_share, 2), (_wrap, 1),
    (_remove_request, 2), (_protocol, 2), (_period, 3), (_deadline, 3), (_priority, 2), (_jitter, 1), (_sleep, 1),
    (_call, 1), (_partition, 1), (_add_task, 1), (_remove_task, 1),
)


def mutate_model(model: SystemModel, space: Space, rng: random.Random) -> SystemModel | None:
    """One random edit of one task (or of the set), or None when it does not apply or the result is
    not a valid model."""
    mutation = rng.choices([m for m, _ in MUTATIONS], [w for _, w in MUTATIONS])[0]
    try:
        out = mutation(model, rng.choice(model.tasks), space, rng)
    except ValueError:  # a body TaskModel refuses (an unlock that is not the innermost...)
        return None
    if out is None:
        return None
    used = {op[1] for t in out.tasks for op in t.body if op[0] == LOCK}
    return replace(out, protocols={r: p for r, p in out.protocols.items() if r in used})


def stretch(model: SystemModel) -> SystemModel:
    """The set with every period and deadline doubled: the same bodies and priorities, more room."""
    return replace(model, tasks=tuple(replace(t, period=2 * t.period, deadline=2 * t.deadline) for t in model.tasks))
