"""A task's ``stack`` (docs/taskset.md "Tasks", model/stacks.py): validation with its path,
the runner's input (``stack_bytes``, docs/runner-input.md) under both backends, the dump, and
the runner's own refusal. No real-time scheduling is needed."""

from __future__ import annotations

import json
import subprocess

import pytest

from rtsched.model import loads_taskset, taskset_to_dict, to_runner_input
from rtsched.model.stacks import STACK_MAX_BYTES, STACK_MIN_BYTES
from rtsched.model.validate import validate_dict
from rtsched.native import NativeToolMissing, native_tool

LIMITS = (100_000, 4_194_304_000)


def text(stack: str, backend: str = "threads") -> str:
    return (f"name: s\nplatform: {{scheduler: P-FP, backend: {backend}}}\n"
            "tasks:\n"
            f"  - {{name: a, partition: cpu0, priority: 5, period: 10ms, body: [{{compute: 1ms}}]{stack}}}\n"
            "  - {name: b, partition: cpu0, priority: 4, period: 10ms, body: [{compute: 1ms}]}\n")


def errors(source: str) -> list[str]:
    import yaml

    return validate_dict(yaml.safe_load(source))


def resolve(source: str):
    return to_runner_input(loads_taskset(source, "yaml"), "out/t.rtst", duration_ns=10**9, cpus_online=(0, 1),
                           dl_period_limits=LIMITS)


@pytest.mark.parametrize("value, size", [("64KiB", 64 << 10), ("1MiB", 1 << 20), (16384, 16384),
                                         ("256MiB", 256 << 20), ("20000B", 20000)])
@pytest.mark.parametrize("backend", ["threads", "ult"])
def test_a_stack_size_reaches_the_runner_and_means_the_same_on_both_backends(value, size, backend):
    source = text(f", stack: {value}", backend)
    ts = loads_taskset(source, "yaml")
    assert [t.stack_bytes for t in ts.tasks] == [size, None]
    assert [t["stack_bytes"] for t in resolve(source)["tasks"]] == [size, 0]  # 0: the backend's default


def test_the_stack_round_trips_through_the_dump():
    ts = loads_taskset(text(", stack: 64KiB"), "yaml")
    dumped = taskset_to_dict(ts)
    assert dumped["tasks"][0]["stack"] == 64 << 10 and "stack" not in dumped["tasks"][1]
    assert loads_taskset(json.dumps(dumped), "json") == ts


@pytest.mark.parametrize(
    "value, message",
    [
        ("8KiB", f"a stack of 16KiB ({STACK_MIN_BYTES}) to 256MiB ({STACK_MAX_BYTES}) bytes, got 8192"),
        (STACK_MIN_BYTES - 1, f"got {STACK_MIN_BYTES - 1}"),
        ("257MiB", f"got {257 << 20}"),
        ("64KB", 'expected a number of bytes such as 4096 or 64KiB (units B, KiB, MiB, GiB, TiB), got "64KB"'),
        ("-64KiB", 'got "-64KiB"'),
        (0, "must be 1 to"),
        (True, "expected a number of bytes such as 4096 or 64KiB, got true"),
        (65536.5, "got 65536.5"),
    ],
)
def test_a_bad_stack_is_one_error_at_its_path(value, message):
    found = errors(text(f", stack: {json.dumps(value)}"))
    assert len(found) == 1, found
    assert found[0].startswith("tasks[0].stack: ") and message in found[0], found


def test_the_runner_refuses_a_stack_below_the_minimum_itself(tmp_path):
    """An input error (exit 2) at the task's path, before anything runs."""
    try:
        runner = native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))
    for stack, words in ((STACK_MIN_BYTES - 1, f"stack_bytes: {STACK_MIN_BYTES - 1} is not 0 (the default) or "
                                               f"at least {STACK_MIN_BYTES}"),
                         (STACK_MAX_BYTES + 1, "stack_bytes")):
        spec = resolve(text(""))
        spec["tasks"][0]["stack_bytes"] = stack
        path = tmp_path / "runner.json"
        path.write_text(json.dumps(spec))
        done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
        assert done.returncode == 2, done.stderr
        assert "$.tasks[0]" in done.stderr and words in done.stderr, done.stderr
