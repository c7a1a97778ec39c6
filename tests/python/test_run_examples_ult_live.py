"""Every example that makes sense runs on both backends (issue 14): each examples/*.yaml that
``rtsched run`` accepts with ``platform.backend`` set to ``ult`` (validation and resolution
for this machine decide, as they would for the file) runs for RUN_NS under the ult backend,
without an error, releasing and recording its jobs. The threads backend runs them in
test_run_live.py and the examples' own tests. docs/ult.md lists the examples refused and why.

Real runs: they need root and real-time scheduling and skip with their reason otherwise. Run
under ``flock /tmp/rt.lock`` with RTSCHED_NATIVE_BIN pointing at the runner.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rtsched.model import TaskSetError, online_cpus, to_runner_input
from rtsched.model.validate import taskset_from_dict, validate_dict
from rtsched.pipeline.run_set import RunOptions, run_taskset
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from test_run_live import EXAMPLES, _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

#: Each run's length: short, so that the whole test stays under half a minute.
RUN_NS = 400_000_000
#: How late the runner may stop the set (noise of a loaded 2-CPU VM), far below RT throttling's second.
STOP_MARGIN_NS = 250_000_000


def as_ult(path: Path):
    """The example with backend ult, or the reasons ``rtsched run`` would refuse it."""
    data = yaml.safe_load(path.read_text())
    data["platform"]["backend"] = "ult"
    errors = validate_dict(data, base_dir=path.parent)
    if errors:
        return None, errors
    taskset = taskset_from_dict(data, source=str(path), base_dir=path.parent)
    try:
        to_runner_input(taskset, "trace.rtst", duration_ns=RUN_NS, cpus_online=online_cpus())
    except TaskSetError as e:
        return None, e.errors
    return taskset, []


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))
RUNNABLE = [p for p in EXAMPLE_FILES if as_ult(p)[0] is not None]
#: What docs/ult.md says is refused under ult, and for what (checked below: the list stays true).
REFUSED = {
    "dpcp-dflp.yaml": "analyses only",           # distributed protocols: under either backend
    "prem-pfp.yaml": "PREM",
}


def test_the_examples_refused_under_ult_are_those_docs_ult_md_lists():
    refused = {p.name: as_ult(p)[1] for p in EXAMPLE_FILES if p not in RUNNABLE}
    assert sorted(refused) == sorted(REFUSED)
    for name, errors in refused.items():
        assert any(REFUSED[name] in e for e in errors), (name, errors)
    docs = (Path(__file__).resolve().parents[2] / "docs" / "ult.md").read_text()
    assert all(f"`examples/{name}`" in docs for name in REFUSED)
    assert len(RUNNABLE) >= 8


@pytest.mark.parametrize("example", RUNNABLE, ids=[p.stem for p in RUNNABLE])
def test_the_example_runs_under_ult(example, tmp_path):
    taskset, _ = as_ult(example)
    result = run_taskset(taskset, RunOptions(duration_ns=RUN_NS, out_dir=tmp_path, plots=False, progress=False,
                                             explain=False))
    assert not result.interrupted and result.summary["runner_exit"] == 0, result.production.messages
    summary = result.summary
    assert summary["backend"] == "ult" and result.table is not None
    assert summary["lost_events"] == 0
    periods = {t.name: (t.period_ns, t.offset_ns, t.max_jobs) for t in taskset.rt_tasks}
    assert {t["task"] for t in summary["tasks"]} == set(periods)
    trace = read_trace(tmp_path / "trace.rtst")
    end_ns = trace.header["t0_ns"] + RUN_NS
    for stream in (s for s in trace.streams if s["name"] in periods):  # not the reservations' own
        events = trace.events_of(stream["stream_id"])
        released = int(((events["type"] == EV.RELEASE) & (events["time_ns"] < end_ns)).sum())
        period, offset, max_jobs = periods[stream["name"]]
        # RELEASE carries the nominal release: at most one per period inside the run (fewer when a
        # job starts late, behind its own backlog or a depleted reservation); at least the first,
        # and a completed job once two periods fit (overloaded sets included).
        releases = max(0, -(-(RUN_NS - offset) // period))
        if max_jobs is not None:
            releases = min(releases, max_jobs)
        assert min(releases, 1) <= released <= releases, (stream["name"], released, releases)
        # The runner stops the set at the end; jobs go on being released only until it does.
        # A runner thread that waited behind the workers' SCHED_FIFO for RT throttling's window
        # stopped up to a second late (overload.yaml's "high" released twice its jobs).
        late = max(0, -(-(RUN_NS + STOP_MARGIN_NS - offset) // period))
        assert (events["type"] == EV.RELEASE).sum() <= late, (stream["name"], late)
        if releases >= 2:
            assert (events["type"] == EV.COMPLETE).any(), stream["name"]
    assert summary["jobs"] == sum(t["jobs"] for t in summary["tasks"]) > 0
