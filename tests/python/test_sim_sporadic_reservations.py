"""Sporadic reservations (``kind: sporadic``) in the simulator: hand-computed schedules with exact
simulated times showing Sprunt's replenishment rule (each amount back one period after the
activation it was consumed in, at its own time), no premature replenishment and no budget
amplification (Stanovich et al., RTAS 2010), the REPLENISH / DEPLETE stream the report reads;
and, on hypothesis-generated sets, no served task ever runs without budget (400 examples,
SIM_PROPERTY_EXAMPLES=400, 2026-11-25; it catches a server never deactivated)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtsched.analysis.reservations import analyze_reservations
from rtsched.model import load_taskset, taskset_from_dict
from rtsched.report.reservations import reservation_budgets
from rtsched.sim import SimOptions, simulate
from rtsched.sim.draws import SporadicGaps
from rtsched.sim.sporadic_server import SporadicServer
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from sim_helpers import execution_intervals

MS = 1_000_000
ROOT = Path(__file__).resolve().parents[2]


def _set(server, tasks):
    return taskset_from_dict({"name": "ss", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
                              "reservations": [{"name": "SS", "kind": "sporadic", "scheduler": "FP",
                                                "partition": "cpu0", **server}],
                              "tasks": tasks})


def _task(name, priority, offset_ms, compute_ms, reservation="SS"):
    task = {"name": name, "partition": "cpu0", "period": "100ms", "priority": priority, "offset": f"{offset_ms}ms",
            "body": [{"compute": f"{compute_ms}ms"}]}
    if reservation is not None:
        task["reservation"] = reservation
    return task


def _run(tmp_path, taskset, duration_ns):
    return read_trace(simulate(taskset, SimOptions(duration_ns=duration_ns), tmp_path / "t.rtst").trace_path)


def _intervals(trace, name):
    """The task's execution intervals in ms."""
    return [(begin / MS, end / MS) for begin, end in execution_intervals(trace, name)]


def _budget_events(trace):
    """The server's stream: (ms, kind, job, arg0 in ms)."""
    stream = next(s for s in trace.streams if s["name"] == "SS")
    return [(int(e["time_ns"]) / MS, EV(int(e["type"])).name.removeprefix("RESERVATION_"), int(e["job"]),
             int(e["arg0"]) / MS) for e in trace.events_of(stream["stream_id"])]


def test_each_chunk_comes_back_one_period_after_its_own_activation(tmp_path):
    # Server 4 ms / 10 ms above a background task. a1 (1 ms at 1) and a2 (2 ms at 5) arrive
    # while the server is idle: two activations, their chunks back at 1 + 10 and 5 + 10. a3
    # (3 ms at 8) finds 1 ms left: runs 8..9, depletes, and waits.
    # The 1 ms back at 11 arrived while the server was active (since 8): it is consumed 11..12
    # and comes back at its arrival + 10 = 21, not at the activation 8 + 10 = 18 (premature:
    # it would give the server 1 ms more in [11, 21)); likewise 15..16 comes back at 25.
    ts = _set({"period": "10ms", "budget": "4ms", "priority": 30},
              [_task("a1", 10, 1, 1), _task("a2", 9, 5, 2), _task("a3", 8, 8, 3),
               _task("low", 5, 0, 50, reservation=None)])
    trace = _run(tmp_path, ts, 30 * MS)
    assert _intervals(trace, "a1") == [(1, 2)]
    assert _intervals(trace, "a2") == [(5, 7)]
    assert _intervals(trace, "a3") == [(8, 9), (11, 12), (15, 16)]
    assert _intervals(trace, "low") == [(0, 1), (2, 5), (7, 8), (9, 11), (12, 15), (16, 30)]
    assert _budget_events(trace) == [
        (0, "REPLENISH", 1, 0), (9, "DEPLETE", 1, 0), (11, "REPLENISH", 2, 1), (12, "DEPLETE", 2, 0),
        (15, "REPLENISH", 3, 2), (18, "REPLENISH", 4, 1), (21, "REPLENISH", 5, 1), (25, "REPLENISH", 6, 1)]


