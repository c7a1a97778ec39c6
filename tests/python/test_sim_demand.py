"""The simulator runs a varying compute for the same per-job durations as the runner input carries."""

from __future__ import annotations

import pytest

from rtsched.model import taskset_from_dict, to_runner_input
from rtsched.sim import SimOptions, simulate
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

MS = 1_000_000
DURATION_NS = 400 * MS


def taskset(extra_actions):
    body_a = [{"compute": {"uniform": ["1ms", "4ms"], "seed": 11}}, {"compute": "500us"},
              {"compute": {"empirical": ["200us", "2ms"]}}, *extra_actions]
    body_b = [{"compute": {"normal": {"mean": "3ms", "stddev": "1ms", "min": "1ms", "max": "5ms"}, "seed": 3}}]
    return taskset_from_dict({
        "name": "vd",
        "platform": {"scheduler": "P-FP", "cpus": [0]},
        "tasks": [
            {"name": "a", "period": "10ms", "priority": 20, "partition": "cpu0", "body": body_a},
            {"name": "b", "period": "15ms", "offset": "2ms", "priority": 10, "partition": "cpu0", "body": body_b},
        ],
    })


def job_cpu_ns(trace_path, task):
    trace = read_trace(trace_path)
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == task)
    return {int(e["job"]): int(e["arg1"]) for e in trace.events_of(stream) if e["type"] == EV.COMPLETE}


def run_durations(ts, task_index):
    """Per job of the run: the sum of its computes' CPU time, from the runner input."""
    body = to_runner_input(ts, "t.rtst", duration_ns=DURATION_NS, cpus_online=(0,),
                           dl_period_limits=(100_000, 4_000_000_000))["tasks"][task_index]["body"]
    jobs = max(len(a.get("per_job_ns", ())) for a in body)
    return {k + 1: sum(a["per_job_ns"][k % len(a["per_job_ns"])] if "per_job_ns" in a else a["ns"]
                       for a in body if a["op"] == "compute") for k in range(jobs)}


@pytest.mark.parametrize("extra, path", [([], "compute-only"), ([{"sleep": "100us"}], "interpreter")])
def test_job_k_computes_in_the_simulation_what_the_runner_input_gives_it(tmp_path, extra, path):
    ts = taskset(extra)
    run = simulate(ts, SimOptions(duration_ns=DURATION_NS, cpus=(0,)), tmp_path / "sim.rtst")
    for index, name in enumerate(("a", "b")):
        simulated = job_cpu_ns(run.trace_path, name)
        expected = run_durations(ts, index)
        assert len(simulated) >= 25, (path, name)
        assert all(simulated[k] == expected[k] for k in simulated), (path, name)
        assert len(set(simulated.values())) > len(simulated) // 2  # the demand does vary


def test_exec_low_leaves_a_varying_compute_alone(tmp_path):
    ts = taskset([])
    plain = simulate(ts, SimOptions(duration_ns=DURATION_NS, cpus=(0,)), tmp_path / "plain.rtst")
    low = simulate(ts, SimOptions(duration_ns=DURATION_NS, cpus=(0,), exec_low_ppm=500_000), tmp_path / "low.rtst")
    assert job_cpu_ns(plain.trace_path, "b") == job_cpu_ns(low.trace_path, "b")  # only varying computes
    assert job_cpu_ns(plain.trace_path, "a") != job_cpu_ns(low.trace_path, "a")  # its fixed 500us is drawn
