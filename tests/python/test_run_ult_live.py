"""``rtsched run`` with ``platform: {backend: ult}``: real runs of 0.5 s (docs/ult.md).

Order and counts only (STYLE 18); every test needs root and real-time
scheduling and skips with its reason otherwise. The sets keep CPU 0 light
(at most about a third of it, for half a second), except the C-EDF set at 70%
of both CPUs (about 56% busy, for 2 s). Run under
``flock /tmp/rt.lock`` with RTSCHED_NATIVE_BIN pointing at the runner.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from rtsched.trace import EventType as EV
from rtsched.trace import read_trace as load_trace
from stolen_cpu import skip_if_misses_were_stolen, skip_if_stolen
from test_run_live import EXAMPLES, _rt_available, rtsched_run, write_set

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

DURATION_NS = 500_000_000


def run_set(path, out):
    done = rtsched_run(str(path), "--duration", "500ms", "--out", str(out), "--json", "--no-plots")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), load_trace(out / "trace.rtst")


def task_events(trace):
    """name -> its stream's events, in recording order."""
    return {s["name"]: trace.events_of(s["stream_id"]) for s in trace.streams}


def test_the_ult_cedf_example_runs_without_misses_and_records_its_jobs(tmp_path):
    summary, trace = run_set(EXAMPLES / "ult-cedf.yaml", tmp_path / "out")
    runner = json.loads((tmp_path / "out" / "runner.json").read_text())
    assert runner["backend"] == "ult:cedf:2" and summary["backend"] == "ult"
    skip_if_misses_were_stolen(summary, DURATION_NS)
    assert summary["deadline_misses"] == 0, summary["tasks"]
    periods = {t["name"]: t["period_ns"] for t in runner["tasks"]}
    computes = {t["name"]: sum(a["ns"] for a in t["body"]) for t in runner["tasks"]}
    for task in summary["tasks"]:
        name = task["task"]
        # periodic: one job per period, give or take the one cut by the end of the run
        if name != "network":
            assert abs(task["jobs"] - DURATION_NS // periods[name]) <= 1, task
        assert task["jobs"] > 0
    for name, events in task_events(trace).items():
        done = events[events["type"] == EV.COMPLETE]
        assert len(done) >= 1
        # COMPLETE's CPU time is the ULT's switched-in time; a compute runs until the task's
        # own CPU time (rts_task_cputime_ns) grew by its amount, preempted or not.
        assert (done["arg1"] >= computes[name]).all(), (name, done["arg1"].min())


PEDF = """\
name: ult-pedf
platform: {scheduler: P-EDF, backend: ult}
tasks:
  - {name: light, partition: cpu0, period: 10ms, body: [{compute: 500us}]}
  - {name: long, partition: cpu1, period: 20ms, body: [{compute: 6ms}]}
  - {name: short, partition: cpu1, period: 5ms, deadline: 2ms, offset: 1ms, body: [{compute: 500us}]}
"""


def test_pedf_under_ult_never_migrates(tmp_path):
    summary, trace = run_set(write_set(tmp_path / "pedf.yaml", PEDF), tmp_path / "out")
    skip_if_misses_were_stolen(summary, DURATION_NS)
    events = task_events(trace)
    home = {"light": 0, "long": 1, "short": 1}
    for name, ev in events.items():
        assert not (ev["type"] == EV.MIGRATE).any(), name
        ran = ev[np.isin(ev["type"], [EV.START, EV.PREEMPT, EV.RESUME, EV.COMPLETE])]
        assert (ran["cpu"] == home[name]).all(), (name, np.unique(ran["cpu"]))
    # the test means something: "short" preempts "long" on CPU 1
    assert (events["long"]["type"] == EV.PREEMPT).sum() > 0


SLEEP = """\
name: ult-sleep
platform: {scheduler: P-FP, backend: ult}
tasks:
  - {name: sleeper, partition: cpu1, period: 20ms, priority: 20, body: [{compute: 1ms}, {sleep: 6ms}, {compute: 1ms}]}
  - {name: worker, partition: cpu1, period: 20ms, priority: 10, offset: 2ms, body: [{compute: 2ms}]}
"""


def test_a_sleeping_ult_leaves_its_worker_to_the_others(tmp_path):
    # Both tasks share CPU 1's worker. The sleeper computes 1 ms, sleeps 6 ms, computes 1 ms;
    # the lower-priority worker is released 2 ms in, during the sleep. A sleep that blocked the
    # kernel thread would hold the worker back until the sleeper's job ends; a ULT sleep lets it
    # run and complete first, in every period.
    summary, trace = run_set(write_set(tmp_path / "sleep.yaml", SLEEP), tmp_path / "out")
    skip_if_misses_were_stolen(summary, DURATION_NS)
    events = task_events(trace)
    sleeper, worker = events["sleeper"], events["worker"]
    assert (sleeper["type"] == EV.SLEEP).sum() >= 20
    done_sleeper = {int(e["job"]): int(e["time_ns"]) for e in sleeper if e["type"] == EV.COMPLETE}
    done_worker = {int(e["job"]): int(e["time_ns"]) for e in worker if e["type"] == EV.COMPLETE}
    both = sorted(set(done_sleeper) & set(done_worker))
    assert len(both) >= 20
    # Job by job: a worker released while the sleeper sleeps starts before the sleeper's job ends
    # (a sleep that blocked the kernel thread would hold it until then). Whether it also completes
    # first is the machine's: it needs its 2 ms within the 6 ms sleep (a fresh-clone CI under
    # test-loaded here: 23 of 25).
    sleep_end = {int(e["job"]): int(e["time_ns"]) + int(e["arg1"]) for e in sleeper if e["type"] == EV.SLEEP}
    released = {int(e["job"]): int(e["time_ns"]) for e in worker if e["type"] == EV.RELEASE}
    started = {int(e["job"]): int(e["time_ns"]) for e in worker if e["type"] == EV.START}
    during = [j for j in both if j in sleep_end and released[j] < sleep_end[j]]
    assert len(during) >= len(both) - 1, (len(during), len(both))
    assert all(started[j] < done_sleeper[j] for j in during), [j for j in during if started[j] >= done_sleeper[j]]
    first = sum(done_worker[j] < done_sleeper[j] for j in both)
    if first < len(both) - 1:
        pytest.skip(f"the worker started during the sleeper's sleep in all {len(during)} periods but completed "
                    f"first in {first} of {len(both)}: the machine took its time")


GEDF = """\
name: ult-gedf
platform: {scheduler: G-EDF, backend: ult}
tasks:
  - {name: long, period: 20ms, body: [{compute: 4ms}]}
  - {name: side, period: 20ms, deadline: 10ms, body: [{compute: 2ms}]}
  - {name: urgent, period: 20ms, deadline: 3ms, offset: 1ms, body: [{compute: 2ms}]}
"""


def test_gedf_under_ult_migrates_and_traces_each_migration(tmp_path):
    """"long" and "side" start together on the two CPUs; 1 ms in, "urgent" preempts "long",
    the running job with the latest deadline, wherever it is. "side" ends 1 ms before
    "urgent": G-EDF runs "long" on the CPU that "side" leaves, so it migrates in every period,
    whichever worker takes which release."""
    summary, trace = run_set(write_set(tmp_path / "gedf.yaml", GEDF), tmp_path / "out")
    skip_if_misses_were_stolen(summary, DURATION_NS)
    moves = 0
    for name, ev in task_events(trace).items():
        kinds = ev["type"].tolist()
        for i, kind in enumerate(kinds):
            if kind != EV.MIGRATE:
                continue
            moves += 1
            here = ev[i]
            assert here["arg0"] != here["arg1"], name
            # nested in PREEMPT (on the CPU it left) ... RESUME (on the CPU it moved to)
            before = [j for j in range(i) if kinds[j] == EV.PREEMPT][-1]
            after = next(j for j in range(i + 1, len(kinds)) if kinds[j] == EV.RESUME)
            assert ev[before]["arg0"] == here["arg0"] and ev[after]["arg0"] == here["arg1"]
    periods = DURATION_NS // 20_000_000
    assert moves >= periods // 2, (moves, periods)  # one a period, a VM stall aside


COMPARED = """\
name: compared
platform: {scheduler: P-FP}
tasks:
  - {name: light, partition: cpu0, period: 10ms, priority: 10, stack: 16KiB, body: [{compute: 500us}]}
  - {name: long, partition: cpu1, period: 20ms, priority: 10, body: [{compute: 6ms}]}
  - {name: short, partition: cpu1, period: 5ms, deadline: 2ms, offset: 1ms, priority: 20, body: [{compute: 500us}]}
"""


def test_compare_backends_runs_the_set_under_both_and_puts_them_side_by_side(tmp_path):
    """Both runs happened, one after the other, for the same duration, over the same tasks, each
    with as many jobs as its period allows (one job per period, give or take the one cut by the
    end of the run, and an offset); "light" runs on the smallest stack the key allows, on both."""
    assert "stack: 16KiB" in COMPARED
    spec = write_set(tmp_path / "compared.yaml", COMPARED)
    out = tmp_path / "out"
    done = rtsched_run(str(spec), "--compare-backends", "--duration", "500ms", "--out", str(out), "--json",
                       "--no-plots")
    assert done.returncode == 0, done.stderr
    compared = json.loads(done.stdout)
    assert compared["format"] == "rtsched-backend-compare/1"
    assert compared["duration_ns"] == DURATION_NS
    assert json.loads((out / "compare.json").read_text()) == compared
    assert compared["runs"] == {"threads": str(out / "threads"), "ult": str(out / "ult")}
    runners = {b: json.loads((out / b / "runner.json").read_text()) for b in ("threads", "ult")}
    summaries = {b: json.loads((out / b / "summary.json").read_text()) for b in ("threads", "ult")}
    assert runners["threads"]["backend"] == "threads" and runners["ult"]["backend"] == "ult:pfp"
    assert [t["stack_bytes"] for t in runners["ult"]["tasks"]] == [16384, 0, 0]
    same = ("name", "period_ns", "deadline_ns", "offset_ns", "stack_bytes", "body")  # the backend sets the rest
    assert [{k: t[k] for k in same} for t in runners["threads"]["tasks"]] == [
        {k: t[k] for k in same} for t in runners["ult"]["tasks"]]
    assert {s["duration_ns"] for s in summaries.values()} == {DURATION_NS}
    traces = {b: load_trace(out / b / "trace.rtst") for b in ("threads", "ult")}
    spans = {b: (int(t.events["time_ns"].min()), int(t.events["time_ns"].max())) for b, t in traces.items()}
    assert spans["threads"][1] < spans["ult"][0], spans  # one after the other, never at once
    for summary in summaries.values():
        skip_if_misses_were_stolen(summary, DURATION_NS)
        assert summary["deadline_misses"] == 0, summary["tasks"]  # U <= 0.45 per CPU, short first
    rows = compared["rows"]
    assert [(r["task"], r["variant"]) for r in rows] == [
        (t, b) for t in ("light", "long", "short") for b in ("threads", "ult")]
    timing = {t["name"]: (t["period_ns"], t["offset_ns"]) for t in runners["ult"]["tasks"]}
    for row in rows:
        period, offset = timing[row["task"]]
        releases = -(-(DURATION_NS - offset) // period)
        assert releases - 2 <= row["jobs"] <= releases, row
        assert row["deadline_misses"] == summaries[row["variant"]]["tasks"][
            [t["task"] for t in summaries[row["variant"]]["tasks"]].index(row["task"])]["deadline_misses"]
        assert row["mean_ns"] <= row["p99_ns"] <= row["max_ns"], row
        assert row["release_latency_median_ns"] <= row["release_latency_p99_ns"] <= row["release_latency_max_ns"]
        assert row["bound_ns"] is not None  # one policy, one analysis: the bound holds for both
        assert row["bound_exceeded"] == (row["max_ns"] > row["bound_ns"])
    # the table, not the JSON: both backends side by side, each task once
    table = rtsched_run(str(spec), "--compare-backends", "--duration", "200ms", "--out", str(tmp_path / "t"),
                        "--no-plots", "--no-explain")
    assert table.returncode == 0, table.stderr
    for header in ("backend", "mean", "max", "bound", "rel lat p99", "misses"):
        assert header in table.stdout
    assert table.stdout.count("threads") >= 3 and table.stdout.count(" ult ") >= 3


PIP = """\
name: ult-pip
platform: {scheduler: P-FP, backend: ult}
resources: [{name: r, protocol: pip}]
tasks:
  - {name: low, partition: cpu1, period: 20ms, priority: 10, body: [{lock: r}, {compute: 4ms}, {unlock: r}]}
  - {name: high, partition: cpu1, period: 20ms, priority: 30, offset: 1ms,
     body: [{lock: r}, {compute: 500us}, {unlock: r}]}
  - {name: medium, partition: cpu1, period: 20ms, priority: 20, offset: 2ms, body: [{compute: 2ms}]}
"""


def test_pip_under_ult_keeps_the_medium_task_off_the_owner(tmp_path):
    """In each period "low" takes r, "high" asks for it 1 ms later and blocks, "medium" is
    released 2 ms in. The user-level scheduler gives "low" the priority of "high" while it
    blocks, so "medium" starts only after "low" has let go and "high" has had r; without
    inheritance "medium" would preempt "low" at once."""
    summary, trace = run_set(write_set(tmp_path / "pip.yaml", PIP), tmp_path / "out")
    skip_if_misses_were_stolen(summary, DURATION_NS)
    events = task_events(trace)

    def first(name, kind):
        ev = events[name]
        return {int(e["job"]): int(e["time_ns"]) for e in ev[ev["type"] == kind][::-1]}

    released = first("low", EV.LOCK_RELEASE)
    acquired = first("high", EV.LOCK_ACQUIRE)
    started = first("medium", EV.START)
    # the periods in which the scene happened: low held r before high asked for it and before medium's
    # release (a low job the machine started late, after medium's release, is preempted by medium
    # before anyone blocks on it: no inheritance is due, whatever the scheduler)
    took = first("low", EV.LOCK_ACQUIRE)
    asked = first("high", EV.LOCK_REQUEST)
    medium_released = first("medium", EV.RELEASE)
    jobs = sorted(j for j in set(released) & set(acquired) & set(started) & set(took) & set(asked)
                  & set(medium_released) if took[j] < asked[j] and took[j] < medium_released[j])
    if len(jobs) < 20:
        skip_if_stolen(summary, DURATION_NS, f"low held r before high asked and medium was released in only "
                       f"{len(jobs)} periods")
    assert len(jobs) >= 20
    in_order = sum(released[j] < acquired[j] < started[j] for j in jobs)
    assert in_order >= len(jobs) - 1, (in_order, len(jobs), [j for j in jobs if not
                                                             released[j] < acquired[j] < started[j]])


def test_the_locks_example_runs_under_ult_and_loses_no_signal(tmp_path):
    """examples/locks.yaml (PIP mutexes, a condvar, nested locks, two CPUs) under ult: every
    consumer job that completed was woken by a producer's signal (the signals are counted)."""
    text = (EXAMPLES / "locks.yaml").read_text().replace("  scheduler: P-FP\n", "  scheduler: P-FP\n  backend: ult\n")
    summary, trace = run_set(write_set(tmp_path / "locks.yaml", text), tmp_path / "out")
    skip_if_misses_were_stolen(summary, DURATION_NS)
    assert summary["backend"] == "ult" and summary["deadline_misses"] == 0, summary["tasks"]
    events = task_events(trace)
    consumer = events["consumer"]
    completed = (consumer["type"] == EV.COMPLETE).sum()
    woken = (consumer["type"] == EV.COND_WAKE).sum()
    signals = (events["producer"]["type"] == EV.COND_SIGNAL).sum()
    assert completed >= 40
    assert completed <= woken <= signals


BUDGET = """\
name: ult-budget
platform: {scheduler: P-FP, backend: ult}
tasks:
  - {name: over, partition: cpu1, period: 20ms, priority: 20, offset: 1ms, budget: 1ms, body: [{compute: 2ms}]}
  - {name: within, partition: cpu1, period: 20ms, priority: 10, budget: 2ms, body: [{compute: 1500us}]}
"""


def test_budgets_under_ult_count_cpu_time_not_response(tmp_path):
    # "over" computes 2 ms against a 1 ms budget: every job overruns. "within" computes 1.5 ms
    # against 2 ms and is preempted by "over" for 2 ms in every job, so its response exceeds its
    # budget while its CPU time does not: no overrun. The ULT's CPU time is exact at each switch.
    summary, trace = run_set(write_set(tmp_path / "budget.yaml", BUDGET), tmp_path / "out")
    skip_if_misses_were_stolen(summary, DURATION_NS)
    events = task_events(trace)
    over, within = events["over"], events["within"]
    completed = {name: (ev["type"] == EV.COMPLETE).sum() for name, ev in events.items()}
    assert completed["over"] >= 20 and completed["within"] >= 20, completed
    assert (over["type"] == EV.BUDGET_OVERRUN).sum() == completed["over"]
    assert (within["type"] == EV.BUDGET_OVERRUN).sum() == 0
    # "over" is released 1 ms into each "within" job, which the VM may start late (then "over"
    # runs first and does not preempt it: a run on the busy VM saw 23 preemptions in 25 jobs): most are
    assert (within["type"] == EV.PREEMPT).sum() >= completed["within"] // 2
    # the CPU time a COMPLETE records: at least the compute, and "within" under its budget
    assert (within["arg1"][within["type"] == EV.COMPLETE] < 2_000_000).all()
    assert (over["arg1"][over["type"] == EV.COMPLETE] >= 2_000_000).all()


CPU_CLOCK = """\
name: ult-cpu-clock
platform: {scheduler: P-FP, backend: ult}
tasks:
  - {name: within, partition: cpu1, period: 20ms, priority: 10, budget: 2ms, body: [{compute: 1500us}]}
"""

#: A process at SCHED_FIFO 70 (above the ult workers' 50) on CPU 1 that computes 3 ms of every
#: 4 ms until killed (at most 10 s): no 1 ms gap holds a 1.5 ms job, so it takes time from the
#: worker inside every job.
COMPETITOR = """\
import os, sys, time
os.sched_setaffinity(0, {1})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(70))
print("running", flush=True)
end = time.monotonic_ns() + 10_000_000_000
while time.monotonic_ns() < end:
    spin = time.monotonic_ns() + 3_000_000
    while time.monotonic_ns() < spin:
        pass
    time.sleep(0.001)
"""


def test_budgets_under_ult_count_cpu_time_while_another_process_takes_the_worker(tmp_path):
    """A task whose CPU time stays within its budget records no overrun while a competing
    process takes time from its worker. Robust by construction: the competitor leaves CPU 1
    free for 1 ms at a time, and each job needs 1.5 ms of it, so every job waits for it at
    least once; shown from the result (each response exceeds the budget, each job's CPU time
    does not). Before the ULT's CPU time was its worker's CPU time (ult/worker_cpu_clock.c),
    it was its wall time switched in, and every job here overran."""
    competitor = subprocess.Popen([sys.executable, "-c", COMPETITOR], stdout=subprocess.PIPE, text=True)
    try:
        assert competitor.stdout.readline().strip() == "running"
        summary, trace = run_set(write_set(tmp_path / "clock.yaml", CPU_CLOCK), tmp_path / "out")
    finally:
        competitor.kill()
        competitor.wait()
    within = task_events(trace)["within"]
    released = {int(e["job"]): int(e["time_ns"]) for e in within if e["type"] == EV.RELEASE}
    done = within[within["type"] == EV.COMPLETE]
    assert len(done) >= 10, summary["tasks"]
    response = np.array([int(e["time_ns"]) - released[int(e["job"])] for e in done])
    cpu = done["arg1"].astype(np.int64)
    # the competitor took the worker's CPU inside every job: response well above CPU time
    assert (response > 2_000_000).all() and (response - cpu > 1_000_000).all(), (response, cpu)
    assert ((cpu >= 1_500_000) & (cpu < 2_000_000)).all(), cpu
    assert (within["type"] == EV.BUDGET_OVERRUN).sum() == 0
    assert summary["tasks"][0]["budget_overruns"] == 0


BACKGROUND = """\
name: ult-background
platform: {scheduler: P-FP, backend: ult}
tasks:
  - {name: background, partition: cpu1, period: 10ms, policy: other, body: [{compute: 3ms}]}
  - {name: lowest, partition: cpu1, period: 10ms, priority: 1, offset: 1ms, body: [{compute: 2ms}]}
"""


def test_background_tasks_under_ult_run_below_every_priority(tmp_path):
    # "background" (policy other) computes 3 ms from the start of each period; "lowest"
    # (priority 1) is released 1 ms in: it preempts the background job in every period, which
    # completes after it. Under SCHED_FIFO workers a background ULT is still below every priority.
    summary, trace = run_set(write_set(tmp_path / "background.yaml", BACKGROUND), tmp_path / "out")
    skip_if_misses_were_stolen(summary, DURATION_NS)
    events = task_events(trace)
    background, lowest = events["background"], events["lowest"]
    done_background = {int(e["job"]): int(e["time_ns"]) for e in background if e["type"] == EV.COMPLETE}
    done_lowest = {int(e["job"]): int(e["time_ns"]) for e in lowest if e["type"] == EV.COMPLETE}
    both = sorted(set(done_background) & set(done_lowest))
    assert len(both) >= 40
    assert sum(done_lowest[j] < done_background[j] for j in both) >= len(both) - 1
    # Job by job, background is preempted exactly when lowest's release came while it ran: the
    # scene ("released 1 ms into the job") holds only where the machine started background's job
    # within that millisecond (a fresh-clone CI under test-loaded here: 3 of 50 started later).
    started = {int(e["job"]): int(e["time_ns"]) for e in background if e["type"] == EV.START}
    released = {int(e["job"]): int(e["time_ns"]) for e in lowest if e["type"] == EV.RELEASE}
    preempted = {int(e["job"]) for e in background if e["type"] == EV.PREEMPT}
    inside = {j for j in both if started[j] < released[j] < done_background[j]}
    assert {j for j in both if j in preempted} == inside
    if len(inside) < len(both) // 2:
        late = {j: round((started[j] - released[j]) / 1e6, 3) for j in both if j not in inside}
        pytest.skip(f"the scene happened in {len(inside)} of {len(both)} periods only: background started "
                    f"after lowest's release in the others (ms after it: {late})")
    assert not (lowest["type"] == EV.PREEMPT).any()


def load_cedf70():
    """bench/ult/cedf70.py, the generator of the 60 s C-EDF benchmark set (a script, not a package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "ult" / "cedf70.py"
    spec = importlib.util.spec_from_file_location("cedf70", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cedf70_set_runs_without_misses_under_ult(tmp_path):
    """The benchmark's set (C-EDF at 70% of two CPUs by WCET, bench/README.md "ult backend:
    C-EDF at 70%"), 2 s under ult instead of 60: no deadline miss, and every task's largest
    response within its bound (the analysis' bound: the deadline, GFB)."""
    cedf70 = load_cedf70()
    text = cedf70.generate(seed=1, tasks=10, cpus=2, u_max=0.5, period_min_ns=5_000_000,
                           period_max_ns=50_000_000, compute_share=0.8)
    out = tmp_path / "out"
    done = rtsched_run(str(write_set(tmp_path / "cedf70.yaml", text)), "--duration", "2s", "--out", str(out),
                       "--json", "--no-plots")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert json.loads((out / "runner.json").read_text())["backend"] == "ult:cedf:2"
    skip_if_misses_were_stolen(summary, 2_000_000_000)
    late = [{k: t[k] for k in ("task", "deadline_misses", "unfinished_missed", "tardiness_max_ns", "response_max_ns")}
            for t in summary["tasks"] if t["deadline_misses"]]
    assert summary["deadline_misses"] == 0, (late, summary.get("steal_ns"))
    assert len(summary["tasks"]) == 10
    for task in summary["tasks"]:
        assert task["jobs"] >= 2_000_000_000 // task["period_ns"] - 1, task
        assert task["bound_ns"] is not None and task["response_max_ns"] <= task["bound_ns"], task
