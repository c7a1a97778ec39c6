"""The compute-only loop (rtsched.sim.compute_only) against the generic engine: on every set that
fits it, the same events for every thread, the same count of completed jobs (hypothesis over
generated sets: P-FP, P-EDF (one-CPU partitions, or a two-CPU cluster), G-FP and G-EDF on 1 to 3
CPUs, equal priorities and deadlines,
offsets, sporadic gaps, job limits, several computes per body, drawn execution times, overload);
and the sets it does not fit go to the generic engine."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from rtsched.model import taskset_from_dict
from rtsched.sim import SimOptions
from rtsched.sim.compute_only import fits, run_compute_only
from rtsched.sim.engine import Engine
from rtsched.sim.options import SimOverheads
from rtsched.sim.simulate import sim_placement
from sim_helpers import compute_only_sets

MS = 1_000_000
EXAMPLES = int(os.environ.get("SIM_PROPERTY_EXAMPLES", "60"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _engine(taskset, options):
    return Engine(taskset, sim_placement(taskset, options), options, options.duration_ns)


@FAST
@given(compute_only_sets(max_cpus=3, max_tasks=9, min_compute_us=50, sporadic_seeds=range(100), sim_seeds=range(10),
                         exec_lows=[None, 200_000, 900_000]))
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


def test_sets_with_locks_overheads_or_jitter_go_to_the_generic_engine():
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
    assert fits(_engine(_set({"scheduler": "G-FP", "cpus": [0, 1]}), plain), plain)


def test_of_equal_running_keys_the_latest_ready_is_preempted():
    """G-FP on two CPUs: a and b (equal priorities) run, c preempts b, the later ready of them
    (dispatch's rule; a rank by key alone would take a, on the first CPU)."""
    tasks = [{"name": "a", "period": "20ms", "priority": 1, "body": [{"compute": "5ms"}]},
             {"name": "b", "period": "20ms", "priority": 1, "offset": "1ms", "body": [{"compute": "5ms"}]},
             {"name": "c", "period": "20ms", "priority": 5, "offset": "2ms", "body": [{"compute": "1ms"}]}]
    taskset = taskset_from_dict({"name": "x", "platform": {"scheduler": "G-FP", "cpus": [0, 1]}, "tasks": tasks})
    options = SimOptions(duration_ns=10 * MS)
    generic, compact = _engine(taskset, options), _engine(taskset, options)
    generic.run()
    run_compute_only(compact)
    assert [t.events for t in compact.threads] == [t.events for t in generic.threads]
    completions = {t.name: e[0] for t in compact.threads for e in t.events if e[1] == 3}
    assert completions == {"a": 5 * MS, "b": 7 * MS, "c": 3 * MS}
