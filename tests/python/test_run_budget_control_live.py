"""The budget controller in a real run (``rtsched run``, ult backend, src/ult/reservation_control.c):
two soft reservations on CPU 0, controlled every 100 ms for 0.6 s. "starve" (1 ms / 10 ms) holds a
task that needs 6 ms every 20 ms; "idle" (5 ms / 10 ms) one that needs 1 ms every 100 ms.

Asserted (directions and counts, never times, STYLE 18): RESERVATION_BUDGET events appear on
both streams; starve's budget rises above its first, idle's first change lowers it; the summary's
reservations carry the changes and a miss ratio. Needs root and real-time scheduling (skips with
its reason otherwise); run under ``flock /tmp/rt.lock`` with RTSCHED_NATIVE_BIN set.
"""

from __future__ import annotations

import json

import pytest

from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from test_run_live import _rt_available, rtsched_run, write_set

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

MS = 1_000_000

ADAPTIVE = """\
name: adaptive-live
platform: {scheduler: P-EDF, backend: ult, cpus: [0]}
reservations:
  - {name: starve, period: 10ms, budget: 1ms, scheduler: EDF, criticality: soft, partition: cpu0,
     importance: 2, controller: {period: 100ms}}
  - {name: idle, period: 10ms, budget: 5ms, scheduler: EDF, criticality: soft, partition: cpu0,
     controller: {period: 100ms}}
tasks:
  - {name: a, period: 20ms, partition: cpu0, reservation: starve, body: [{compute: 6ms}]}
  - {name: b, period: 100ms, partition: cpu0, reservation: idle, body: [{compute: 1ms}]}
"""


def test_budgets_move_toward_the_demand(tmp_path):
    out = tmp_path / "out"
    done = rtsched_run(str(write_set(tmp_path / "adaptive.yaml", ADAPTIVE)), "--duration", "600ms",
                       "--out", str(out), "--json", "--no-plots")
    assert done.returncode == 0, done.stderr
    trace = read_trace(out / "trace.rtst")
    streams = {s["name"]: s["stream_id"] for s in trace.streams}
    changes = {}
    for name in ("starve", "idle"):
        events = trace.events_of(streams[name])
        changes[name] = [int(e["arg1"]) for e in events if int(e["type"]) == EV.RESERVATION_BUDGET]
        assert changes[name], f"{name}: no RESERVATION_BUDGET event"
    assert max(changes["starve"]) > MS  # it was starving: raised
    assert changes["idle"][0] < 5 * MS  # it used about 1 ms of its 5 in its busiest period: lowered
    summary = json.loads(done.stdout)
    by_name = {r["name"]: r for r in summary["reservations"]}
    assert [c["budget_ns"] for c in by_name["starve"]["budget_changes"]] == changes["starve"]
    assert by_name["starve"]["jobs"] > 0 and 0 <= by_name["starve"]["miss_ratio"] <= 1
