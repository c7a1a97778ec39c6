"""``enforcement: kernel`` (docs/reservations.md, "Enforced by the kernel"): a top-level reservation
whose CPU worker runs under SCHED_DEADLINE. The model, the round trip, the runner input (its
exclusive cpuset), every bad file rejected with its path, what this machine's kernel refuses at
resolve time, and the runner's own reading of the keys. No real-time scheduling is needed here:
the live tests are in test_run_kernel_reservation_live.py."""

import copy
import json
import subprocess

import pytest

from rtsched.model import taskset_from_dict, taskset_to_dict, to_runner_input, validate_dict
from rtsched.model import TaskSetError
from rtsched.native import NativeToolMissing, native_tool
from rtsched.sim import SimUnsupported, check_supported

MS = 1_000_000
LIMITS = (100_000, 4 * 10**9)  # kernel.sched_deadline_period_min_us / _max_us, in ns
RT_BANDWIDTH = (950_000, 1_000_000)  # kernel.sched_rt_runtime_us / sched_rt_period_us

BASE = {
    "name": "kernel",
    "duration": "1s",
    "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0, 1]},
    "reservations": [
        {"name": "box", "period": "10ms", "budget": "3ms", "scheduler": "EDF", "priority": 50, "partition": "cpu1",
         "enforcement": "kernel"},
        {"name": "a", "parent": "box", "period": "20ms", "budget": "2ms", "scheduler": "FP"},
        {"name": "b", "parent": "box", "period": "10ms", "budget": "1ms", "scheduler": "FP"},
        {"name": "u", "period": "10ms", "budget": "2ms", "scheduler": "FP", "priority": 10, "partition": "cpu0"},
    ],
    "tasks": [
        {"name": "ta", "period": "40ms", "priority": 20, "partition": "cpu1", "reservation": "a",
         "body": [{"compute": "3ms"}]},
        {"name": "tb", "period": "20ms", "priority": 10, "partition": "cpu1", "reservation": "b",
         "body": [{"compute": "1ms"}]},
        {"name": "tu", "period": "20ms", "priority": 10, "partition": "cpu0", "reservation": "u",
         "body": [{"compute": "1ms"}]},
    ],
}


def doc(change=None):
    d = copy.deepcopy(BASE)
    if change:
        change(d)
    return d


def errors(change):
    return validate_dict(doc(change))


def resolve(d, **kw):
    return to_runner_input(taskset_from_dict(d), "t.rtst", cpus_online=(0, 1), dl_period_limits=LIMITS,
                           rt_bandwidth_us=kw.pop("rt_bandwidth_us", RT_BANDWIDTH), **kw)


def test_the_key_is_read_and_survives_the_round_trip():
    ts = taskset_from_dict(doc())
    assert [(r.name, r.enforcement) for r in ts.reservations] == [
        ("box", "kernel"), ("a", "user"), ("b", "user"), ("u", "user")]
    assert taskset_from_dict(taskset_to_dict(ts)) == ts
    assert "enforcement" not in taskset_to_dict(ts)["reservations"][1]  # the default is not written


def test_the_runner_input_gives_its_worker_an_exclusive_cpuset_of_its_cpu():
    runner = resolve(doc())
    assert runner["format"] == "rtsched-runner/14"
    assert runner["cpusets"] == [{"name": "cpu1", "cpus": [1], "exclusive": True}]
    by_name = {r["name"]: r for r in runner["reservations"]}
    assert (by_name["box"]["enforcement"], by_name["box"]["cpuset"], by_name["box"]["cpu"]) == ("kernel", 0, 1)
    assert {(n, r["enforcement"], r["cpuset"]) for n, r in by_name.items() if n != "box"} == {
        ("a", "user", None), ("b", "user", None), ("u", "user", None)}
    assert all(t["cpuset"] is None for t in runner["tasks"])  # the worker joins it, not the tasks


def _set(index, **keys):
    return lambda d: d["reservations"][index].update(**keys)


def _add_task(**keys):
    return lambda d: d["tasks"].append({"name": "x", "period": "10ms", "priority": 5, "body": [{"compute": "1ms"}],
                                        **keys})


def _cbs_u(d):
    d["reservations"][3].update(enforcement="kernel", kind="cbs", scheduler="EDF")
    del d["tasks"][2]["priority"]


