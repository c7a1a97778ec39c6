"""The runner's input (docs/runner-input.md) is one vocabulary (issue 36, item 4): every key
rtsched.model.resolve writes is one tools/run/spec.c accepts (the runner refuses unknown keys),
and every key spec.c accepts is one the resolver writes, object by object, over the examples."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rtsched.model import TaskSetError, load_taskset, taskset_from_dict, to_runner_input

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "tools" / "run" / "spec.c"
if not SPEC.exists():
    pytest.skip(f"{SPEC} not found (not run from a source checkout)", allow_module_level=True)


def c_key_lists() -> dict[str, set[str]]:
    """``function.array`` -> the keys of each ``static const char *const array[]`` in spec.c."""
    lists: dict[str, set[str]] = {}
    function = ""
    text = SPEC.read_text()
    for match in re.finditer(r"^static bool (\w+)\(|static const char \*const (\w+)\[\] = \{(.*?)NULL\s*\};",
                             text, re.M | re.S):
        if match.group(1):
            function = match.group(1)
        else:
            lists[f"{function}.{match.group(2)}"] = set(re.findall(r'"(\w+)"', match.group(3)))
    return lists


C_KEYS = c_key_lists()

#: An action's op -> the key list spec.c checks it with.
ACTION_LISTS = {
    "compute": "read_action.varying", "sleep": "read_action.timed", "lock": "read_action.on_resource",
    "unlock": "read_action.on_resource", "wait": "read_action.on_condvar", "signal": "read_action.on_condvar",
    "broadcast": "read_action.on_condvar", "call": "read_action.on_server", "prem": "read_prem.keys",
    "memwrite": "read_write.mem_keys", "iowrite": "read_write.io_keys", "activate": "read_action.on_task",
}
#: A list of the input -> the key list spec.c checks its items with.
ITEM_LISTS = {"cpusets": "read_cpuset.keys", "resources": "read_resource.keys", "condvars": "read_condvar.keys",
              "servers": "read_server.keys", "reservations": "read_reservation.keys", "tasks": "read_task.keys"}


#: What no example writes: a task's writes (docs/taskset.md, rt-app's mem and iorun).
WRITES = {"name": "writes", "duration": "1s", "platform": {"scheduler": "G-FP"}, "tasks": [
    {"name": "w", "period": "10ms", "priority": 10, "body": [{"memwrite": {"bytes": "4KiB", "wcet": "1ms"}},
                                                           {"iowrite": {"bytes": "1KiB", "wcet": "1ms"}}]}]}


#: What no example writes yet: an event task and its activator (docs/taskset.md "Task kinds").
EVENTS = {"name": "events", "duration": "1s", "platform": {"scheduler": "G-FP"}, "tasks": [
    {"name": "tick", "period": "10ms", "priority": 20, "body": [{"compute": "1ms"}, {"activate": "handler"}]},
    {"name": "handler", "kind": "event", "period": "10ms", "priority": 10, "activation_queue": 2,
     "body": [{"compute": "1ms"}]}]}


def _sets() -> list[Any]:
    sets: list[Any] = [taskset_from_dict(WRITES), taskset_from_dict(EVENTS)]
    for path in sorted((ROOT / "examples").rglob("*.yaml")):
        try:
            sets.append(load_taskset(path))
        except TaskSetError:
            continue  # not a task set (a sweep, an I/O system)
    return sets


def _written() -> dict[str, set[str]]:
    """The keys the resolver writes for the examples, by spec.c's key list."""
    seen: dict[str, set[str]] = {}

    def note(where: str, data: dict[str, Any]) -> None:
        seen.setdefault(where, set()).update(data)

    for taskset in _sets():
        try:
            runner = to_runner_input(taskset, "t.rtst", cpus_online=(0, 1, 2, 3),
                                     dl_period_limits=(100_000, 4_194_304_000))
        except TaskSetError:
            continue  # analysed only (the distributed protocols)
        note("read_spec.keys", runner)
        note("read_trace.keys", runner["trace"])
        for key, where in ITEM_LISTS.items():
            for item in runner[key]:
                note(where, item)
        for reservation in runner["reservations"]:
            if reservation.get("controller"):
                note("read_controller.keys", reservation["controller"])
        for task in runner["tasks"]:
            for action in task["body"]:
                note(ACTION_LISTS[action["op"]], action)
    return seen


WRITTEN = _written()


def test_the_key_lists_are_found():
    assert set(ACTION_LISTS.values()) | set(ITEM_LISTS.values()) | {"read_spec.keys", "read_trace.keys",
                                                                     "read_controller.keys"} <= set(C_KEYS)
    assert {"read_spec.keys", "read_task.keys", "read_resource.keys", "read_action.timed"} <= set(WRITTEN)


@pytest.mark.parametrize("where", sorted(set(ACTION_LISTS.values()) | set(ITEM_LISTS.values())
                                         | {"read_spec.keys", "read_trace.keys", "read_controller.keys"}))
def test_the_resolver_writes_the_keys_the_runner_reads(where):
    if where not in WRITTEN:
        pytest.skip(f"no example makes the resolver write {where}'s object")
    assert WRITTEN[where] <= C_KEYS[where], f"the runner would refuse {sorted(WRITTEN[where] - C_KEYS[where])}"
    assert C_KEYS[where] <= WRITTEN[where], f"the runner reads {sorted(C_KEYS[where] - WRITTEN[where])}, never written"
