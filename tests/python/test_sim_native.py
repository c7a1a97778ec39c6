"""The compiled compute-only loop (rtsched-sim-loop, tools/sim) against the Python one
(rtsched.sim.compute_only): for the same set, options and seed, the same trace file byte for byte
and the same count of completed jobs (hypothesis over generated sets: P-FP and P-EDF on one-CPU
partitions and on clusters of two CPUs, G-FP and G-EDF, 1 to 4 CPUs, equal priorities and
deadlines, offsets, sporadic gaps, job limits, several computes per body, drawn execution times,
overload); which loop ``simulate`` picks and says it picked; the program's refusals.

Needs the program built (RTSCHED_NATIVE_BIN at the build's tools folder, as the test command
sets it); without it these tests skip, saying so."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings

from rtsched.model import taskset_from_dict
from rtsched.native import NativeToolFailed
from rtsched.sim import SimOptions, simulate
from rtsched.sim.engine import Engine
from rtsched.sim.native_loop import PROGRAM, fits_native, native_loop_program, run_native_loop
from rtsched.sim.simulate import sim_placement
from sim_helpers import compute_only_sets

MS = 1_000_000
EXAMPLES = int(os.environ.get("SIM_PROPERTY_EXAMPLES", "60"))
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

needs_program = pytest.mark.skipif(native_loop_program() is None,
                                   reason=f"{PROGRAM} is not built (set RTSCHED_NATIVE_BIN to build/dev/tools)")


def _both(taskset, options, tmp_path):
    """The native run and the Python run of one set: (SimRun, trace bytes) each."""
    native = simulate(taskset, options, tmp_path / "native.rtst")
    python = simulate(taskset, SimOptions(**{**options.__dict__, "native": False}), tmp_path / "python.rtst")
    return (native, (tmp_path / "native.rtst").read_bytes()), (python, (tmp_path / "python.rtst").read_bytes())


@needs_program
@FAST
@given(compute_only_sets(max_cpus=4, max_tasks=12, min_compute_us=2, sporadic_seeds=[0, 1, 99, 2**63 - 5],
                         sim_seeds=[0, 1, 9, -3, 2**40], exec_lows=[None, 0, 200_000, 900_000, 1_000_000]))
def test_the_compiled_loop_writes_the_python_loop_s_trace_byte_for_byte(tmp_path, case):
    taskset, options = case
    (native, native_bytes), (python, python_bytes) = _both(taskset, options, tmp_path)
    assert (native.engine, python.engine) == ("native", "python")
    assert native_bytes == python_bytes
    assert native.jobs_completed == python.jobs_completed


@needs_program
def test_long_drawn_computes_big_seeds_and_long_names_match(tmp_path):
    """Computes past 2^32 ns (a draw of more than 32 random bits), a seed of several 32-bit words,
    and names as long as the model allows (63 and 31 characters: the trace's fields less the NUL)."""
    name = "s" * 63
    tasks = [{"name": "t" * 31, "period": "20s", "priority": 2,
              "body": [{"compute": "5s"}, {"compute": "1ns"}]},
             {"name": "b", "period": "7s", "priority": 1, "body": [{"compute": "4300ms"}]}]
    taskset = taskset_from_dict({"name": name, "platform": {"scheduler": "G-FP", "cpus": [0, 1]}, "tasks": tasks})
    for seed in (2**70 + 3, -(2**33)):
        options = SimOptions(duration_ns=100 * 10**9, seed=seed, exec_low_ppm=1)
        (native, native_bytes), (python, python_bytes) = _both(taskset, options, tmp_path)
        assert native_bytes == python_bytes and native.jobs_completed == python.jobs_completed > 10


@needs_program
def test_without_a_trace_path_the_compiled_loop_counts_the_same_jobs(tmp_path):
    taskset, options = _plain_set()
    assert simulate(taskset, options).jobs_completed == simulate(taskset, options, tmp_path / "t.rtst").jobs_completed


def _plain_set(resources=(), body=None):
    task = {"name": "t", "period": "10ms", "priority": 10, "partition": "cpu0", "body": body or [{"compute": "1ms"}]}
    data = {"name": "x", "platform": {"scheduler": "P-FP", "cpus": [0]}, "tasks": [task], "resources": list(resources)}
    return taskset_from_dict(data), SimOptions(duration_ns=50 * MS)


@needs_program
def test_simulate_says_which_loop_ran(tmp_path, monkeypatch):
    taskset, options = _plain_set()
    assert simulate(taskset, options).engine == "native"
    assert simulate(taskset, SimOptions(duration_ns=50 * MS, native=False)).engine == "python"
    locked, _ = _plain_set([{"name": "r", "protocol": "pip"}], [{"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}])
    assert simulate(locked, options).engine == "generic"
    assert simulate(taskset, SimOptions(duration_ns=50 * MS, release_jitter_ns=5)).engine == "generic"
    # without the program (not built, not installed): the Python loop, the same trace
    monkeypatch.setenv("RTSCHED_NATIVE_BIN", str(tmp_path))
    monkeypatch.setattr("rtsched.native.PACKAGE_BIN", tmp_path)
    assert native_loop_program() is None
    assert simulate(taskset, options).engine == "python"


def test_a_varying_compute_takes_the_python_loop():
    """Its per-job values (docs/taskset.md), with or without --exec-low for the fixed computes."""
    taskset, _ = _plain_set(body=[{"compute": {"uniform": ["1ms", "4ms"], "seed": 11}}, {"compute": "500us"}])
    for low in (None, 500_000):
        options = SimOptions(duration_ns=50 * MS, exec_low_ppm=low)
        assert not fits_native(Engine(taskset, sim_placement(taskset, options), options, 50 * MS), options)
        assert simulate(taskset, options).engine == "python"


def test_times_not_drawn_by_the_simulator_s_draws_take_the_python_loop():
    taskset, options = _plain_set()
    engine = Engine(taskset, sim_placement(taskset, options), options, options.duration_ns)
    assert fits_native(engine, options)
    engine.threads[0].exec_times = object()  # another source of execution times (a per-job distribution)
    assert not fits_native(engine, options)
    for low in (-1, 1_000_001):  # a draw the Python loop refuses: it stays the one that refuses
        odd = SimOptions(duration_ns=50 * MS, exec_low_ppm=low)
        assert not fits_native(Engine(taskset, sim_placement(taskset, odd), odd, 50 * MS), odd)


@needs_program
def test_the_program_s_errors_reach_the_caller(tmp_path):
    program = native_loop_program()
    assert program is not None
    done = subprocess.run([str(program)], input="rtsched-sim-loop 1 run 10 10 1 1 - domain 1 0 task 0 0 1 0",
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == "rtsched-sim-loop: input: task: period: not an integer >= 1: '0'\n"
    taskset, options = _plain_set()
    engine = Engine(taskset, sim_placement(taskset, options), options, options.duration_ns)
    with pytest.raises(NativeToolFailed, match="No such file or directory"):
        run_native_loop(engine, options, "x", options.duration_ns, tmp_path / "missing" / "t.rtst")


@needs_program
def test_the_command_runs_the_compiled_loop_unless_told_and_says_so(tmp_path):
    from rtsched.cli.main import main

    example = tmp_path / "set.json"
    example.write_text(json.dumps({"name": "two", "platform": {"scheduler": "G-EDF", "cpus": [0, 1]}, "tasks": [
        {"name": "a", "period": "5ms", "body": [{"compute": "3ms"}]},
        {"name": "b", "period": "7ms", "body": [{"compute": "4ms"}]},
        {"name": "c", "period": "9ms", "body": [{"compute": "2ms"}, {"compute": "1ms"}]}]}))
    for flags, engine in (((), "native"), (("--python-loop",), "python")):
        out = tmp_path / engine
        assert main(["sim", str(example), "--duration", "1s", "--ideal", "--no-plots",
                     "--out", str(out), *flags]) == 0
        summary = json.loads((out / "summary.json").read_text())
        assert summary["simulated"]["engine"] == engine
    assert (tmp_path / "native" / "trace.rtst").read_bytes() == (tmp_path / "python" / "trace.rtst").read_bytes()
