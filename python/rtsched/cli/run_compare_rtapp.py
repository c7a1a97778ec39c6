"""``rtsched run FILE --compare-rtapp PATH``: how an rt-app file run by rtsched beside real rt-app is
printed (the runs and the comparison are ``rtsched.pipeline.comparisons.compare_rtapp``'s): per
rt-app thread, jobs, mean period, run time and response under both, and rtsched's over rt-app's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtsched.cli.tables import figures_table, print_fitting
from rtsched.cli.tables import ms as _ms
from rtsched.pipeline.compare_rtapp import FIGURES, TARGET_SHARE

if TYPE_CHECKING:
    from rich.console import Console

    from rtsched.pipeline.compare_rtapp import RtAppComparison, ThreadRow

__all__ = ["print_rtapp_comparison"]

#: Steal above this share of rt-app's run is noted.
STEAL_NOTE_SHARE = 0.01


def _ratio(row: ThreadRow, figure: str) -> str:
    ratio = row.ratio(figure)
    if ratio is None:
        return "–"
    text = f"{ratio:.3f}"
    return text if row.within(figure) else f"[bold yellow]{text}[/]"


def print_rtapp_comparison(comparison: RtAppComparison, console: Console) -> None:
    """One row per rt-app thread and side (rt-app, then rtsched), then the ratios; then what
    matched no thread, and where both runs' files are."""
    targets = ", ".join(f"{f} {100 * TARGET_SHARE[f]:g} %" for f in FIGURES)
    table = figures_table(
        f"{comparison.taskset.name}: rtsched beside {comparison.rtapp.version.split(' (')[0]} "
        f"({comparison.rtapp.duration_s} s each)",
        ("thread", "under", "jobs", "period", "run", "asked", "response", "tasks"),
        "means in ms over the jobs whose loop ended by the end of the run less half a period; period: between "
        "the starts of "
        "consecutive jobs; run: rt-app, the wall time of its runs, rtsched, the job's CPU time; asked: the runs "
        "the file asks per job; response: from the nominal release to the end of the job's body; ratio: "
        f"rtsched / rt-app, highlighted beyond the target ({targets}; docs/from-rtapp.md)",
        labels=("thread", "under", "tasks"),
    )
    for row in comparison.rows:
        rtapp, ours = row.rtapp, row.rtsched
        table.add_row(row.thread, "rt-app", str(rtapp.jobs), _ms(rtapp.period_mean_ns), _ms(rtapp.run_mean_ns),
                      _ms(rtapp.asked_run_mean_ns), _ms(rtapp.response_mean_ns), "")
        table.add_row("", "rtsched", str(ours.jobs), _ms(ours.period_mean_ns), _ms(ours.run_mean_ns),
                      _ms(ours.asked_run_mean_ns), _ms(ours.response_mean_ns), ", ".join(row.tasks))
        jobs = "=" if rtapp.jobs == ours.jobs else f"[bold yellow]{ours.jobs - rtapp.jobs:+d}[/]"
        period, run, response = (_ratio(row, f) for f in FIGURES)
        table.add_row("", "ratio", jobs, period, run, "", response, "", end_section=True)
    print_fitting(console, table)
    met = sum(r.meets for r in comparison.rows)
    console.print(f"{met} of {len(comparison.rows)} thread(s) within the target")
    if comparison.rtapp.runs_as_runtime:
        console.print("rt-app ran each run event as a runtime event (--rtapp-runtime)")
    elif comparison.rtapp.ns_per_loop is not None:
        console.print(f"rt-app calibrated its run loop at {comparison.rtapp.ns_per_loop} ns per loop (pLoad): its "
                      "runs last as long as asked only while the CPU runs as fast as it did then")
    stolen = {cpu: ns for cpu, ns in (comparison.rtapp.steal_ns or {}).items()
              if ns > STEAL_NOTE_SHARE * comparison.rtapp.duration_s * 1e9}
    if stolen:
        console.print("the hypervisor took CPU time during rt-app's run ("
                      + ", ".join(f"CPU {cpu}: {_ms(ns)} ms" for cpu, ns in stolen.items())
                      + "): rt-app's runs are wall time and include it")
    for row in comparison.rows:
        if row.rtapp.late_loops:
            console.print(f"{row.thread}: under rt-app {row.rtapp.late_loops} loop(s) ended after their timer, "
                          f"{_ms(row.rtapp.late_total_ns)} ms in all: rt-app's relative timer moves the thread's "
                          "later releases that late, rtsched keeps them on the grid")
    for note in comparison.unmatched:
        console.print(f"not compared: {note}")
    files = ", ".join(str(p) for p in comparison.files.values()) or "none"
    console.print(f"rt-app's run in {comparison.rtapp.out_dir}/ (workload.json, rt-app.out, its logs); "
                  f"comparison: {files}")
