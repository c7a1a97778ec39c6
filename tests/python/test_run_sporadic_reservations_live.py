"""``rtsched run`` of sporadic servers (``kind: sporadic``, docs/reservations.md, "Sporadic
servers") on the ult backend: real runs of 0.5 s.

A server at the top of its CPU, its tasks asking for more than its budget: in every window of
one period (each starting where one of its tasks starts running, the worst place for it), its
tasks' CPU time is at most its budget, with a margin for the timer's latency at a depletion;
in most periods aligned to t0 they get it all (each amount comes back one period after it ran,
so a backlogged server runs its budget every period), and the hard task below misses nothing.
The report reads its stream: each replenishment brings back at most the budget (the refills
sum to it). Then the
example runs with every task within its bound (plus the margin).

Counts and budgets with margin, never absolute times (STYLE 18). Needs root and real-time
scheduling (skips with its reason otherwise); run under ``flock /tmp/rt.lock`` with
RTSCHED_NATIVE_BIN set.
"""

from __future__ import annotations

import json

import pytest

from rtsched.trace import read_trace as load_trace
from stolen_cpu import skip_if_misses_were_stolen, skip_if_stolen
from test_run_live import EXAMPLES, _rt_available, rtsched_run, write_set
from test_run_reservations_live import per_period, running_intervals

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

DURATION_NS = 500_000_000
MARGIN_NS = 1_000_000  # timer latency at a depletion, as the periodic reservations' live test
MS = 1_000_000

BACKLOGGED = """\
name: sporadic-backlogged
platform: {scheduler: P-FP, backend: ult, cpus: [0]}
reservations:
  - {name: SS, kind: sporadic, period: 10ms, budget: 2ms, scheduler: FP, priority: 50, partition: cpu0}
tasks:
  - {name: hog, reservation: SS, partition: cpu0, period: 40ms, priority: 10, body: [{compute: 30ms}]}
  - {name: events, reservation: SS, partition: cpu0, period: 20ms, priority: 20, kind: sporadic,
     sporadic: {max_extra: 20ms, seed: 5}, body: [{compute: 1ms}]}
  - {name: control, partition: cpu0, period: 20ms, priority: 40, body: [{compute: 4ms}]}
"""


def cpu_in(intervals: list[tuple[int, int]], start: int, end: int) -> int:
    return sum(max(0, min(b, end) - max(a, start)) for a, b in intervals)


def late_depletions(trace, streams, served_names) -> list[int]:
    """For each DEPLETE of the server that the served task outlived by more than MARGIN_NS, how
    long after it the task was switched out (the decision came late)."""
    from rtsched.trace import EventType as EV

    depletes = [int(e["time_ns"]) for e in trace.events_of(streams["SS"]) if e["type"] == EV.RESERVATION_DEPLETE]
    ends = sorted(int(e["time_ns"]) for name in served_names for e in trace.events_of(streams[name])
                  if e["type"] in (EV.PREEMPT, EV.COMPLETE))
    late = []
    for d in depletes:
        after = [t for t in ends if t >= d]
        if after and after[0] - d > MARGIN_NS:
            late.append(after[0] - d)
    return late


