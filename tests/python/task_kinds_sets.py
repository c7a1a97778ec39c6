"""Task sets with self-paced and event tasks, shared by test_task_kinds.py and its live side."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np

from rtsched.trace import RELEASE_BY_SHIFT, RELEASE_CAUSE_MASK, EventType, ReleaseCause, read_trace
from stolen_cpu import skip_if_misses_disturbed

MS = 1_000_000

#: On CPU 1: tick (periodic, 10 ms) activates handler twice per job; handler keeps one activation
#: (activation_queue 1), so the second of each pair finds the queue full and is lost; loop is
#: self-paced with a least gap of 5 ms, below both.
EVENTS: dict[str, Any] = {
    "name": "events", "duration": "300ms",
    "platform": {"scheduler": "P-FP", "cpus": [1]},
    "tasks": [
        {"name": "tick", "period": "10ms", "priority": 30, "partition": "cpu1",
         "body": [{"compute": "1ms"}, {"activate": "handler"}, {"activate": "handler"}]},
        {"name": "handler", "kind": "event", "period": "10ms", "priority": 20, "partition": "cpu1",
         "activation_queue": 1, "body": [{"compute": "2ms"}]},
        {"name": "loop", "kind": "self-paced", "period": "5ms", "priority": 10, "partition": "cpu1",
         "body": [{"compute": "1ms"}]},
    ],
}


def events_set(**task_changes: dict[str, Any]) -> dict[str, Any]:
    """EVENTS with some tasks' keys changed (``handler={"kind": "periodic"}``); a value None removes the key."""
    data = copy.deepcopy(EVENTS)
    for task in data["tasks"]:
        for key, value in task_changes.get(task["name"], {}).items():
            if value is None:
                task.pop(key, None)
            else:
                task[key] = value
    return data


def check_kinds_output(out: Path, stdout: str) -> np.ndarray:
    """What a run or simulation of EVENTS must show in ``out`` (and its table's notes ``stdout``):
    each handler job released by one of tick's activations, at its time, naming tick; per tick job
    the first activation kept, the second lost; loop's jobs at its completions, never closer than
    its gap. Returns tick's events."""
    trace = read_trace(out / "trace.rtst")
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams}
    tick, handler, loop = (trace.events_of(streams[n]) for n in ("tick", "handler", "loop"))

    activations = tick[tick["type"] == EventType.ACTIVATE]
    assert (activations["arg0"] == 1).all()  # the handler's trace task id
    kept, lost = activations[activations["arg1"] == 1], activations[activations["arg1"] == 0]
    tick_jobs = np.unique(activations["job"])
    assert len(tick_jobs) >= 20
    for job in tick_jobs:  # per tick job: the first kept, the second lost (the queue holds one)
        assert activations["arg1"][activations["job"] == job].tolist() == [1, 0], job
    assert len(lost) == len(kept)

    releases = handler[handler["type"] == EventType.RELEASE]
    assert len(releases) >= len(kept) - 1  # the last activation may come as the run ends
    causes = releases["arg0"] & RELEASE_CAUSE_MASK
    assert (causes == ReleaseCause.ACTIVATION).all()
    assert ((releases["arg0"] >> RELEASE_BY_SHIFT) == 1).all()  # tick: trace task id 0, + 1
    assert releases["time_ns"].tolist() == kept["time_ns"][:len(releases)].tolist()

    loop_releases = loop[loop["type"] == EventType.RELEASE]
    completions = loop[loop["type"] == EventType.COMPLETE]
    assert len(loop_releases) >= 10
    assert ((loop_releases["arg0"][1:] & RELEASE_CAUSE_MASK) == ReleaseCause.COMPLETION).all()
    gaps = np.diff(loop_releases["time_ns"])
    assert (gaps >= 5 * MS).all()
    for k in range(1, len(loop_releases)):  # at its least gap, or at the completion that came later
        at, last = int(loop_releases["time_ns"][k]), int(loop_releases["time_ns"][k - 1])
        assert at == last + 5 * MS or at >= int(completions["time_ns"][k - 1]), k

    summary = json.loads((out / "summary.json").read_text())
    assert summary["activations"] == [{"task": "handler", "kept": len(kept), "lost": len(lost)}]
    assert f"handler: {len(kept) + len(lost)} activations, {len(lost)} lost" in stdout
    handler_row = next(t for t in summary["tasks"] if t["task"] == "handler")
    assert handler_row["jobs"] >= len(kept) - 2
    skip_if_misses_disturbed(summary, "handler")  # a run's, from the machine (a simulation has none)
    assert handler_row["deadline_misses"] == 0
    return tick
