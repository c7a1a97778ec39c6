"""``rtsched run FILE --compare-sim``: after the run, simulate the same set and compare job by job.

The simulation gets the run's duration, CPUs, PI-CV setting and bounds (so the overheads
they count: ``--overheads`` / the machine's profile; none with ``--ideal``), every fixed
``compute`` at its full length (the runner's jobs spin their WCET), every varying one at the
job's own value (the runner's, from the same stream) and the set's own sporadic seeds, so
its releases are the run's. It goes to DIR/sim/ (its trace, report and summary); the
comparison (``rtsched.report.compare_sim``) to DIR/compare-sim.csv (every job in both) and
to the run's summary.json, ``compare_sim`` (per task, every diverging job): the run's
summary is written once, after the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtsched.model import TaskSet
from rtsched.pipeline.experiment import ReportSettings, Result, report_production, write_summary
from rtsched.pipeline.run_set import RunOptions, report_run
from rtsched.pipeline.sim_overheads import sim_overheads
from rtsched.report.compare_sim import SimComparison, compare_with_sim, write_comparison_csv
from rtsched.sim import SimOptions, SimProducer

__all__ = ["SimBeside", "run_beside_sim", "simulate_beside"]


@dataclass(frozen=True)
class SimBeside:
    run: Result         # the run, its summary.json written with ``compare_sim``
    sim: Result
    comparison: SimComparison


def simulate_beside(result: Result, tolerance_ns: int, tolerance_share: float) -> SimBeside:
    """Simulate ``result``'s set as it was run, compare, write the files (see the module doc).
    ``result``: a run reported but not yet summarised (``report_run``), with its trace; its
    summary.json is written here, also when the simulation raises (SimUnsupported)."""
    report = result.report
    assert report is not None, "a run that wrote its trace"
    options = SimOptions(
        duration_ns=report.table.duration_ns,
        overheads=sim_overheads(result.bounds.overheads),
        cpus=tuple(result.placement.cpus),
        picv=result.picv,
    )
    try:
        sim = write_summary(report_production(result.taskset, SimProducer(options), result.out_dir / "sim",
                                              picv=result.picv, bounds=result.bounds,
                                              settings=ReportSettings(plots=False)))
    except BaseException:
        write_summary(result)  # the run's, without a comparison
        raise
    assert sim.report is not None
    comparison = compare_with_sim(report, sim.report, kernel=result.kernel, steal=result.steal_samples,
                                  tolerance_ns=tolerance_ns, tolerance_share=tolerance_share)
    csv_path = result.out_dir / "compare-sim.csv"
    write_comparison_csv(comparison, csv_path)
    jobs = sim.summary["simulated"]["jobs_completed"]
    run = write_summary(result, files={"compare-sim.csv": csv_path, "sim/": Path(sim.out_dir)},
                        appended={"compare_sim": {"simulated_jobs": jobs, **comparison.as_dict()}})
    return SimBeside(run, sim, comparison)


def run_beside_sim(taskset: TaskSet, options: RunOptions, tolerance_ns: int,
                   tolerance_share: float) -> tuple[Result, SimBeside | None]:
    """Run ``taskset`` (``report_run``), then, unless the run was interrupted, simulate it
    beside (``simulate_beside``); the run's result (its summary.json written once) and the
    comparison (None for an interrupted run). Raises what both raise."""
    result = report_run(taskset, options)
    if result.interrupted:
        return write_summary(result), None
    beside = simulate_beside(result, tolerance_ns, tolerance_share)
    return beside.run, beside
