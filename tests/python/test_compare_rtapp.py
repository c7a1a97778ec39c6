"""rt-app beside rtsched (rtsched.pipeline.compare_rtapp, rtsched.cli.run_compare_rtapp): the
comparison's rows and printed table from two results, rtsched's by the simulator (the real
pipeline, no run needed) and rt-app's logs as rt-app writes them."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from rtsched.cli.run_compare_rtapp import print_rtapp_comparison
from rtsched.model import taskset_from_dict
from rtsched.model.rtapp import loads_rtapp
from rtsched.model.rtapp.importer import rtapp_task_threads
from rtsched.model.rtapp.reader import read_rtapp
from rtsched.pipeline import ReportSettings, run_experiment
from rtsched.pipeline.compare_rtapp import compare_rtapp_runs, rows_per_job, rtapp_figures
from rtsched.run.rtapp import RtAppRun
from rtsched.sim import SimOptions, SimProducer
from rtsched.trace.rtapp_log import RtAppLog, parse_rtapp_log

FILE = {
    "global": {"default_policy": "SCHED_FIFO", "duration": 1},
    "tasks": {
        "tick": {"priority": 20, "run": 1000, "timer": {"ref": "unique", "period": 10000}},
        "loop": {"priority": 10, "run": 2000, "sleep": 8000},
    },
}
HEADER = "#idx perf run period start end rel_st slack c_duration c_period wu_lat"
MS = 1_000_000


def _log(rows: list[tuple[int, ...]]) -> str:
    """rt-app's log text: each row (run, period, start, end, slack, c_duration, c_period, wu_lat) in µs."""
    lines = [HEADER]
    for run, period, start, end, slack, c_duration, c_period, wu_lat in rows:
        lines.append(f"0 10 {run} {period} {start} {end} {start} {slack} {c_duration} {c_period} {wu_lat}")
    return "\n".join(lines) + "\n"


def _simulated(tmp_path: Path):
    text = json.dumps(FILE)
    doc, _ = loads_rtapp(text, name="pair")
    taskset = taskset_from_dict(doc)
    producer = SimProducer(SimOptions(duration_ns=1000 * MS, cpus=(0, 1)))
    result = run_experiment(taskset, producer, tmp_path / "run", settings=ReportSettings(plots=False))
    return result, rtapp_task_threads(read_rtapp(text)), FILE


def _rtapp(document, tmp_path: Path) -> RtAppRun:
    # tick: 100 loops on its 10 ms timer, each body 1 ms (slack 9 ms); the last ends at the very end
    tick = [(1000, 10000, k * 10000, (k + 1) * 10000, 9000, 1000, 10000, 0) for k in range(100)]
    # loop: rt-app's run lasts 2.2 ms (10 % longer than asked: a slow calibration), 8 ms sleep after it
    loop = [(2200, 10200, k * 10200, (k + 1) * 10200, 0, 2000, 0, 0) for k in range(98)]
    logs = {"tick": (RtAppLog("tick-0", parse_rtapp_log(_log(tick))),),
            "loop": (RtAppLog("loop-1", parse_rtapp_log(_log(loop))),)}
    return RtAppRun(Path("rt-app"), "rt-app v1.0-test", 1, tmp_path / "rtapp", document, logs, 24)


def test_each_rt_app_thread_is_a_row_beside_its_rtsched_tasks(tmp_path):
    result, origins, document = _simulated(tmp_path)
    comparison = compare_rtapp_runs(result, _rtapp(document, tmp_path), origins, tmp_path)
    assert [(r.thread, r.tasks) for r in comparison.rows] == [("tick-0", ("tick",)), ("loop-1", ("loop",))]
    tick, loop = comparison.rows
    # the loops that ended by 995 ms (the end less half a period): 99 on both sides, not the
    # 100th, whose end at 1000 ms is a toss-up in rt-app
    assert tick.rtapp.jobs == tick.rtsched.jobs == 99
    assert tick.ratio("period") == 1.0 and tick.ratio("run") == 1.0
    assert tick.rtapp.response_mean_ns == 1 * MS and tick.rtsched.response_mean_ns == 1 * MS
    assert tick.meets
    # loop: rtsched's CPU time is what the file asks; rt-app ran 10 % longer, and drifted: 97 loops by 995 ms
    assert (loop.rtapp.jobs, loop.rtsched.jobs) == (97, 99)
    assert loop.rtsched.run_mean_ns == 2 * MS and loop.rtapp.run_mean_ns == 2.2 * MS
    assert loop.rtapp.asked_run_mean_ns == loop.rtsched.asked_run_mean_ns == 2 * MS
    assert loop.rtapp.response_mean_ns == 2.2 * MS  # 10.2 ms loop less its 8 ms trailing sleep
    assert loop.within("run") is False and loop.within("period") is True and not loop.meets
    assert comparison.unmatched == ()


