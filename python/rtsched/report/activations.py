"""Event tasks' activations (docs/taskset.md "Task kinds"): how many of each task's activations
released a job (or waited in its queue) and how many were lost, from the ACTIVATE events every
activating task records on its own stream (arg0: the activated task's id, arg1: 1 kept, 0 lost)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from rtsched.trace import Trace
from rtsched.trace import EventType as EV

__all__ = ["TaskActivations", "activations_by_task"]


@dataclass(frozen=True, slots=True)
class TaskActivations:
    task: str
    kept: int
    lost: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def activations_by_task(trace: Trace) -> tuple[TaskActivations, ...]:
    """Per activated task (in task order), its activations kept and lost."""
    if not trace.has_event(EV.ACTIVATE):
        return ()
    names = {int(s["task_id"]): str(s["name"]) for s in trace.streams if int(s["task_id"]) >= 0}
    events = np.concatenate([e[e["type"] == EV.ACTIVATE] for e in
                             (trace.events_of(int(s["stream_id"])) for s in trace.streams)])
    out = []
    for task in np.unique(events["arg0"]).tolist():
        mine = events[events["arg0"] == task]
        kept = int((mine["arg1"] == 1).sum())
        out.append(TaskActivations(names.get(int(task), f"task {task}"), kept, len(mine) - kept))
    return tuple(out)
