"""Where the papers put the worst case: the plans the adversary starts from.

Each pattern is a :class:`~.plans.Plan` built from the model's bodies alone
(where a lock lies in a job, who is more urgent), never from a test's terms:

- **synchronous release** (Liu and Layland 1973; the critical instant of
  fixed-priority scheduling): every task released at 0;
- **critical instant with jitter** (Audsley, Burns, Richardson, Tindell and
  Wellings 1993): the more urgent tasks of the target's processor arrive J
  before the target and are delayed by their whole jitter J, so that their
  next job comes a period minus J later;
- **maximal blocking chain** (Sha, Rajkumar and Lehoczky 1990: under PIP a job
  can be blocked once by each lower-priority job holding a resource it needs;
  Rajkumar 1990 for MPCP's remote and local blocking, Brandenburg 2013 for
  FMLP+): every less urgent task of the target's processor is released so
  that it has just entered one of its sections when the next one preempts it,
  the least urgent first; the target and the more urgent tasks arrive when the
  last of them is inside; a task of another processor that locks a resource
  arrives so that it is one tick inside that section at the same instant.

Urgency: the priority under FP, the relative deadline under EDF (shorter is
more urgent: among jobs released together, EDF's order).
"""

from __future__ import annotations

import random

from rtsched.analysis.soundness.model import LOCK, SystemModel, TaskModel
from rtsched.analysis.soundness.plans import Plan, first_lock_at

__all__ = ["seed_plans"]


def _urgency(model: SystemModel, task: TaskModel) -> int:
    return -task.deadline if "EDF" in model.scheduler else task.priority


def _locks(task: TaskModel) -> list[str]:
    return list(dict.fromkeys(value for kind, value in task.body if kind == LOCK))


def _chain(model: SystemModel, target: TaskModel, rng: random.Random, jitter: bool) -> Plan:
    glob = "G-" in model.scheduler
    local = [t for t in model.tasks if glob or t.partition == target.partition]
    remote = [t for t in model.tasks if t not in local]
    needed = {r for t in local if _urgency(model, t) >= _urgency(model, target) for r in _locks(t)}
    offsets: dict[str, int] = {}
    at = 0
    for low in sorted((t for t in local if _urgency(model, t) < _urgency(model, target)),
                      key=lambda t: _urgency(model, t)):
        choices = [r for r in _locks(low) if r in needed] or _locks(low)
        if not choices:
            continue
        offsets[low.name] = at
        at += (first_lock_at(low, rng.choice(choices)) or 0) + 1
    delays: dict[tuple[str, int], int] = {}
    for t in local:
        if t.name in offsets:
            continue
        if jitter and t is not target and t.jitter and at >= t.jitter:
            offsets[t.name], delays[(t.name, 0)] = at - t.jitter, t.jitter
        else:
            offsets[t.name] = at
    for t in remote:
        lock = first_lock_at(t, rng.choice(_locks(t))) if _locks(t) else None
        offsets[t.name] = max(0, at - lock - 1) if lock is not None else at
    return Plan(offsets=offsets, delays=delays)


def seed_plans(model: SystemModel, rng: random.Random) -> list[tuple[str, Plan]]:
    """(pattern name, plan): synchronous, then per task as the target its blocking chain (twice, the
    sections drawn) and its critical instant with jitter."""
    out: list[tuple[str, Plan]] = [("synchronous", Plan())]
    for target in model.tasks:
        out.append((f"blocking chain before {target.name}", _chain(model, target, rng, False)))
        out.append((f"blocking chain before {target.name}", _chain(model, target, rng, False)))
        if any(t.jitter for t in model.tasks):
            out.append((f"critical instant with jitter for {target.name}", _chain(model, target, rng, True)))
    return out
