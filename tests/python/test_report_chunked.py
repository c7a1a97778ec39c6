"""The report is built a time window at a time (report/job_pass.py): jobs.csv, trace.pftrace, the
job table's counts and the per-task statistics are the same bytes and numbers whatever the size
of the blocks the trace is read in, down to one event, where every job spans blocks (released in
one, started in another, completed in a third) and the jobs still pending at the end are counted
from their releases as always."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from rtsched.model import load_taskset, taskset_from_dict
from rtsched.pipeline import ReportSettings, run_experiment
from rtsched.report.export_csv import JobCsv
from rtsched.report.export_pftrace import PftraceWriter
from rtsched.report.jobs import JobTable, build_job_table
from rtsched.report.report import release_paces
from rtsched.report.stats import JobFigures, TaskFigures, figures_stats
from rtsched.sim import SimOptions, SimProducer

from test_report_unfinished_misses import STARVING_SET

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _rm_set(n: int) -> dict:
    """n periodic tasks on one CPU, rate-monotonic, a total utilization of about 0.9."""
    periods = [4 + 3 * k for k in range(n)]
    return {"name": f"rm{n}", "platform": {"scheduler": "P-FP", "cpus": [0]},
            "tasks": [{"name": f"t{k}", "period": f"{p}ms", "priority": 90 - k, "partition": "cpu0",
                       "body": [{"compute": f"{int(p * 900 / n)}us"}]} for k, p in enumerate(periods)]}


SETS = {
    "overload": lambda: load_taskset(EXAMPLES / "overload.yaml"),
    "picv-rpc": lambda: load_taskset(EXAMPLES / "picv-rpc.yaml"),
    "locks": lambda: load_taskset(EXAMPLES / "locks.yaml"),
    "ult-cedf": lambda: load_taskset(EXAMPLES / "ult-cedf.yaml"),
    "rm6": lambda: taskset_from_dict(_rm_set(6)),
    "starving": lambda: taskset_from_dict(yaml.safe_load(yaml.safe_dump(STARVING_SET))),
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_chunked_is_whole(tmp_path, name):
    taskset = SETS[name]()
    result = run_experiment(taskset, SimProducer(SimOptions(duration_ns=150_000_000, cpus=(0, 1, 2, 3))),
                            tmp_path / "whole", settings=ReportSettings(plots=False))
    report = result.report
    assert report is not None
    trace, tasks = report.trace, taskset.tasks
    for block_events in (1, 2, 7):
        out = tmp_path / f"blocks-{block_events}"
        out.mkdir()
        figures = TaskFigures()
        with open(out / "trace.pftrace", "wb") as pftrace:
            csv = JobCsv(out / "jobs.csv", {s["task_id"]: s["tid"] for s in trace.streams},
                         {s["task_id"]: s["period_ns"] for s in trace.streams}, wcet_ns=[t.wcet_ns for t in tasks],
                         task_cpus=[report.placement.cpus_of(t.name) for t in tasks])
            table = build_job_table(trace, release_paces(taskset), block_events=block_events,
                                    consumers=[figures, csv, PftraceWriter(trace, pftrace)])
        for file in ("jobs.csv", "trace.pftrace"):
            assert (out / file).read_bytes() == result.files[file].read_bytes(), (file, block_events)
        assert table.tasks == report.table.tasks and table.completed == report.table.completed
        assert table.jobs.tobytes() == report.table.jobs.tobytes()
        stats = figures_stats(table.tasks, figures.by_task, report.analysis)
        assert [asdict(s) for s in stats] == [asdict(s) for s in figures_stats(
            report.table.tasks, figures_of(report.table), report.analysis)]
    if name == "starving":
        low = next(t for t in report.table.tasks if t.name == "low")
        assert (low.released, low.unfinished_missed) == (8, 7)  # released every 20 ms of 150, none started
    else:
        assert report.table.completed >= 10


def figures_of(table: JobTable) -> dict[int, JobFigures]:
    """Each task's figures over its rows at hand, in one block."""
    figures = {info.index: JobFigures() for info in table.tasks}
    for info in table.tasks:
        figures[info.index].add(table.of_task(info.index))
    return figures
