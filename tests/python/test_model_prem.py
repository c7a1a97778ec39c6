"""PREM in the task-set file: the prem action and peripheral tasks load, round-trip, refuse bad
input with its path, and give fp-lp its non-preemptive intervals (a known answer by hand)."""

import json
import subprocess
from pathlib import Path

import pytest

from rtsched.analysis import default_test, from_taskset, run_test
from rtsched.model import Prem, TaskSetError, load_taskset, taskset_from_dict, taskset_to_dict, to_runner_input
from rtsched.native import NativeToolMissing, native_tool

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "prem-pfp.yaml"


def base(**changes):
    """A valid PREM set: one interval on cpu0, a peripheral on cpu1."""
    hi = {"name": "hi", "period": "10ms", "priority": 20, "partition": "cpu0",
          "body": [{"prem": {"buffers": ["128KiB"], "compute": "1ms", "length": "2ms"}}]}
    dma = {"name": "dma", "period": "5ms", "priority": 5, "partition": "cpu1",
           "peripheral": {"buffer": "4MiB"}, "body": [{"compute": "1ms"}]}
    doc = {"name": "p", "platform": {"scheduler": "P-FP", "cpus": [0, 1]}, "tasks": [hi, dma]}
    for key, value in changes.items():
        task, _, field = key.partition("__")
        target = doc["tasks"][0 if task == "hi" else 1]
        if value is None:
            target.pop(field)
        else:
            target[field] = value
    return doc


def errors_of(doc):
    with pytest.raises(TaskSetError) as info:
        taskset_from_dict(doc)
    return info.value.errors


def test_the_example_loads_with_its_intervals_and_its_peripheral():
    ts = load_taskset(EXAMPLE)
    lo = ts.task("lo")
    assert lo.prem_intervals == (
        Prem(buffers_bytes=(256 << 10,), compute_ns=2_000_000, length_ns=3_000_000, access="linear"),
        Prem(buffers_bytes=(64 << 10, 64 << 10), compute_ns=1_500_000, length_ns=2_000_000, access="random"),
    )
    assert lo.wcet_ns == 5_000_000  # the intervals' lengths: the default WCET
    assert ts.task("dma").peripheral_buffer_bytes == 16 << 20
    assert ts.task("hi").peripheral_buffer_bytes is None


def test_a_prem_set_round_trips_through_the_user_format():
    ts = load_taskset(EXAMPLE)
    assert taskset_from_dict(taskset_to_dict(ts)) == ts


def test_fp_lp_reads_the_intervals_from_the_file_and_gives_the_hand_computed_bounds():
    ts = load_taskset(EXAMPLE)
    problem = from_taskset(ts)
    assert {t.name: t.np_segments_ns for t in problem.tasks} == {
        "hi": (2_000_000,), "lo": (3_000_000, 2_000_000), "dma": ()}
    assert default_test(problem) == "fp-lp"
    bounds = {b.name: b.bound_ns for b in run_test("fp-lp", ts).tasks}
    # hi: blocked by lo's longest interval less 1 ns (releases fall on whole ns), then its own 2 ms.
    # lo: its first interval (3 ms) after hi's 2 ms, then its last interval non-preemptively: 7 ms.
    assert bounds == {"hi": 3_000_000 - 1 + 2_000_000, "lo": 7_000_000, "dma": 2_000_000}
    assert run_test("fp-rta", ts).verdict == "unsupported"  # it does not model the intervals


def test_sizes_accept_bytes_and_binary_units():
    doc = base(hi__body=[{"prem": {"buffers": [4096, "1 MiB", "64B"], "compute": "1ms", "length": "2ms"}}])
    assert taskset_from_dict(doc).task("hi").prem_intervals[0].buffers_bytes == (4096, 1 << 20, 64)


@pytest.mark.parametrize("prem, expected", [
    ({"buffers": ["256KB"], "compute": "1ms", "length": "2ms"},
     'tasks[0].body[0].prem.buffers[0]: expected a size such as 256KiB or 4MiB, got "256KB" (write KiB: sizes are binary)'),
    ({"buffers": [32], "compute": "1ms", "length": "2ms"},
     "tasks[0].body[0].prem.buffers[0]: a buffer is 64 B to 256 MiB, got 32 B"),
    ({"buffers": [], "compute": "1ms", "length": "2ms"},
     "tasks[0].body[0].prem.buffers: expected a list of 1 to 8 sizes, got []"),
    ({"buffers": ["4KiB"], "compute": "2ms", "length": "2ms"},
     "tasks[0].body[0].prem.length: the interval (2000000 ns) must be longer than its execution phase's "
     "compute (2000000 ns): the rest is the memory phase's budget"),
    ({"buffers": ["4KiB"], "compute": "1ms", "length": "2ms", "access": "strided"},
     "tasks[0].body[0].prem.access: expected one of linear, random, got \"strided\""),
    ({"buffers": ["4KiB"], "compute": "1ms", "length": "2ms", "lenght": "3ms"},
     "tasks[0].body[0].prem.lenght: unknown key (keys: access, buffers, compute, length)"),
    ({"buffers": ["4KiB"], "length": "2ms"}, 'tasks[0].body[0].prem: missing required key "compute"'),
    ({"buffers": ["4KiB"], "compute": 5, "length": "2ms"}, "tasks[0].body[0].prem.compute: expected a duration"),
])
def test_a_bad_prem_action_is_refused_with_its_path(prem, expected):
    errors = errors_of(base(hi__body=[{"prem": prem}]))
    assert any(e.startswith(expected) for e in errors), errors


