"""Varying demand in the runner input (``per_job_ns``, rtsched-runner/6) and rtsched-run's reader of it."""

from __future__ import annotations

import itertools
import json
import subprocess

import pytest

from rtsched.model import TaskSetError, taskset_from_dict, to_runner_input
from rtsched.model.demand import MAX_JOB_DURATIONS, job_durations
from rtsched.native import NativeToolMissing, native_tool

MS = 1_000_000


def taskset(*body, period="10ms", **task):
    return taskset_from_dict({
        "name": "vd",
        "platform": {"scheduler": "P-FP", "cpus": [0]},
        "tasks": [{"name": "a", "period": period, "priority": 10, "partition": "cpu0", "body": list(body), **task}],
    })


def resolve(ts, duration_ns):
    return to_runner_input(ts, "out/t.rtst", duration_ns=duration_ns, cpus_online=(0,),
                           dl_period_limits=(100_000, 4_000_000_000))


def test_a_varying_compute_carries_one_value_per_job_of_the_run_drawn_as_the_stream():
    ts = taskset({"compute": "1ms"}, {"compute": {"uniform": ["1ms", "3ms"], "seed": 2}}, offset="5ms")
    body = resolve(ts, 1000 * MS)["tasks"][0]["body"]
    assert body[0] == {"op": "compute", "ns": MS}
    # jobs at 5, 15, ..., 995 ms: 100 of them (floor((1000 - 5) / 10) + 1)
    assert body[1]["op"] == "compute" and body[1]["ns"] == 3 * MS and len(body[1]["per_job_ns"]) == 100
    stream = job_durations(ts.tasks[0].body[1].demand, "a", 1)
    assert body[1]["per_job_ns"] == list(itertools.islice(stream, 100))


def test_max_jobs_and_a_short_cycling_trace_bound_the_list(tmp_path):
    (tmp_path / "d.csv").write_text("c_us\n100\n200\n300\n")
    ts = taskset({"compute": {"trace": str(tmp_path / "d.csv")}}, {"compute": {"empirical": ["1ms"]}}, max_jobs=7)
    body = resolve(ts, 1000 * MS)["tasks"][0]["body"]
    assert body[0]["per_job_ns"] == [100_000, 200_000, 300_000]  # the runner cycles: job k takes (k-1) mod 3
    assert body[1]["per_job_ns"] == [MS] * 7


def test_a_run_longer_than_the_list_holds_is_an_error_with_its_path():
    ts = taskset({"compute": {"uniform": ["100us", "200us"]}}, period="1ms")
    with pytest.raises(TaskSetError) as err:
        resolve(ts, (MAX_JOB_DURATIONS + 5) * MS)
    assert any(e.startswith(f"tasks[0].body[0].compute: the run has up to {MAX_JOB_DURATIONS + 6} jobs")
               for e in err.value.errors)


def _runner():
    try:
        return native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))


@pytest.mark.parametrize("per_job, message", [
    ([], "$.tasks[0].body[0].per_job_ns: expected 1 to 1048576 durations, got 0"),
    ([1000, 4 * MS], "$.tasks[0].body[0].per_job_ns: item 1: expected a duration in ns in [0, 3000000]"),
    ([1000, -1], "$.tasks[0].body[0].per_job_ns: item 1: expected a duration in ns in [0, 3000000]"),
    ("1ms", "$.tasks[0].body[0].per_job_ns: expected an array"),
])
def test_the_runner_refuses_bad_per_job_durations_with_their_path(tmp_path, per_job, message):
    runner = _runner()
    spec = resolve(taskset({"compute": {"uniform": ["1ms", "3ms"]}}), 100 * MS)
    spec["tasks"][0]["body"][0]["per_job_ns"] = per_job
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_per_job_durations_only_on_a_compute(tmp_path):
    runner = _runner()
    spec = resolve(taskset({"sleep": "1ms"}, wcet="1ms"), 100 * MS)
    spec["tasks"][0]["body"][0]["per_job_ns"] = [1000]
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "$.tasks[0].body[0].per_job_ns: unknown key" in done.stderr
