"""Issue 35's classes 6 and 8 in real runs (``rtsched run``, ult backend, src/ult/reservation.c and
reservation_control.c): the schedules that broke the old bounds of the hierarchy analysis.

Class 6: a CBS that wakes with budget left keeps its deadline; beside a plain EDF task with a
deadline shorter than the CBS's period it runs first and the plain task responds beyond the
bound (its deadline) the analysis gave when it counted the CBS as a sporadic task. Class 8: the
controller raises a soft reservation above a hard task beyond the first budget the analysis
counted, and the hard task responds beyond that bound. Each set is simulated first (the
simulator's exact schedule, no root needed), then run.

Asserted: counts of jobs whose response exceeds the old bound, with margins that the host's
noise can only widen (a late wake-up or stolen time makes the plain task later, not earlier),
never absolute times (STYLE 18). Live parts need root and real-time scheduling (skip with the
reason otherwise); run under ``flock /tmp/rt.lock`` with RTSCHED_NATIVE_BIN set.
"""

from __future__ import annotations

import json

import pytest

from rtsched.analysis.reservations import analyze_reservations
from rtsched.model import load_taskset
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from sim_helpers import worst_responses
from stolen_cpu import stolen_share
from test_run_live import _rt_available, rtsched_run, write_set

MS = 1_000_000
US = 1_000
DURATION_NS = 600 * MS
live = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

# S: a CBS of 4 ms every 10 ms. At 0 "a" runs 2.4 ms in S (deadline 10 ms) and S idles with 1.6 ms
# left; at 4.5 ms "b" wakes it: 1.6·10 < (10 − 4.5)·4, so S keeps deadline 10 ms, before p's 10.5 ms,
# and b runs its 1.6 ms first (it would until a wake-up 1.5 ms late). p (6 ms, D = 6 ms) ends at
# 12.1 ms: 7.6 ms > 6 ms. Counted as the sporadic task (4, 10, 10), S claims nothing of p's window
# of 6 ms (old verdict: schedulable, bound 6 ms); at its bandwidth it claims 2.4 ms (now: not).
CBS_KEEPS_ITS_DEADLINE = """\
name: cbs-keeps-its-deadline
platform: {scheduler: P-EDF, backend: ult, cpus: [0]}
reservations:
  - {name: S, kind: hard-cbs, period: 10ms, budget: 4ms, scheduler: EDF, partition: cpu0}
tasks:
  - {name: a, reservation: S, partition: cpu0, period: 40ms, body: [{compute: 2.4ms}]}
  - {name: b, reservation: S, partition: cpu0, period: 40ms, offset: 4.5ms, body: [{compute: 2ms}]}
  - {name: p, partition: cpu0, period: 40ms, deadline: 6ms, offset: 4.5ms, body: [{compute: 6ms}]}
"""
OLD_P_BOUND_NS = 6 * MS

# S: soft, 1 ms every 10 ms at first, at priority 20 with a hog; the controller (every period)
# may raise it to 8 ms. h (3 ms every 10 ms, priority 10) outside: old bound 3 + 1 = 4 ms.
RAISED_ABOVE_A_HARD_TASK = """\
name: raised-above-a-hard-task
platform: {scheduler: P-FP, backend: ult, cpus: [0]}
reservations:
  - {name: S, period: 10ms, budget: 1ms, scheduler: FP, criticality: soft, priority: 20, partition: cpu0,
     controller: {period: 10ms, min_budget: 1ms, max_budget: 8ms}}
tasks:
  - {name: hog, reservation: S, partition: cpu0, period: 100ms, priority: 5, body: [{compute: 90ms}]}
  - {name: h, partition: cpu0, period: 10ms, priority: 10, body: [{compute: 3ms}]}
"""
OLD_H_BOUND_NS = 4 * MS


def responses(trace, task: str) -> list[int]:
    """Release-to-completion of each completed job of ``task``."""
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == task)
    events = trace.events_of(stream)
    released = {int(e["job"]): int(e["time_ns"]) for e in events if e["type"] == EV.RELEASE}
    return [int(e["time_ns"]) - released[int(e["job"])] for e in events
            if e["type"] == EV.COMPLETE and int(e["job"]) in released]


def test_both_sets_are_rejected_now_and_simulate_beyond_the_old_bounds(tmp_path):
    cbs = load_taskset(write_set(tmp_path / "cbs.yaml", CBS_KEEPS_ITS_DEADLINE))
    assert not analyze_reservations(cbs).schedulable
    worst, _ = worst_responses(tmp_path / "cbs.rtst", cbs, 200 * MS)
    assert worst["p"] == 7600 * US > OLD_P_BOUND_NS
    raised = load_taskset(write_set(tmp_path / "raised.yaml", RAISED_ABOVE_A_HARD_TASK))
    assert not analyze_reservations(raised).schedulable
    worst, _ = worst_responses(tmp_path / "raised.rtst", raised, 200 * MS)
    assert worst["h"] > OLD_H_BOUND_NS


def _run(tmp_path, name: str, text: str):
    out = tmp_path / name
    done = rtsched_run(str(write_set(tmp_path / f"{name}.yaml", text)), "--duration", "600ms", "--out", str(out),
                       "--json", "--no-plots")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), read_trace(out / "trace.rtst")


@live
def test_a_cbs_that_keeps_its_deadline_pushes_a_plain_task_past_its_old_bound(tmp_path):
    summary, trace = _run(tmp_path, "cbs", CBS_KEEPS_ITS_DEADLINE)
    got = responses(trace, "p")
    assert len(got) >= DURATION_NS // (40 * MS) - 2
    # every job of p waits for b's kept chunk: a job within its old bound needs the wake-up to come
    # over 1.5 ms late (S then takes a new deadline after p's); a few such on a noisy host are allowed
    beyond = sum(r > OLD_P_BOUND_NS for r in got)
    if beyond < len(got) * 3 // 4 and stolen_share(summary, DURATION_NS) > 0.01:
        pytest.skip(f"only {beyond} of {len(got)} jobs of p beyond 6 ms while the host stole CPU time")
    assert beyond >= len(got) * 3 // 4, got
    by_name = {r["name"]: r for r in summary["reservations"]}
    # S's replenishments: one per wake-up of a (new deadline) and one per depletion of b's kept chunk,
    # none at b's wake-up (it kept its deadline)
    assert by_name["S"]["depletions"] >= len(got) * 3 // 4


@live
def test_a_raised_soft_reservation_pushes_a_hard_task_past_its_old_bound(tmp_path):
    summary, trace = _run(tmp_path, "raised", RAISED_ABOVE_A_HARD_TASK)
    stream = next(s["stream_id"] for s in trace.streams if s["name"] == "S")
    raised = [int(e["arg1"]) for e in trace.events_of(stream) if int(e["type"]) == EV.RESERVATION_BUDGET]
    assert raised and max(raised) > MS  # the controller raised S above the budget the old bound counted
    assert max(raised) <= 8 * MS  # never above max_budget: the budget the analysis now counts
    got = responses(trace, "h")
    assert sum(r > OLD_H_BOUND_NS for r in got) > len(got) // 2, got
    tasks = {t["task"]: t for t in summary["tasks"]}
    assert tasks["h"]["deadline_misses"] > 0
