"""``simulate``: one simulated run of a task set, its trace written like the runner's.

    from rtsched.sim import SimOptions, simulate
    run = simulate(taskset, SimOptions(duration_ns=10**9), trace_path="out/x/trace.rtst")
    run.jobs_completed, run.placement, run.trace_path, run.engine

Three loops, one trace: a set whose bodies are only ``compute`` (no locks, overheads or jitter)
runs in the compiled compute-only loop (``native``: ``rtsched-sim-loop``, when installed and
``SimOptions.native``), else in its Python form (``python``: ``compute_only``); any other set in
the engine's own loop (``generic``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtsched.cpus import allowed_cpus
from rtsched.model import TaskSet
from rtsched.model.placement import Placement, place, placement_problems
from rtsched.model.validate import TaskSetError
from rtsched.sim.compute_only import fits, run_compute_only
from rtsched.sim.engine import Engine
from rtsched.sim.native_loop import fits_native, native_loop_program, run_native_loop
from rtsched.sim.options import DEFAULT_DURATION_NS, SimOptions
from rtsched.sim.support import check_supported
from rtsched.sim.trace_writer import write_sim_trace

__all__ = ["SimRun", "simulate", "sim_placement"]


@dataclass(frozen=True)
class SimRun:
    """One simulation: where the threads ran, how long, how many jobs completed, the trace file, and
    the loop that ran it: ``native``, ``python`` or ``generic`` (the module's text)."""

    taskset: TaskSet
    placement: Placement
    duration_ns: int
    jobs_completed: int
    trace_path: Path | None
    engine: str = "generic"


def sim_placement(taskset: TaskSet, options: SimOptions) -> Placement:
    """The set's placement: its own CPUs, else ``options.cpus``, else the CPUs this process may use.
    Raises TaskSetError for a partition those CPUs do not have."""
    placement = place(taskset, options.cpus if options.cpus is not None else allowed_cpus())
    problems = placement_problems(taskset, placement)
    if problems:
        raise TaskSetError(problems)
    return placement


def simulate(taskset: TaskSet, options: SimOptions | None = None, trace_path: str | Path | None = None, *,
             placement: Placement | None = None) -> SimRun:
    """Simulate ``taskset`` and, given ``trace_path``, write its trace there. ``placement``: the
    set's, when the caller has made it (``sim_placement``; the pipeline places a set once).

    Raises SimUnsupported (naming each feature the set uses that is not simulated) and
    ValueError for a duration that is not positive."""
    options = options or SimOptions()
    check_supported(taskset)
    duration = options.duration_ns or taskset.duration_ns or DEFAULT_DURATION_NS
    if duration <= 0:
        raise ValueError(f"duration: must be > 0, got {duration}ns")
    placement = placement if placement is not None else sim_placement(taskset, options)
    engine = Engine(taskset, placement, options, duration)
    path = Path(trace_path) if trace_path is not None else None
    if not fits(engine, options):
        engine.run()
        loop = "generic"
    elif options.native and fits_native(engine, options) and native_loop_program() is not None:
        jobs = run_native_loop(engine, options, taskset.name, duration, path)
        return SimRun(taskset, placement, duration, jobs, path, "native")
    else:
        run_compute_only(engine)
        loop = "python"
    written = None
    if path is not None:
        written = write_sim_trace(path, taskset.name, duration, [*engine.threads, *engine.reservations])
    return SimRun(taskset, placement, duration, engine.jobs_completed, written, loop)
