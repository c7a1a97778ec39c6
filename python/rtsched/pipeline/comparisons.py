"""``rtsched run``'s comparisons: results produced in turn, then the one comparison over them
(``rtsched.pipeline.compare.compare``), then its files.

- ``compare_picv``: the set with and without PI-CV (seed 004 §6.2, Table II and Fig. 9), into
  OUT/picv and OUT/no-picv; OUT/compare.json and, with plots, OUT/response-cdf-picv.png (each
  task's response-time CDF with and without PI-CV). The bound is the PI-CV run's: the RPC
  bounds assume it.
- ``compare_backends``: under the threads backend, then the ult backend (docs/ult.md), into
  OUT/threads and OUT/ult; OUT/compare.json.
- ``compare_sim``: the run, then its simulation (same duration, CPUs, PI-CV and bounds, so
  the overheads they count; every fixed ``compute`` at its full length, every varying one at
  the job's own value, the set's own sporadic seeds: the run's releases) into OUT/sim/, job by
  job: OUT/compare-sim.csv (every job in both) and the run's summary.json, ``compare_sim``
  (per task, every diverging job), written once, after the comparison.
- ``compare_rtapp``: an rt-app file under real rt-app (into OUT/rtapp/: the file as rt-app ran
  it, its output and logs; ``rtsched.run.rtapp``), then under rtsched as ``rtsched run`` runs
  it (into OUT), for the same whole seconds; per rt-app thread, jobs, period, run time and
  response side by side (``rtsched.pipeline.compare_rtapp``), OUT/compare-rtapp.json.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from rtsched.model import TaskSet, TaskSetError
from rtsched.outputs import partial, write_text
from rtsched.pipeline.compare import PICV_VARIANTS, Comparison, JobTolerance, compare, produce_in_turn
from rtsched.pipeline.compare_rtapp import RtAppComparison, compare_rtapp_runs, write_rtapp_comparison
from rtsched.pipeline.experiment import ReportSettings, report_production
from rtsched.pipeline.result import Result
from rtsched.pipeline.run_set import RunOptions, default_out_dir, report_run, run_taskset
from rtsched.pipeline.sim_overheads import sim_overheads
from rtsched.pipeline.summary import write_summary
from rtsched.report.compare_sim import write_comparison_csv
from rtsched.run.backends import backend_refusals, backend_variants
from rtsched.run.producer import DEFAULT_DURATION_NS
from rtsched.run.rtapp import rtapp_version, run_rtapp
from rtsched.sim import SimOptions, SimProducer

__all__ = ["compare_backends", "compare_picv", "compare_rtapp", "compare_sim", "rtapp_duration_s", "simulate_run"]

MS = 1_000_000


def _side_by_side(tasksets: dict[str, TaskSet], options: RunOptions, picv: dict[str, bool]) -> Comparison:
    """Run each label's task set into OUT/<label>/, in turn; compare.json when all were reported."""
    first = next(iter(tasksets.values()))
    out_dir = Path(options.out_dir) if options.out_dir is not None else default_out_dir(first)

    def step(label: str) -> Callable[[Mapping[str, Result]], Result]:
        return lambda _done: run_taskset(tasksets[label], replace(options, picv=picv[label], out_dir=out_dir / label))

    results = produce_in_turn([(label, step(label)) for label in tasksets])
    comparison = compare(results, labels=tuple(tasksets), out_dir=out_dir)
    if len(results) == len(tasksets) and all(r.table is not None for r in results.values()):
        comparison.files["compare.json"] = out_dir / "compare.json"
        write_text(comparison.files["compare.json"], json.dumps(comparison.as_dict(), indent=2) + "\n")
    return comparison


def compare_picv(taskset: TaskSet, options: RunOptions | None = None, *, figure: bool | None = None) -> Comparison:
    """Run ``taskset`` with PI-CV, then without, into OUT/picv and OUT/no-picv, and draw
    OUT/response-cdf-picv.png when ``figure`` (None: when ``options.plots``).
    Stops after the first run when it was interrupted. Raises what run_taskset raises."""
    options = options or RunOptions()
    comparison = _side_by_side({v: taskset for v in PICV_VARIANTS}, options, {"picv": True, "no-picv": False})
    if "compare.json" in comparison.files and (options.plots if figure is None else figure):
        comparison.files["response-cdf-picv.png"] = comparison.out_dir / "response-cdf-picv.png"
        plot_cdf_comparison(comparison, comparison.files["response-cdf-picv.png"])
    return comparison


def compare_backends(taskset: TaskSet, options: RunOptions | None = None) -> Comparison:
    """Run ``taskset`` under the threads backend, then the ult backend (whatever its file's
    ``platform.backend``), into OUT/threads and OUT/ult, one after the other. Raises
    TaskSetError, before running anything, when either backend refuses the set
    (``rtsched.run.backends.backend_refusals``); else what run_taskset raises."""
    options = options or RunOptions()
    refusals = backend_refusals(taskset, options.duration_ns, options.picv)
    if refusals:
        raise TaskSetError(refusals)
    variants = backend_variants(taskset)
    return _side_by_side(variants, options, {b: options.picv for b in variants})


def simulate_run(run: Result) -> Result:
    """Simulate ``run``'s set as it was run into OUT/sim/ (see the module doc), summarised.
    ``run``: reported but not yet summarised (``report_run``); its summary.json is written
    here, without a comparison, when the simulation raises (SimUnsupported), then re-raised."""
    assert run.report is not None, "a run that wrote its trace"
    options = SimOptions(duration_ns=run.report.table.duration_ns, overheads=sim_overheads(run.bounds.overheads),
                         cpus=tuple(run.placement.cpus), picv=run.picv)
    try:
        return write_summary(report_production(run.taskset, SimProducer(options), run.out_dir / "sim",
                                               picv=run.picv, bounds=run.bounds,
                                               settings=ReportSettings(plots=False)))
    except BaseException:
        write_summary(run)
        raise