def test_the_table_shows_both_sides_and_their_ratios(tmp_path):
    result, origins, document = _simulated(tmp_path)
    comparison = compare_rtapp_runs(result, _rtapp(document, tmp_path), origins, tmp_path)
    out = io.StringIO()
    print_rtapp_comparison(comparison, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    lines = [line for line in text.splitlines() if line.startswith("│")]
    assert [line.split("│")[2].strip() for line in lines[:6]] == ["rt-app", "rtsched", "ratio"] * 2
    assert "tick-0" in lines[0] and "loop-1" in lines[3]
    assert "0.909" in lines[5]  # loop's run: rtsched's 2 ms over rt-app's 2.2 ms
    assert "1 of 2 thread(s) within the target" in text
    assert "24 ns per loop" in text


def test_a_launcher_thread_has_no_row_and_is_said_so(tmp_path):
    result, origins, document = _simulated(tmp_path)
    rtapp = _rtapp(document, tmp_path)
    logs = {**rtapp.logs, "launcher": (RtAppLog("launcher-2", ()),)}
    comparison = compare_rtapp_runs(result, RtAppRun(rtapp.binary, rtapp.version, 1, rtapp.out_dir,
                                                     {"tasks": {**document["tasks"], "launcher": {}}}, logs),
                                    origins, tmp_path)
    assert comparison.unmatched == ("rt-app's launcher-2: no rtsched task",)


def test_phases_without_a_timer_are_one_job_of_several_rows():
    phases = {"phases": {"p0": {"loop": 2, "run": 1000, "sleep": 1000}, "p1": {"run": 500, "sleep": 500}}}
    assert rows_per_job(phases) == 3
    assert rows_per_job({"phases": {"p0": {"run": 1, "timer": {"ref": "t", "period": 10}},
                                    "p1": {"run": 1, "timer": {"ref": "t", "period": 10}}}}) == 1
    assert rows_per_job({"run": 1, "sleep": 1}) == 1
    rows = parse_rtapp_log(_log([(1000, 2000, 0, 2000, 0, 1000, 0, 0), (1000, 2000, 2000, 4000, 0, 1000, 0, 0),
                                 (500, 1000, 4000, 5000, 0, 500, 0, 0), (1000, 2000, 5000, 7000, 0, 1000, 0, 0)]))
    figures = rtapp_figures(rows, 3, 500_000)  # the last row starts a job cut by the end: left out
    assert figures.jobs == 1 and figures.run_mean_ns == 2_500_000
    assert figures.response_mean_ns == 4_500_000  # the 5 ms loop less its trailing 0.5 ms sleep


def test_loops_that_ended_after_their_timer_are_counted_with_how_late():
    # a 10 ms timer: the first loop's body ends 0.5 ms after its timer (slack -500), the second on time
    rows = parse_rtapp_log(_log([(10500, 10500, 0, 10500, -500, 10000, 10000, 0),
                                 (1000, 10000, 10500, 20500, 9000, 1000, 10000, 0)]))
    figures = rtapp_figures(rows, 1, None)
    assert (figures.late_loops, figures.late_total_ns) == (1, 500_000)
    assert figures.response_mean_ns == (10_500_000 + 1_000_000) / 2  # the first from its start, then c_period - slack


def test_rt_app_runs_its_run_events_as_runtime_ones_on_request(tmp_path):
    from rtsched.run.rtapp import rtapp_copy

    text = ('{"tasks": {"t": {"run0": 100, "lock": "m", "run1": 200, "runtime": 50, "unlock": "m",'
            ' "phases": {"p": {"run": 300, "sleep": 10}}}}, "global": {"duration": 9, "pi_enabled": true}}')
    doc = rtapp_copy(text, 2, tmp_path, runtime=True)
    thread = doc["tasks"]["t"]
    assert list(thread) == ["runtime_run0", "lock", "runtime_run1", "runtime", "unlock", "phases"]
    assert thread["runtime_run1"] == 200 and list(thread["phases"]["p"]) == ["runtime_run", "sleep"]
    assert doc["global"] == {"duration": 2, "pi_enabled": True, "logdir": str(tmp_path), "log_basename": "rtapp",
                             "log_size": "file", "gnuplot": False, "ftrace": "none"}
    assert list(rtapp_copy(text, 2, tmp_path)["tasks"]["t"])[0] == "run0"  # by default, the file's events