@pytest.mark.parametrize(
    "change, expected",
    [
        (_set(0, enforcement="kernl"), "reservations[0].enforcement"),
        (_set(1, enforcement="kernel"), 'reservations[1].enforcement: only a top-level reservation is enforced by '
                                        'the kernel (it throttles the CPU\'s worker, which runs the whole tree); "a" '
                                        'sits in "box"'),
        (_set(3, enforcement="kernel", partition="cpu1"), 'reservations[0].enforcement: enforced by the kernel, '
                                                          '"box" must be alone at the top of partition "cpu1"'),
        (_set(3, partition="cpu1"), 'reservations[0].enforcement: enforced by the kernel, "box" must be alone at '
                                    'the top of partition "cpu1" (one worker runs the CPU and the kernel throttles '
                                    "all of it), but u sit(s) there too"),
        (_add_task(partition="cpu1"), 'tasks[3].reservation: task "x" runs on partition "cpu1" outside "box", which '
                                      "the kernel enforces there"),
        (_cbs_u, 'reservations[3].enforcement: "u" is a CBS; the kernel enforces a periodic reservation'),
        (_set(3, enforcement="kernel", budget="1us", period="1ms"), "reservations[3].budget: SCHED_DEADLINE needs a "
                                                                    "runtime of at least 1024 ns, got 1000 ns"),
        (_set(3, enforcement="kernel", criticality="soft"), 'reservations[3].enforcement: the controller adapts '
                                                            '"u"\'s budget, which the kernel would not follow'),
    ],
)
def test_bad_files_are_rejected_with_their_path(change, expected):
    found = errors(change)
    assert any(e.startswith(expected) for e in found), found


def test_a_soft_kernel_reservation_with_a_fixed_budget_or_with_children_is_accepted():
    assert errors(_set(3, enforcement="kernel", criticality="soft", controller={"policy": "fixed"})) == []
    assert errors(_set(3, enforcement="kernel")) == []  # kernel on both partitions: one each


@pytest.mark.parametrize(
    "change, kw, expected",
    [
        (_set(0, period="10s", budget="3s"), {}, "reservations[0].period: SCHED_DEADLINE on this kernel accepts "
                                                 "periods from 100us to 4000000us"),
        (_set(0, budget="9.6ms"), {}, "reservations[0].budget: bandwidth 0.96 is above what SCHED_DEADLINE admits "
                                      "on one CPU here: sched_rt_runtime_us/sched_rt_period_us = 950000/1000000"),
    ],
)
def test_what_this_machine_refuses_is_named_at_resolve_time(change, kw, expected):
    d = doc(change)
    d["reservations"][1]["budget"] = "100us"  # children that fit any parent
    d["reservations"][2]["budget"] = "100us"
    assert validate_dict(d) == []
    with pytest.raises(TaskSetError) as raised:
        resolve(d, **kw)
    assert any(e.startswith(expected) for e in raised.value.errors), raised.value.errors
    # no bandwidth ceiling (sched_rt_runtime_us = -1): the period rule alone
    if "budget" in expected:
        resolve(d, rt_bandwidth_us=(-1, 1_000_000))


def test_the_simulator_refuses_it_by_name():
    with pytest.raises(SimUnsupported) as raised:
        check_supported(taskset_from_dict(doc()))
    assert raised.value.problems[0].startswith('reservations[0].enforcement: "box" is enforced by the kernel')


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda r: r["reservations"][0].update(enforcement="cbs"), '$.reservations[0]: enforcement "cbs" is not user '
                                                                   "or kernel"),
        (lambda r: r["reservations"][0].pop("enforcement"), "$.reservations[0].enforcement: missing"),
        (lambda r: r["reservations"][0].update(cpuset=1), "$.reservations[0].cpuset: no such cpuset"),
        (lambda r: r["reservations"][1].update(cpuset=0), "$.reservations[1].cpuset: only a reservation enforced by "
                                                          "the kernel has a cpuset"),
        (lambda r: r.update(format="rtsched-runner/8"), '$.format: "rtsched-runner/8" is not rtsched-runner/14'),
    ],
)
def test_the_runner_reads_the_keys_and_names_what_is_wrong_where(tmp_path, change, expected):
    """An input error (exit 2) before anything runs: no real-time scheduling is needed."""
    try:
        runner = native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))
    spec = resolve(doc())
    change(spec)
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done.stderr
    assert expected in done.stderr
