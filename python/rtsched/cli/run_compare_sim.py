"""``rtsched run FILE --compare-sim``: how the run beside its simulation is printed (the
simulation and the comparison are ``rtsched.pipeline.comparisons.compare_sim``'s): per task the mean
responses side by side and the diverging jobs with the largest gap, explained (docs/run.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtsched.cli.tables import figures_table, print_fitting
from rtsched.cli.tables import ms as _ms

if TYPE_CHECKING:
    from rich.console import Console

    from rtsched.pipeline.compare import Comparison

__all__ = ["print_sim_comparison", "DIVERGING_SHOWN"]

#: Diverging jobs explained one by one in the notes (all of them in summary.json and the CSV).
DIVERGING_SHOWN = 5


def print_sim_comparison(beside: Comparison, console: Console) -> None:
    """Per task: observed and simulated mean response over the jobs in both, the gap, the jobs
    that diverge; then the diverging jobs with the largest gap, each with its explanation."""
    c = beside.jobs
    assert c is not None, "a run compared with its simulation job by job"
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
    console.print(f"simulation in {beside.runs['sim'].out_dir}/; every job side by side in "
                  f"{beside.files['compare-sim.csv']}")
