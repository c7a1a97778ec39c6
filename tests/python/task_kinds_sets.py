"""Task sets with self-paced and event tasks, shared by test_task_kinds.py and its live side."""

from __future__ import annotations

import copy
from typing import Any

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
