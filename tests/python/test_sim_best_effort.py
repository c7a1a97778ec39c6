"""Best-effort tasks in the simulator (docs/sim.md "Best-effort tasks", sim/fair.py): they run only while
no real-time job of their CPU is ready, share the CPU by CFS weight, a SCHED_IDLE one gets almost nothing
beside another, a holder of a pip lock a real-time task waits for is boosted, and `rtsched sim` reports
their jobs. Read from the simulated traces: order and counts, no absolute times."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from rtsched.model import taskset_from_dict
from rtsched.sim import SimOptions, SimOverheads, simulate, unsupported_features
from rtsched.trace import EventType as EV
from sim_helpers import MS, events, sim_trace

ONE_CPU = {"scheduler": "P-FP", "cpus": [0]}


def hog(name: str, **extra) -> dict:
    """A best-effort task that is always ready: self-paced jobs of 1 ms, no gap."""
    return {"name": name, "policy": "other", "kind": "self-paced", "period": "1ms", "body": [{"compute": "1ms"}],
            **extra}


def cpu_ns(trace, task: str) -> int:
    """The CPU time of the task's completed jobs (COMPLETE's arg1)."""
    return sum(a1 for *_rest, a1 in events(trace, task, EV.COMPLETE))


def runs(trace, task: str) -> list[tuple[int, int, int]]:
    """(cpu, from, to) of each stretch a task of compute-only jobs ran: START or RESUME to PREEMPT or
    COMPLETE (a best-effort thread records its switches)."""
    out, since = [], None
    for name, time, cpu, _job, _a0, _a1 in events(trace, task, EV.START, EV.RESUME, EV.PREEMPT, EV.COMPLETE):
        if name in ("START", "RESUME"):
            since = (cpu, time)
        else:
            assert since is not None, (task, name, time)
            out.append((since[0], since[1], time))
            since = None
    return out


def ready_windows(trace, task: str) -> list[tuple[int, int]]:
    """(release, completion) of each completed job of a task."""
    released = {job: time for _n, time, _c, job, _a0, _a1 in events(trace, task, EV.RELEASE)}
    return [(released[job], time) for _n, time, _c, job, _a0, _a1 in events(trace, task, EV.COMPLETE)]


def test_a_best_effort_task_never_runs_while_a_real_time_job_of_its_cpu_is_ready(tmp_path):
    data = {"name": "be", "platform": {"scheduler": "P-FP", "cpus": [0, 1]}, "tasks": [
        {"name": "ctl", "period": "10ms", "priority": 30, "partition": "cpu0", "body": [{"compute": "3ms"}]},
        {"name": "io", "period": "7ms", "priority": 20, "partition": "cpu0", "body": [{"compute": "2ms"}]},
        {"name": "pace", "kind": "self-paced", "period": "4ms", "priority": 10, "partition": "cpu1",
         "body": [{"compute": "1500us"}]},
        hog("bulk", nice=-3),
        hog("log", nice=5),
        {"name": "scan", "policy": "batch", "period": "5ms", "body": [{"compute": "700us"}]},
    ]}
    trace, _ts = sim_trace(tmp_path, data, 300 * MS)
    real_time = {0: ready_windows(trace, "ctl") + ready_windows(trace, "io"), 1: ready_windows(trace, "pace")}
    for task in ("bulk", "log", "scan"):
        stretches = runs(trace, task)
        assert len(stretches) > 10, (task, stretches)
        for cpu, begin, end in stretches:
            clash = [(r, c) for r, c in real_time[cpu] if begin < c and r < end]
            assert not clash, (task, cpu, begin, end, clash[:3])
    assert {cpu for task in ("bulk", "log") for cpu, _b, _e in runs(trace, task)} == {0, 1}  # on both CPUs


@pytest.mark.parametrize("overheads", [SimOverheads(), SimOverheads(context_switch_ns=5000, release_latency_ns=40000)],
                         ids=["ideal", "overheads"])
def test_two_hogs_of_nice_0_and_5_share_a_cpu_by_their_weights(tmp_path, overheads):
    """With a release latency each job is a wake-up (its release comes after its thread slept): the
    share still follows the weights (wakeup preemption), not job by job."""
    data = {"name": "be", "platform": ONE_CPU, "tasks": [hog("heavy"), hog("light", nice=5)]}
    trace, _ts = sim_trace(tmp_path, data, 2000 * MS, overheads=overheads)
    ratio = cpu_ns(trace, "heavy") / cpu_ns(trace, "light")
    assert abs(ratio / (1024 / 335) - 1) < 0.10, ratio
    assert cpu_ns(trace, "heavy") + cpu_ns(trace, "light") >= 1900 * MS  # the CPU hardly idles


def test_a_task_woken_after_a_long_sleep_shares_the_cpu_instead_of_taking_it(tmp_path):
    """job, released at 100 ms beside a hog that ran alone until then, starts at the least virtual
    runtime: it alternates slices with the hog, so its 30 ms of work take about twice as long, and the
    hog keeps running meanwhile."""
    data = {"name": "be", "platform": ONE_CPU, "tasks": [
        hog("hog"), {"name": "job", "policy": "other", "period": "1s", "offset": "100ms", "body": [{"compute": "30ms"}]}]}
    trace, _ts = sim_trace(tmp_path, data, 300 * MS)
    ((release, done),) = ready_windows(trace, "job")
    assert done - release > 50 * MS
    hog_runs = [(b, e) for _cpu, b, e in runs(trace, "hog") if release < e and b < done]
    assert len(hog_runs) >= 4, hog_runs


def test_a_task_s_own_slice_is_how_long_it_runs_before_giving_the_cpu_up(tmp_path):
    """Two hogs of equal weight on one CPU, one with a 10 ms slice (the kernel's custom slice): its
    stretches last its slice, the other's the base slice, and they still share the CPU evenly."""
    data = {"name": "be", "platform": ONE_CPU, "tasks": [
        {"name": "long", "policy": "other", "kind": "self-paced", "period": "50ms", "slice": "10ms",
         "body": [{"compute": "50ms"}]},
        {"name": "short", "policy": "other", "kind": "self-paced", "period": "50ms", "body": [{"compute": "50ms"}]}]}
    trace, _ts = sim_trace(tmp_path, data, 1000 * MS)
    for task, slice_ns in (("long", 10 * MS), ("short", 3 * MS)):
        switches = [(name, time) for name, time, *_ in events(trace, task, EV.START, EV.RESUME, EV.PREEMPT,
                                                                EV.COMPLETE)]
        # a stretch from a RESUME to a PREEMPT: whole slices (one that a new job started in goes on)
        whole = [(b, e) for (n0, b), (n1, e) in zip(switches, switches[1:]) if (n0, n1) == ("RESUME", "PREEMPT")]
        assert len(whole) > 10, (task, whole)
        assert all((e - b) % slice_ns == 0 for b, e in whole), (task, whole)
        if task == "long":
            assert all(e - b == slice_ns for b, e in whole), whole  # the other has run less when it ends
    assert abs(cpu_ns(trace, "long") / cpu_ns(trace, "short") - 1) < 0.25


def test_batch_weighs_as_other_and_idle_gets_almost_nothing_beside_other(tmp_path):
    data = {"name": "be", "platform": ONE_CPU, "tasks": [
        hog("other"), hog("batch", policy="batch"), hog("idle", policy="idle")]}
    trace, _ts = sim_trace(tmp_path, data, 2000 * MS)
    other, batch, idle = (cpu_ns(trace, t) for t in ("other", "batch", "idle"))
    assert abs(other / batch - 1) < 0.10, (other, batch)
    assert 0 < idle < (other + batch) / 100, (other, batch, idle)


def test_a_best_effort_holder_of_a_pip_lock_a_real_time_task_waits_for_is_boosted(tmp_path):
    """be holds m from 0; hi (30) asks for m at 1 ms; mid (20) is released at 2 ms. Boosted to 30, be
    finishes its section before mid starts; hi then runs, then mid."""
    data = {"name": "pip", "platform": ONE_CPU, "resources": [{"name": "m", "protocol": "pip"}], "tasks": [
        {"name": "be", "policy": "other", "period": "100ms", "max_jobs": 1,
         "body": [{"lock": "m"}, {"compute": "4ms"}, {"unlock": "m"}, {"compute": "1ms"}]},
        {"name": "hi", "period": "100ms", "offset": "1ms", "priority": 30, "partition": "cpu0",
         "body": [{"lock": "m"}, {"compute": "1ms"}, {"unlock": "m"}]},
        {"name": "mid", "period": "100ms", "offset": "2ms", "priority": 20, "partition": "cpu0",
         "body": [{"compute": "5ms"}]},
    ]}
    trace, _ts = sim_trace(tmp_path, data, 50 * MS)
    be_unlock = events(trace, "be", EV.LOCK_RELEASE)[0][1]
    hi_acquire = events(trace, "hi", EV.LOCK_ACQUIRE)[0][1]
    mid_start = events(trace, "mid", EV.START)[0][1]
    be_complete = events(trace, "be", EV.COMPLETE)[0][1]
    assert be_unlock <= hi_acquire <= mid_start < be_complete
    priorities = [(a0, a1) for _n, _t, _c, _j, a0, a1 in events(trace, "be", EV.PRIORITY)]
    hi_tid = next(int(s["tid"]) for s in trace.streams if s["name"] == "hi")
    assert priorities == [(0, 0), (30, hi_tid), (0, 0)]  # SCHED_OTHER's 0, hi's 30 while it waited, back


def test_best_effort_tasks_of_every_kind_get_jobs_and_are_not_refused(tmp_path):
    data = {"name": "kinds", "platform": ONE_CPU, "tasks": [
        {"name": "tick", "period": "10ms", "priority": 30, "partition": "cpu0",
         "body": [{"compute": "1ms"}, {"activate": "scrub"}]},
        {"name": "log", "policy": "other", "nice": 5, "period": "20ms", "body": [{"compute": "1ms"}]},
        {"name": "bulk", "policy": "batch", "nice": 10, "kind": "self-paced", "period": "5ms",
         "body": [{"compute": "1ms"}]},
        {"name": "scrub", "policy": "idle", "kind": "event", "period": "10ms", "activation_queue": 1,
         "body": [{"compute": "500us"}]},
    ]}
    assert unsupported_features(taskset_from_dict(data)) == []
    trace, _ts = sim_trace(tmp_path, data, 400 * MS)
    for task in ("log", "bulk", "scrub"):
        counts = [len(events(trace, task, kind)) for kind in (EV.RELEASE, EV.START, EV.COMPLETE)]
        assert min(counts) >= 5, (task, counts)
    again = simulate(taskset_from_dict(data), SimOptions(duration_ns=400 * MS, cpus=(0,)), tmp_path / "again.rtst")
    once = simulate(taskset_from_dict(data), SimOptions(duration_ns=400 * MS, cpus=(0,)), tmp_path / "once.rtst")
    assert again.trace_path.read_bytes() == once.trace_path.read_bytes()  # deterministic, byte for byte


def test_best_effort_beside_reservations_is_refused_by_name():
    data = {"name": "r", "platform": {**ONE_CPU, "backend": "ult"},
            "reservations": [{"name": "box", "partition": "cpu0", "budget": "2ms", "period": "10ms", "priority": 40,
                              "scheduler": "FP"}],
            "tasks": [{"name": "rt", "period": "10ms", "priority": 5, "partition": "cpu0", "reservation": "box",
                       "body": [{"compute": "1ms"}]},
                      hog("bulk")]}
    problems = unsupported_features(taskset_from_dict(data))
    assert any('"bulk"' in p and "reservations" in p for p in problems), problems


def test_the_same_set_through_rtsched_sim_writes_jobs_of_the_best_effort_tasks(tmp_path):
    data = {"name": "be-cli", "duration": "200ms", "platform": ONE_CPU, "tasks": [
        {"name": "tick", "period": "10ms", "priority": 30, "partition": "cpu0", "body": [{"compute": "2ms"}]},
        {"name": "log", "policy": "other", "period": "20ms", "body": [{"compute": "1ms"}]},
        hog("bulk", policy="batch", nice=3)]}
    path = tmp_path / "be.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "sim", "--no-plots", "--json", "--out", str(out),
                           str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    names, tasks = {}, []  # jobs.csv: a '# task NAME=... PID=...' line per task, a row per job led by its PID
    for line in (out / "jobs.csv").read_text().splitlines():
        if line.startswith("# task "):
            fields = dict(f.split("=", 1) for f in line.split()[2:])
            names[fields["PID"]] = fields["NAME"]
        elif not line.startswith("#") and line.strip():
            tasks.append(names[line.split(",")[0].strip()])
    assert tasks.count("log") >= 9 and tasks.count("bulk") >= 50 and tasks.count("tick") >= 19, names
    summary = json.loads(done.stdout)
    assert summary["simulated"]["engine"] == "generic"


def test_a_set_without_best_effort_tasks_keeps_its_loop(tmp_path):
    data = {"name": "rt", "platform": ONE_CPU, "tasks": [
        {"name": "tick", "period": "10ms", "priority": 30, "partition": "cpu0", "body": [{"compute": "2ms"}]}]}
    run = simulate(taskset_from_dict(data), SimOptions(duration_ns=50 * MS, native=False))
    assert run.engine == "python"
