"""The one pipeline (rtsched.pipeline, issue 36): a producer behind one interface, the set
placed once and its bounds computed once, summary.json written once, also when a comparison
with a simulation adds to it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

import rtsched.pipeline.bounds as bounds_module
import rtsched.pipeline.summary as summary_module
from rtsched.model import TaskSet, load_taskset
from rtsched.model.placement import Placement
from rtsched.pipeline import ReportSettings, report_production, run_experiment
from rtsched.pipeline.compare import JobTolerance, compare, produce_in_turn
from rtsched.pipeline.comparisons import simulate_run, summarise_beside_sim
from rtsched.producer import Production
from rtsched.sim import SimOptions, SimProducer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NO_PLOTS = ReportSettings(plots=False)


@dataclass
class Replaying:
    """A producer that hands the simulator's trace on as a run's, and counts its calls."""

    inner: SimProducer = field(default_factory=lambda: SimProducer(SimOptions(duration_ns=200_000_000,
                                                                              cpus=(0, 1))))
    calls: list[str] = field(default_factory=list)

    def place(self, taskset: TaskSet) -> Placement:
        self.calls.append("place")
        return self.inner.place(taskset)

    def produce(self, taskset: TaskSet, placement: Placement, out_dir: Path,
                say: Callable[[str], None]) -> Production:
        self.calls.append("produce")
        made = self.inner.produce(taskset, placement, out_dir, say)
        return replace(made, simulated=False, summary_head={"picv": True})


@pytest.fixture
def counted(monkeypatch):
    """Counts the bounds computed and the files the pipeline writes itself."""
    seen: dict[str, list] = {"bounds": [], "written": []}
    set_bounds, write_text = bounds_module.set_bounds, summary_module.write_text

    def counting_bounds(*args, **kwargs):
        seen["bounds"].append(args[0].name)
        return set_bounds(*args, **kwargs)

    def counting_write(path, text):
        seen["written"].append(Path(path))
        return write_text(path, text)

    monkeypatch.setattr(bounds_module, "set_bounds", counting_bounds)
    monkeypatch.setattr(summary_module, "write_text", counting_write)
    return seen


def test_a_producer_is_placed_and_bounded_once_and_its_summary_written_once(tmp_path, counted):
    taskset = load_taskset(EXAMPLES / "pfp-two-cpus.yaml")
    producer = Replaying()
    result = run_experiment(taskset, producer, tmp_path, settings=NO_PLOTS)
    assert producer.calls == ["place", "produce"]
    assert counted["bounds"] == [taskset.name]  # once, with and without overheads and the cliffs
    assert counted["written"] == [tmp_path / "summary.json"]
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk == result.summary and on_disk["picv"] is True and on_disk["overheads"] is None
    assert sorted(on_disk["files"]) == sorted(result.files) and "summary.json" in result.files
    assert result.analysis is result.bounds.analysis and result.placement.cpus == (0, 1)


def test_a_run_beside_its_simulation_writes_each_summary_once_with_the_runs_bounds(tmp_path, counted):
    taskset = load_taskset(EXAMPLES / "pfp-two-cpus.yaml")
    run = report_production(taskset, Replaying(), tmp_path, settings=NO_PLOTS)
    results = {"run": run, "sim": simulate_run(run)}
    assert not (tmp_path / "summary.json").exists()  # not before the comparison
    beside = summarise_beside_sim(results, JobTolerance(100_000, 0.05))
    assert counted["bounds"] == [taskset.name]  # the simulation is reported against the run's bounds
    assert sorted(counted["written"]) == sorted([tmp_path / "sim" / "summary.json", tmp_path / "summary.json"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary == beside.runs["run"].summary and list(summary)[-1] == "compare_sim"
    assert {"compare-sim.csv", "sim/", "summary.json"} <= set(summary["files"])
    assert beside.jobs is not None and beside.jobs.diverging == ()  # the replayed run is the simulation
    assert summary["compare_sim"]["simulated_jobs"] == summary["jobs"]


def test_every_comparison_is_one_function_over_labelled_results(tmp_path, counted):
    """Results of any producer compare side by side by label, in the order produced; a step
    sees the results before it, and an interrupted one ends the turn."""
    taskset = load_taskset(EXAMPLES / "pfp-two-cpus.yaml")
    seen: list[tuple[str, ...]] = []

    def replayed(label: str):
        def produce(done):
            seen.append(tuple(done))
            return run_experiment(taskset, Replaying(), tmp_path / label, settings=NO_PLOTS)
        return produce

    results = produce_in_turn([(label, replayed(label)) for label in ("replayed", "again")])
    assert seen == [(), ("replayed",)]
    comparison = compare(results, jobs=JobTolerance(0, 0.0))
    assert comparison.labels == ("replayed", "again") and comparison.out_dir == tmp_path
    rows = comparison.rows()
    assert [(r["task"], r["variant"]) for r in rows[:2]] == [(taskset.rt_tasks[0].name, "replayed"),
                                                            (taskset.rt_tasks[0].name, "again")]
    assert rows[0] | {"variant": "again"} == rows[1]  # the same schedule, the same figures
    assert comparison.jobs is not None and comparison.jobs.diverging == ()
    interrupted = replace(results["replayed"], production=replace(results["replayed"].production, interrupted=True))
    assert list(produce_in_turn([("a", lambda _d: interrupted), ("b", replayed("b"))])) == ["a"]