def test_the_budget_returned_is_what_was_consumed_not_the_interval(tmp_path):
    # A higher task preempts the server's run 1..3: the server consumed 0..1 and 3..6 (4 ms)
    # in one activation at 0. What comes back at 10 is those 4 ms, not the 6 ms from the run's
    # start to its depletion (the budget amplification Stanovich et al. find in POSIX, which
    # measures intervals). Then 10..14 (back at 20) and 20..22 complete the job's 10 ms.
    ts = _set({"period": "10ms", "budget": "4ms", "priority": 20},
              [_task("ap", 10, 0, 10), _task("hi", 30, 1, 2, reservation=None),
               _task("low", 5, 0, 50, reservation=None)])
    trace = _run(tmp_path, ts, 30 * MS)
    assert _intervals(trace, "ap") == [(0, 1), (3, 6), (10, 14), (20, 22)]
    assert _intervals(trace, "hi") == [(1, 3)]
    assert _intervals(trace, "low") == [(6, 10), (14, 20), (22, 30)]
    assert _budget_events(trace) == [
        (0, "REPLENISH", 1, 0), (6, "DEPLETE", 1, 0), (10, "REPLENISH", 2, 4), (14, "DEPLETE", 2, 0),
        (20, "REPLENISH", 3, 4)]
    (budget,) = reservation_budgets(trace, ts)  # the report reads the stream: 4 ms per replenishment
    assert (budget.used_ns, budget.depletions) == ((4 * MS, 4 * MS), 2)


def test_unused_budget_is_kept_and_an_idle_server_costs_nothing(tmp_path):
    # Unlike a periodic reservation, a sporadic server's budget neither idles away nor
    # resets: with nothing inside ready, the task below runs; an arrival at 25 finds the
    # whole budget and runs at once, 3 ms, back at 35.
    ts = _set({"period": "10ms", "budget": "3ms", "priority": 30},
              [_task("ap", 10, 25, 3), _task("low", 5, 0, 50, reservation=None)])
    trace = _run(tmp_path, ts, 40 * MS)
    assert _intervals(trace, "ap") == [(25, 28)]
    assert _intervals(trace, "low") == [(0, 25), (28, 40)]
    assert _budget_events(trace) == [(0, "REPLENISH", 1, 0), (28, "DEPLETE", 1, 0), (35, "REPLENISH", 2, 3)]


def _responses(trace):
    """Each stream's responses (ns), from its RELEASE and COMPLETE events."""
    out = {}
    for stream in trace.streams:
        evs = trace.events_of(stream["stream_id"])
        released = {int(e["job"]): int(e["time_ns"]) for e in evs if e["type"] == EV.RELEASE}
        out[stream["name"]] = [int(e["time_ns"]) - released[int(e["job"])] for e in evs if e["type"] == EV.COMPLETE]
    return out


def test_example_serves_aperiodic_tasks_fast_and_keeps_every_bound(tmp_path):
    # examples/sporadic-server.yaml over its 2 s: every task within its bound (fp-rta below,
    # ss-fp inside), and the aperiodic "events" answered in less than half the mean time of a
    # polling server of the same budget (kind periodic: its budget idles away).
    ts = load_taskset(ROOT / "examples/sporadic-server.yaml")
    bounds = {b.name: b.bound_ns for b in analyze_reservations(ts).tasks.tasks}
    (tmp_path / "ss").mkdir()
    sporadic = _responses(_run(tmp_path / "ss", ts, 2000 * MS))
    for task in ts.tasks:
        assert sporadic[task.name] and max(sporadic[task.name]) <= bounds[task.name], task.name
    polling = replace(ts, reservations=tuple(replace(r, kind="periodic") for r in ts.reservations))
    (tmp_path / "polling").mkdir()
    polled = _responses(_run(tmp_path / "polling", polling, 2000 * MS))
    mean = {name: sum(v) / len(v) for name, v in sporadic.items() if v}
    assert mean["events"] < 0.5 * sum(polled["events"]) / len(polled["events"])


def _releases(task, end_ns):
    """The task's release times before ``end_ns``: offset, then period + the C runner's extra gap
    (a job that never starts leaves no RELEASE in the trace, yet its server has work)."""
    gaps = SporadicGaps(task.sporadic.seed, task.sporadic.max_extra_ns)
    out, at = [], task.offset_ns
    while at < end_ns:
        out.append(at)
        at += task.period_ns + gaps.next_extra_ns()
    return out


