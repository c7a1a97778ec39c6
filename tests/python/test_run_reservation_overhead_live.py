"""``rtsched run`` reports the reservation scheduler's overhead (docs/reservations.md,
"Overhead"): a real 1 s run of examples/budget-controller.yaml on the ult backend, whose
summary.json gets the runner's per-CPU figures under ``reservation_overhead``.

Counts and orderings only, never absolute times (STYLE 18): the times are non-negative,
the controller's part of the decisions' and both below the run's length; every period
begun is a decision and every end of a control period of each adapted reservation one run
of the controller. Needs root and real-time scheduling (skips with its reason otherwise);
run under ``flock /tmp/rt.lock`` with RTSCHED_NATIVE_BIN set.
"""

from __future__ import annotations

import json

import pytest

from test_run_live import EXAMPLES, _rt_available, rtsched_run

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

RUN_NS = 1_000_000_000
CONTROL_PERIOD_NS = 200_000_000  # video's and logger's controller: {period: 200ms}
ADAPTED = 2


def test_the_summary_and_the_report_carry_the_hierarchys_overhead(tmp_path):
    out = tmp_path / "out"
    done = rtsched_run(str(EXAMPLES / "budget-controller.yaml"), "--duration", "1s", "--out", str(out),
                       "--no-plots")
    assert done.returncode == 0, done.stderr
    assert "reservation overhead on CPU 0: " in done.stdout  # the report's line
    summary = json.loads((out / "summary.json").read_text())
    runner = json.loads((out / "runner.json").read_text())
    cpu = runner["reservations"][0]["cpu"]
    (overhead,) = summary["reservation_overhead"]
    assert overhead["cpu"] == cpu and overhead["run_ns"] == RUN_NS
    assert 0 <= overhead["control_ns"] <= overhead["decision_ns"] < RUN_NS, overhead
    assert 0 <= overhead["control_share"] <= overhead["decision_share"] < 1
    # each period begun is a decision (periods of one instant share it)
    assert overhead["decisions"] >= max(r["periods"] for r in summary["reservations"]) > 0
    # one run per adapted reservation and end of its control period: 4 each in 1 s (a fifth at
    # the very end may or may not be reached; one lost to another tenant of the machine is allowed)
    ends = RUN_NS // CONTROL_PERIOD_NS
    assert ADAPTED * (ends - 2) <= overhead["controls"] <= ADAPTED * ends, overhead
