"""A simulated trace is a trace: read by the reader, reported by the report, printed by
`rtsched sim` with `rtsched run`'s table; bad input gets the runner's messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtsched.analysis import bounds_for
from rtsched.cli.main import main
from rtsched.model import load_taskset, taskset_from_dict
from rtsched.sim import SimOptions, SimProducer, SimUnsupported, simulate
from rtsched.pipeline import ReportSettings, run_experiment
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

from sim_helpers import MS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_round_trip_through_reader_and_report(tmp_path):
    taskset = load_taskset(EXAMPLES / "pfp-two-cpus.yaml")
    result = run_experiment(taskset, SimProducer(SimOptions(duration_ns=1_000_000_000, cpus=(0, 1))), tmp_path,
                            settings=ReportSettings(plots=False))
    trace = read_trace(result.files["trace.rtst"])
    assert not trace.truncated and trace.lost_total == 0
    assert [s["name"] for s in trace.streams] == [t.name for t in taskset.tasks]
    assert trace.header["duration_ns"] == 1_000_000_000 and trace.header["name"] == taskset.name
    report = result.report
    for task, stats in zip(taskset.tasks, report.stats):
        periodic_jobs = 1_000_000_000 // task.period_ns  # every released job completes, none censored
        assert stats.jobs == periodic_jobs if task.kind == "periodic" else 0 < stats.jobs <= periodic_jobs
        assert stats.bound_ns is not None and stats.response_max_ns <= stats.bound_ns
        assert stats.deadline_misses == 0 and stats.lost_events == 0
    assert report.events_off_cpus == 0 and report.table.censored == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["jobs"] == result.summary["simulated"]["jobs_completed"] and summary["simulated"]["seed"] == 1
    assert (tmp_path / "jobs.csv").exists()
    assert len(trace.events[trace.events["type"] == EV.COMPLETE]) == result.summary["simulated"]["jobs_completed"]


def test_the_command_prints_the_run_table(tmp_path, capsys):
    code = main(["sim", str(EXAMPLES / "ceiling-pcp.yaml"), "--duration", "200ms", "--ideal", "--no-plots",
                 "--out", str(tmp_path), "--cpus", "0,1"])
    out = capsys.readouterr().out
    assert code == 0
    assert "ceiling-pcp (P-FP, 0.2 s)" in out and "resp max" in out and "blocking" in out
    assert "fp-rta: schedulable" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.csv", "summary.json", "trace.pftrace", "trace.rtst"]


def test_the_command_is_deterministic_and_seeded(tmp_path):
    args = ["--duration", "300ms", "--ideal", "--no-plots", "--cpus", "0,1", "--exec-low", "0.5", "--json"]
    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        assert main(["sim", str(EXAMPLES / "gedf.yaml"), "--out", str(tmp_path / name), "--seed", seed, *args]) == 0
    a, b, c = ((tmp_path / n / "trace.rtst").read_bytes() for n in "abc")
    assert a == b and a != c


def test_plots_and_the_perfetto_json_only_when_asked(tmp_path):
    args = ["--duration", "200ms", "--ideal", "--cpus", "0,1", "--json"]
    assert main(["sim", str(EXAMPLES / "pfp-two-cpus.yaml"), "--out", str(tmp_path / "plain"), *args]) == 0
    assert not list((tmp_path / "plain").glob("*.png")) and not (tmp_path / "plain" / "trace.perfetto.json").exists()
    assert main(["sim", str(EXAMPLES / "pfp-two-cpus.yaml"), "--out", str(tmp_path / "all"), "--plots",
                 "--perfetto-json", *args]) == 0
    written = {p.name for p in (tmp_path / "all").iterdir()}
    assert {"response-cdf.png", "schedule.png", "trace.perfetto.json", "trace.pftrace"} <= written
    with pytest.raises(SystemExit):  # one or the other
        main(["sim", str(EXAMPLES / "pfp-two-cpus.yaml"), "--plots", "--no-plots", *args])


def test_bad_input_gets_the_runners_message(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nplatform: {scheduler: P-FP}\ntasks:\n"
                   "  - {name: t, period: 10ms, priority: 200, partition: cpu0, body: [{compute: 20ms}]}\n")
    assert main(["run", str(bad)]) == 2  # an invalid input
    run_err = capsys.readouterr().err
    assert main(["sim", str(bad)]) == 2
    assert capsys.readouterr().err == run_err and "priority" in run_err


def test_unsupported_features_are_refused_by_name(tmp_path, capsys):
    data = {"name": "bg", "platform": {"scheduler": "P-FP", "cpus": [0]},
            "servers": [{"name": "s", "priority": 5, "partition": "cpu0", "duration": "1ms", "queue": 1}],
            "tasks": [
                {"name": "a", "period": "10ms", "priority": 10, "partition": "cpu0", "body": [{"call": "s"}],
                 "wcet": "1ms"},
                {"name": "b", "period": "10ms", "priority": 9, "partition": "cpu0", "body": [{"call": "s"}],
                 "wcet": "1ms"},
                {"name": "load", "period": "10ms", "policy": "other", "body": [{"compute": "1ms"}]}]}
    with pytest.raises(SimUnsupported) as refused:
        simulate(taskset_from_dict(data))
    assert refused.value.problems == [
        'servers[0].queue: 1 is below the 2 tasks that call "s": waiting for room in a full queue is not '
        "simulated yet",
    ]  # the best-effort task "load" is simulated (test_sim_best_effort.py)
    path = tmp_path / "bg.json"
    path.write_text(json.dumps(data))
    assert main(["sim", str(path), "--ideal", "--out", str(tmp_path / "out")]) == 1
    assert "servers[0].queue: 1 is below the 2 tasks" in capsys.readouterr().err


def test_jobs_running_at_the_end_are_censored():
    taskset = taskset_from_dict({"name": "cut", "platform": {"scheduler": "P-FP", "cpus": [0]}, "tasks": [
        {"name": "t", "period": "10ms", "priority": 1, "partition": "cpu0", "body": [{"compute": "4ms"}]}]})
    run = simulate(taskset, SimOptions(duration_ns=22 * MS))
    assert run.jobs_completed == 2  # the third job runs 20..24 ms, past the end


@pytest.mark.parametrize("low", [None, 500_000])
def test_the_picv_rpc_bounds_hold_in_simulation(tmp_path, low):
    taskset = load_taskset(EXAMPLES / "picv-rpc.yaml")
    analysis = bounds_for(taskset)
    assert analysis.test == "picv-rpc" and analysis.schedulable
    result = run_experiment(taskset, SimProducer(SimOptions(duration_ns=60_000_000_000, exec_low_ppm=low)), tmp_path,
                            settings=ReportSettings(plots=False))
    assert result.analysis == analysis  # the pipeline's bounds are the analysis'
    assert not result.report.bounds_exceeded and result.report.deadline_misses == 0
    assert result.report.servers[0].calls_served == sum(s.jobs for s in result.stats if s.task != "Annoyer")


def test_the_command_says_picv_is_off(tmp_path, capsys):
    assert main(["sim", str(EXAMPLES / "picv-rpc.yaml"), "--no-picv", "--ideal", "--no-plots", "--duration", "1s",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "PI-CV off" in out and "the RPC bounds assume PI-CV" in out