def _runs_and_activations(trace, tasks):
    """The runs of ``tasks`` (ns) and the activations: the maximal intervals during which one of
    their jobs is pending (released, not complete)."""
    runs, pending = [], []
    end = int(trace.header["duration_ns"])
    for task in tasks:
        stream = next(s for s in trace.streams if s["name"] == task.name)
        since, completed = None, {}
        for e in trace.events_of(stream["stream_id"]):
            kind, t = int(e["type"]), int(e["time_ns"])
            if kind in (EV.START, EV.RESUME):
                since = t
            elif kind in (EV.PREEMPT, EV.COMPLETE) and since is not None:
                runs.append((since, t))
                since = None
            if kind == EV.COMPLETE:
                completed[int(e["job"])] = t
        if since is not None:
            runs.append((since, end))
        pending += [(r, completed.get(job, end)) for job, r in enumerate(_releases(task, end), 1)]
    activations: list[list[int]] = []
    for a, b in sorted(pending):
        if activations and a <= activations[-1][1]:
            activations[-1][1] = max(activations[-1][1], b)
        else:
            activations.append([a, b])
    return sorted(runs), activations


server_params = st.tuples(st.sampled_from((5, 8, 10, 20)), st.integers(1, 4), st.integers(1, 3))


@settings(max_examples=int(os.environ.get("SIM_PROPERTY_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(servers=st.lists(server_params, min_size=1, max_size=2), data=st.data())
def test_no_served_task_runs_without_budget(tmp_path, servers, data):
    # One or two sporadic servers (period, budget in ms up to half the period, tasks inside), overloaded or not,
    # among periodic tasks above, between and below them: replay each server's runs, split at
    # refill times, on a fresh SporadicServer activated when the trace shows work pending,
    # which refuses a run without eligible budget; the simulator split its runs the same way.
    reservations, tasks = [], []
    for k, (period, budget, n) in enumerate(servers):
        reservations.append({"name": f"S{k}", "kind": "sporadic", "period": f"{period}ms",
                             "budget": f"{min(budget, period // 2)}ms", "scheduler": "FP",
                             "priority": data.draw(st.integers(20, 60)), "partition": "cpu0"})
        for i in range(n):
            p = data.draw(st.sampled_from((5, 10, 20, 40)))
            tasks.append({"name": f"s{k}t{i}", "reservation": f"S{k}", "partition": "cpu0", "period": f"{p}ms",
                          "priority": 10 + i, "offset": f"{data.draw(st.integers(0, 9))}ms", "kind": "sporadic",
                          "sporadic": {"max_extra": f"{p}ms", "seed": data.draw(st.integers(1, 99))},
                          "body": [{"compute": f"{data.draw(st.integers(1, 30)) * 100}us"}]})
    for i in range(data.draw(st.integers(0, 3))):
        p = data.draw(st.sampled_from((10, 20, 40)))
        tasks.append({"name": f"h{i}", "partition": "cpu0", "period": f"{p}ms",
                      "priority": data.draw(st.integers(15, 65)), "offset": f"{data.draw(st.integers(0, 9))}ms",
                      "body": [{"compute": f"{data.draw(st.integers(1, p // 4)) * 1000}us"}]})
    ts = taskset_from_dict({"name": "gen", "platform": {"scheduler": "P-FP", "backend": "ult", "cpus": [0]},
                            "reservations": reservations, "tasks": tasks})
    trace = _run(tmp_path, ts, 200 * MS)
    for r in ts.reservations:
        runs, activations = _runs_and_activations(trace, ts.tasks_in(r.name))
        replay = SporadicServer(r.budget_ns, r.period_ns)
        used = 0
        for a, b in activations:
            replay.activate(a)
            for start, finish in (run for run in runs if a <= run[0] < b):
                assert finish <= b, (r.name, start, finish, "a run outside its activation")
                while start < finish:
                    assert replay.available_ns(start) > 0, f"{r.name} ran at {start} ns without budget"
                    stop = min(finish, replay.run_limit_ns(start))
                    replay.start(start)
                    used += replay.stop(stop)
                    start = stop
            replay.deactivate(b)
        assert used == sum(f - s for s, f in runs)  # every run fell in an activation