def test_a_prem_body_is_made_of_intervals_only_and_its_wcet_is_their_sum():
    doc = base(hi__body=[{"compute": "1ms"}, {"prem": {"buffers": ["4KiB"], "compute": "1ms", "length": "2ms"}}])
    assert errors_of(doc) == ["tasks[0].body[0]: a body with prem actions is made of predictable intervals only, "
                              "got compute: put the work in a prem action's compute"]
    assert errors_of(base(hi__wcet="3ms")) == [
        "tasks[0].wcet: a PREM job lasts the sum of its intervals' lengths (2000000 ns), got wcet 3000000 ns: "
        "leave wcet out"]


def test_prem_needs_partitioned_fixed_priority():
    doc = base()
    doc["platform"] = {"scheduler": "G-FP", "cpus": [0, 1]}
    for t in doc["tasks"]:
        t.pop("partition")
    errors = errors_of(doc)
    assert errors[0].startswith("tasks[0]: PREM (prem actions, peripheral tasks) needs scheduler P-FP with the "
                                "threads backend, got G-FP with threads")
    assert len(errors) == 2  # the peripheral too


def test_a_peripheral_runs_away_from_prem_tasks_and_holds_nothing():
    assert errors_of(base(dma__partition="cpu0")) == [
        "tasks[1].partition: a peripheral runs on CPUs without PREM tasks, but partition cpu0 has CPU 0 with "
        "one: a memory phase would wait for a gated task that cannot run"]
    doc = base()
    doc["resources"] = [{"name": "r"}]
    doc["tasks"][1]["body"] = [{"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}]
    assert errors_of(doc)[0] == ("tasks[1].body[0]: a peripheral's body has compute and sleep only, got lock: "
                                 "a gated task must hold nothing a PREM task may wait for")
    assert errors_of(base(dma__peripheral={"buffer": "1MiB", "rate": 3})) == [
        "tasks[1].peripheral.rate: unknown key (keys: buffer)"]
    assert errors_of(base(dma__peripheral="big")) == [
        "tasks[1].peripheral: expected a mapping {buffer: size}, got \"big\""]


def resolved():
    return to_runner_input(load_taskset(EXAMPLE), "out/t.rtst", cpus_online=(0, 1))


def test_the_runner_input_carries_the_intervals_and_the_priority_that_makes_them_non_preemptive():
    tasks = {t["name"]: t for t in resolved()["tasks"]}
    assert tasks["lo"]["body"][1] == {"op": "prem", "ns": 1_500_000, "length_ns": 2_000_000,
                                      "buffers_bytes": [65536, 65536], "access": "random"}
    # the highest priority among the threads that share its CPU (hi's 20 on cpu0); dma is alone on cpu1
    assert {n: t["prem_priority"] for n, t in tasks.items()} == {"hi": 20, "lo": 20, "dma": 0}
    assert {n: t["peripheral_buffer_bytes"] for n, t in tasks.items()} == {"hi": 0, "lo": 0, "dma": 16 << 20}


@pytest.mark.parametrize("change, expected", [
    (lambda a: a.update(length_ns=a["ns"]), "$.tasks[1].body[1].length_ns: 1500000 is out of range"),
    (lambda a: a.update(buffers_bytes=[100]), "$.tasks[1].body[1].buffers_bytes: item 0: expected a size in bytes, "
                                              "a multiple of 64"),
    (lambda a: a.update(buffers_bytes=[]), "$.tasks[1].body[1].buffers_bytes: expected 1 to 8 buffers"),
    (lambda a: a.update(access="strided"), '$.tasks[1].body[1]: access "strided" is not linear or random'),
    (lambda a: a.update(stride=64), "$.tasks[1].body[1].stride: unknown key"),
])
def test_the_runner_refuses_a_bad_prem_action_with_its_path(tmp_path, change, expected):
    try:
        runner = native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))
    spec = resolved()
    change(spec["tasks"][1]["body"][1])
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and expected in done.stderr, done.stderr