def test_a_backlogged_server_gives_its_tasks_its_budget_per_period_and_no_more(tmp_path):
    spec = write_set(tmp_path / "ss.yaml", BACKLOGGED)
    out = tmp_path / "out"
    done = rtsched_run(str(spec), "--duration", "500ms", "--out", str(out), "--json", "--no-plots")
    assert done.returncode == 0, done.stderr
    runner = json.loads((out / "runner.json").read_text())
    (ss,) = runner["reservations"]
    assert (ss["kind"], ss["budget_ns"], ss["period_ns"]) == ("sporadic", 2 * MS, 10 * MS)
    trace = load_trace(out / "trace.rtst")
    t0 = trace.header["t0_ns"]
    streams = {s["name"]: s["stream_id"] for s in trace.streams}
    served = sorted(i for name in ("hog", "events") for i in running_intervals(trace.events_of(streams[name])))
    budget, period = ss["budget_ns"], ss["period_ns"]
    summary = json.loads(done.stdout)
    worst = max(cpu_in(served, start, start + period) for start, _ in served)
    periods = DURATION_NS // period - 1  # whole periods, the last one may be cut by the end
    used = per_period(served, t0, period, periods)
    if worst > budget + MARGIN_NS or max(used) > budget + MARGIN_NS:
        # The server charges wall time from decision to decision. While the host (steal) or the
        # kernel (interrupt and softirq work, or its fair server running starved SCHED_OTHER
        # work above SCHED_FIFO) stops the worker, the depletion's decision comes late: the trace then shows the served task
        # preempted well after the DEPLETE's time, and the overrun is deferred to the next
        # refills (budget never created: the whole run's service stays within one budget of
        # budget x periods). Only then is a late window put down to the machine.
        skip_if_stolen(summary, DURATION_NS, f"a window held {worst} ns of service, budget {budget}")
        late = late_depletions(trace, streams, ("hog", "events"))
        total = cpu_in(served, t0, t0 + DURATION_NS)  # the run's; a job cut by the stop runs on a little
        assert total <= budget * (DURATION_NS // period + 1) + budget, (total, used)
        if late:
            pytest.skip(f"a window held {worst} ns of service (budget {budget}): the worker decided "
                        f"{max(late) / 1e6:.2f} ms after a depletion; the overrun was deferred "
                        f"({total} ns served in all)")
        # The server charges its tasks' CPU time (the worker's CPU clock, docs/ult.md), while these
        # windows are wall time from the trace: time the kernel gave others on the worker's CPU
        # (its fair server, interrupts) while a served task was switched in is in the window, not
        # in the budget. Then the server's own per-period charge must still hold.
        (line,) = summary["reservations"]
        assert line["used_max_ns"] <= budget, line["used_ns"]
        pytest.skip(f"a window held {worst} ns of wall-clock service (budget {budget}), while the server "
                    f"charged at most {line['used_max_ns']} ns of CPU time a period: the worker's CPU was "
                    f"taken meanwhile ({total} ns served in all)")
    assert worst <= budget + MARGIN_NS, worst
    assert max(used) <= budget + MARGIN_NS, used
    full = sum(1 for ns in used if ns >= budget - MARGIN_NS)
    assert full >= periods * 3 // 4, used  # a period lost to another tenant of the machine is allowed
    skip_if_misses_were_stolen(summary, DURATION_NS)
    tasks = {t["task"]: t for t in summary["tasks"]}
    assert tasks["control"]["deadline_misses"] == 0, tasks["control"]
    assert tasks["control"]["jobs"] >= DURATION_NS // (20 * MS) - 2
    (line,) = summary["reservations"]
    assert line["periods"] >= periods  # a replenishment a period, each what ran one period before
    assert line["used_max_ns"] <= budget and line["depletions"] >= periods * 3 // 4


def test_the_example_runs_with_every_task_within_its_bound(tmp_path):
    out = tmp_path / "out"
    done = rtsched_run(str(EXAMPLES / "sporadic-server.yaml"), "--duration", "500ms", "--out", str(out), "--json",
                       "--no-plots")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    skip_if_misses_were_stolen(summary, DURATION_NS)
    assert summary["deadline_misses"] == 0
    for task in summary["tasks"]:
        assert task["jobs"] > 0 and task["bound_ns"] is not None, task
        if task["response_max_ns"] > task["bound_ns"] + MARGIN_NS:
            # the report explains each job above its bound from the kernel's schedule and the steal
            above = [j for j in summary["jobs_above_bound"] if j["task"] == task["task"]]
            if above and all(j["verdict"] == "disturbed" for j in above):
                pytest.skip(f"{task['task']}: {len(above)} job(s) above the bound, each by what came from "
                            f"outside the set ({above[0]['cause']})")
            # under the ult backend the host's steal is seen only in /proc/stat's ticks, not per job
            skip_if_stolen(summary, DURATION_NS, f"{task['task']} responded in {task['response_max_ns']} ns, "
                           f"bound {task['bound_ns']}")
        assert task["response_max_ns"] <= task["bound_ns"] + MARGIN_NS, (
            task, [j for j in summary["jobs_above_bound"] if j["task"] == task["task"]][:3])
    (line,) = summary["reservations"]
    assert line["name"] == "SS" and 0 < line["used_max_ns"] <= 2 * MS
