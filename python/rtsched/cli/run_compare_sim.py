"""``rtsched run FILE --compare-sim``: after the run, simulate the same set and compare job by job.

The simulation gets the run's duration, CPUs, PI-CV setting and the overheads
its bounds count (``--overheads`` / the machine's profile; none with
``--ideal``), every fixed ``compute`` at its full length (the runner's jobs
spin their WCET), every varying one at the job's own value (the runner's, from
the same stream) and the set's own sporadic seeds, so its releases are the run's.
It goes to DIR/sim/ (its trace and report); the comparison
(``rtsched.report.compare_sim``) to DIR/compare-sim.csv (every job in both)
and to summary.json's ``compare_sim`` (per task, every diverging job). The
command prints per task the mean responses side by side and the diverging
jobs with the largest gap, explained (docs/run.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtsched.analysis.overheads import Overheads
from rtsched.cli.tables import figures_table, print_fitting
from rtsched.cli.tables import ms as _ms
from rtsched.outputs import write_text

if TYPE_CHECKING:
    from rich.console import Console

    from rtsched.report.compare_sim import SimComparison
    from rtsched.run import RunResult
    from rtsched.sim.session import SimResult

__all__ = ["SimBeside", "simulate_beside", "print_sim_comparison", "DIVERGING_SHOWN"]

#: Diverging jobs explained one by one in the notes (all of them in summary.json and the CSV).
DIVERGING_SHOWN = 5


@dataclass(frozen=True)
class SimBeside:
    sim: SimResult
    comparison: SimComparison
    summary: dict  # the run's summary with ``compare_sim`` added (as written to summary.json)


def simulate_beside(result: RunResult, overheads: Overheads | None, tolerance_ns: int,
                    tolerance_share: float) -> SimBeside:
    """Simulate ``result``'s set as it was run, compare, and write the files (see the module doc)."""
    from rtsched.report.compare_sim import compare_with_sim, write_comparison_csv
    from rtsched.sim import SimOptions, SimOverheads
    from rtsched.sim.session import simulate_to_dir

    report = result.report
    assert report is not None, "a run that wrote its trace"
    options = SimOptions(
        duration_ns=report.table.duration_ns,
        overheads=SimOverheads.from_overheads(overheads) if overheads is not None else SimOverheads(),
        cpus=tuple(result.placement.cpus),
        picv=result.picv,
    )
    sim = simulate_to_dir(result.taskset, options, result.analysis, result.out_dir / "sim",
                          ideal_analysis=result.ideal_analysis, slack=result.slack,
                          overhead_sources=overheads.sources if overheads is not None else (), plots=False)
    comparison = compare_with_sim(report, sim.report, kernel=result.kernel, steal=result.steal_samples,
                                  tolerance_ns=tolerance_ns, tolerance_share=tolerance_share)
    csv_path = result.out_dir / "compare-sim.csv"
    write_comparison_csv(comparison, csv_path)
    files = {**result.summary.get("files", {}), "compare-sim.csv": str(csv_path), "sim/": str(sim.out_dir)}
    summary = {**result.summary, "files": dict(sorted(files.items())),
               "compare_sim": {"simulated_jobs": sim.run.jobs_completed, **comparison.as_dict()}}
    write_text((result.out_dir / "summary.json"), json.dumps(summary, indent=2) + "\n")
    return SimBeside(sim, comparison, summary)


def print_sim_comparison(beside: SimBeside, console: Console) -> None:
    """Per task: observed and simulated mean response over the jobs in both, the gap, the jobs
    that diverge; then the diverging jobs with the largest gap, each with its explanation."""
    c = beside.comparison
    table = figures_table("the run beside its simulation (same set, duration, overheads)",
                          ("task", "jobs", "observed mean", "simulated mean", "sim - obs", "diverging"),
                          f"means in ms over the jobs in both; diverging: |observed - simulated| above "
                          f"max({_ms(c.tolerance_ns)} ms, {100 * c.tolerance_share:g} % of simulated)")
    for t in c.tasks:
        gap = "–" if t.error_share is None else f"{100 * t.error_share:+.2f} %"
        table.add_row(t.task, str(t.jobs), _ms(t.observed_mean_ns), _ms(t.simulated_mean_ns), gap,
                      str(t.diverging))
    print_fitting(console, table)
    diverging = c.diverging
    if not diverging:
        console.print("no job diverges from its simulation beyond the tolerance")
    else:
        console.print(f"{len(diverging)} job(s) diverge from the simulation beyond what the overhead model "
                      f"explains; the largest:")
        for p in diverging[:DIVERGING_SHOWN]:
            console.print(f"  {p.task} job {p.job} at {_ms(p.release_ns)}: observed {_ms(p.observed_ns)}, "
                          f"simulated {_ms(p.simulated_ns)}, bound {_ms(p.bound_ns)}: {p.verdict}: {p.cause}")
        if len(diverging) > DIVERGING_SHOWN:
            console.print("  (every one in summary.json, compare_sim.diverging, and compare-sim.csv)")
    console.print(f"simulation in {beside.sim.out_dir}/; every job side by side in "
                  f"{beside.sim.out_dir.parent / 'compare-sim.csv'}")
