"""The compute-only loop (rtsched.sim.compute_only) against the generic engine: on every set that
fits it, the same events for every thread, the same count of completed jobs (hypothesis over
generated sets: P-FP and P-EDF on one or two one-CPU partitions, equal priorities and deadlines,
offsets, sporadic gaps, job limits, several computes per body, drawn execution times, overload);
and the sets it does not fit go to the generic engine."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched.model import taskset_from_dict
from rtsched.sim import SimOptions
from rtsched.sim.compute_only import fits, run_compute_only
from rtsched.sim.engine import Engine
from rtsched.sim.options import SimOverheads
from rtsched.sim.simulate import sim_placement

US = 1_000
MS = 1_000_000
EXAMPLES = int(os.environ.get("SIM_PROPERTY_EXAMPLES", "60"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def compute_sets(draw):
    scheduler = draw(st.sampled_from(["P-FP", "P-EDF"]))
    cpus = draw(st.sampled_from([[0], [0, 1]]))
    n = draw(st.integers(1, 7))
    tasks = []
    for i in range(n):
        period = draw(st.sampled_from([2, 3, 4, 5, 6, 10])) * MS
        deadline_us = draw(st.integers(period // US // 2, period // US))
        computes = draw(st.lists(st.integers(50, deadline_us // 3), min_size=1, max_size=3))  # within the deadline
        task = {"name": f"t{i}", "period": f"{period}ns", "deadline": f"{deadline_us}us",
                "partition": f"cpu{draw(st.sampled_from(cpus))}", "body": [{"compute": f"{c}us"} for c in computes]}
        if draw(st.booleans()):
            task["offset"] = f"{draw(st.integers(0, 4000))}us"
        if draw(st.integers(0, 4)) == 0:
            task["max_jobs"] = draw(st.integers(1, 20))
        if draw(st.integers(0, 3)) == 0:
            task["kind"] = "sporadic"
            task["sporadic"] = {"max_extra": f"{draw(st.integers(0, 3000))}us", "seed": draw(st.integers(0, 99))}
        if scheduler == "P-FP":
            task["priority"] = draw(st.integers(1, 4))  # often equal: FIFO among them
        tasks.append(task)
    options = SimOptions(duration_ns=draw(st.integers(5, 60)) * MS, seed=draw(st.integers(0, 9)),
                         exec_low_ppm=draw(st.sampled_from([None, 200_000, 900_000])))
    return taskset_from_dict({"name": "gen", "platform": {"scheduler": scheduler, "cpus": cpus},
                              "tasks": tasks}), options


def _engine(taskset, options):
    return Engine(taskset, sim_placement(taskset, options), options, options.duration_ns)


@FAST
@given(compute_sets())
def test_the_compute_only_loop_records_what_the_generic_engine_records(case):
    taskset, options = case
    generic, compact = _engine(taskset, options), _engine(taskset, options)
    assert fits(compact, options)
    generic.run()
    run_compute_only(compact)
    assert [t.events for t in compact.threads] == [t.events for t in generic.threads]
    assert compact.jobs_completed == generic.jobs_completed


def _set(extra_platform=None, resources=(), body=None):
    platform = {"scheduler": "P-FP", "cpus": [0]}
    platform.update(extra_platform or {})
    task = {"name": "t", "period": "10ms", "priority": 10, "body": body or [{"compute": "1ms"}]}
    if "partitions" not in platform and platform["scheduler"].startswith("P-"):
        task["partition"] = "cpu0"
    return taskset_from_dict({"name": "x", "platform": platform, "tasks": [task], "resources": list(resources)})


def test_sets_with_locks_overheads_jitter_or_several_cpus_per_domain_go_to_the_generic_engine():
    plain = SimOptions(duration_ns=50 * MS)
    assert fits(_engine(_set(), plain), plain)
    locked = _set(resources=[{"name": "r", "protocol": "pip"}],
                  body=[{"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}])
    assert not fits(_engine(locked, plain), plain)
    for options in (SimOptions(duration_ns=50 * MS, release_jitter_ns=1000),
                    SimOptions(duration_ns=50 * MS, overheads=SimOverheads(context_switch_ns=1)),
                    SimOptions(duration_ns=50 * MS, overheads=SimOverheads(release_latency_ns=1)),
                    SimOptions(duration_ns=50 * MS, overheads=SimOverheads(trace_event_ns=1)),
                    SimOptions(duration_ns=50 * MS, overheads=SimOverheads(interference_ns=1))):
        assert not fits(_engine(_set(), options), options)
    global_two = _set({"scheduler": "G-FP", "cpus": [0, 1]})
    assert not fits(_engine(global_two, plain), plain)
    assert fits(_engine(_set({"scheduler": "G-FP", "cpus": [0]}), plain), plain)