def compare_sim(taskset: TaskSet, options: RunOptions, tolerance: JobTolerance) -> Comparison:
    """Run ``taskset`` (``report_run``), then, unless the run was interrupted, simulate it
    (``simulate_run``) and compare them job by job; the run's summary.json is written once,
    with the comparison when there is one. Raises what both raise."""
    results = produce_in_turn([("run", lambda _done: report_run(taskset, options)),
                               ("sim", lambda done: simulate_run(done["run"]))])
    return summarise_beside_sim(results, tolerance)


def summarise_beside_sim(results: Mapping[str, Result], tolerance: JobTolerance) -> Comparison:
    """The run (``results["run"]``, not yet summarised) beside its simulation (``results["sim"]``,
    absent after an interrupted run): compare-sim.csv and the run's summary.json."""
    run = results["run"]
    if "sim" not in results:
        return compare({"run": write_summary(run)}, labels=("run", "sim"), out_dir=run.out_dir)
    comparison = compare(results, out_dir=run.out_dir, jobs=tolerance)
    assert comparison.jobs is not None
    comparison.files["compare-sim.csv"] = run.out_dir / "compare-sim.csv"
    write_comparison_csv(comparison.jobs, comparison.files["compare-sim.csv"])
    sim = results["sim"]
    appended = {"compare_sim": {"simulated_jobs": sim.summary["simulated"]["jobs_completed"],
                                **comparison.jobs.as_dict()}}
    comparison.runs["run"] = write_summary(run, files={"compare-sim.csv": comparison.files["compare-sim.csv"],
                                                       "sim/": Path(sim.out_dir)}, appended=appended)
    return comparison


def rtapp_duration_s(taskset: TaskSet, duration_ns: int | None) -> int:
    """The run's length for both rt-app and rtsched: ``duration_ns`` (``--duration``), else the
    file's ``global.duration``, else rtsched's default; in whole seconds, rt-app's only unit.
    Raises ValueError for another length."""
    ns = duration_ns or taskset.duration_ns or DEFAULT_DURATION_NS
    if ns % 1_000_000_000:
        raise ValueError(f"rt-app runs for whole seconds (its global duration), not {ns / 1e9:g} s: "
                         "give --duration in seconds")
    return ns // 1_000_000_000


def compare_rtapp(taskset: TaskSet, source: Path, binary: Path, origins: Mapping[str, tuple[str, int]],
                  options: RunOptions, *, runtime: bool = False) -> RtAppComparison:
    """Run the rt-app file ``source`` (imported as ``taskset``; ``origins``: each task's rt-app
    thread and instance) under the rt-app at ``binary`` into OUT/rtapp/ (``runtime``: its run
    events as runtime events, ``rtsched.run.rtapp``), then under rtsched
    (``run_taskset``) into OUT, both for ``rtapp_duration_s``; compare them per thread and write
    OUT/compare-rtapp.json (not after an interrupted run, whose comparison has no rows). Raises RtAppMissing before running anything when ``binary`` is no
    rt-app, ValueError for a length rt-app cannot run, RtAppFailed, and what run_taskset raises."""
    duration_s = rtapp_duration_s(taskset, options.duration_ns)
    rtapp_version(binary)
    out_dir = Path(options.out_dir) if options.out_dir is not None else default_out_dir(taskset)
    rtapp = run_rtapp(binary, source, duration_s, out_dir / "rtapp", runtime=runtime)
    run = run_taskset(taskset, replace(options, duration_ns=duration_s * 1_000_000_000, out_dir=out_dir))
    comparison = compare_rtapp_runs(run, rtapp, origins, out_dir)
    return comparison if run.table is None else write_rtapp_comparison(comparison)


def plot_cdf_comparison(comparison: Comparison, path: str | Path) -> None:
    """Response-time CDF of each task with (solid) and without (dashed) PI-CV,
    bounds as dotted lines (the paper's Fig. 9 for its two clients)."""
    from rtsched.report.plots import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    callers = [t.name for t in comparison.taskset.rt_tasks if t.calls] or [
        t.name for t in comparison.taskset.rt_tasks
    ]
    for k, name in enumerate(callers):
        color = colors[k % len(colors)]
        for variant, style in zip(PICV_VARIANTS, ("-", "--")):
            run = comparison.runs.get(variant)
            if run is None or run.table is None:
                continue
            info = next((t for t in run.table.tasks if t.name == name), None)
            if info is None:
                continue
            rows = run.table.of_task(info.index)
            if not len(rows):
                continue
            response = np.sort(rows["response"]) / MS
            y = np.arange(1, len(response) + 1) / len(response)
            label = f"{name}, {'PI-CV' if variant == 'picv' else 'no PI-CV'}"
            ax.step(response, y, where="post", linestyle=style, color=color, label=label)
        bound = next((s.bound_ns for s in comparison.runs["picv"].stats if s.task == name), None) \
            if "picv" in comparison.runs else None
        if bound is not None:
            ax.axvline(bound / MS, color=color, linestyle=":", linewidth=1)
    ax.set_xlabel("response time (ms); dotted: analytical bound with PI-CV")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{comparison.taskset.name}: response-time CDF with and without PI-CV")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    with partial(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)
