"""``rtsched run`` on examples/rtapp/woken.json: threads without a timer woken by ``resume`` run as event
tasks with rt-app's lost wake-up (tests/python/test_rtapp_woken.py checks the import and the simulator).

Counts only: worker's 15 ms job finds every second 10 ms resume of tick's lost, so it completes half as
many jobs; ping and pong, one priority on one CPU, each run a first loop unasked, lose one resume between
them (the first, sent before the other suspended) and then alternate. Needs root, SCHED_FIFO and 2 CPUs;
skips with the reason otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_rtapp_live import _rt_unavailable

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rtapp" / "woken.json"


@pytest.mark.skipif(_rt_unavailable() is not None, reason=str(_rt_unavailable()))
def test_run_threads_woken_by_resume(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "rtsched.cli.main", "run", str(EXAMPLE), "--duration", "500ms", "--no-plots",
         "--json", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=90,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    tasks = {t["task"]: t for t in summary["tasks"]}
    activations = {a["task"]: (a["kept"], a["lost"]) for a in summary["activations"]}
    assert tasks["tick"]["jobs"] >= 40
    kept, lost = activations["worker"]
    assert kept + lost - tasks["tick"]["jobs"] in (0, 1)  # one resume per tick job (the last may be unfinished)
    assert abs(kept - lost) <= 1 and abs(tasks["worker"]["jobs"] - tasks["tick"]["jobs"] // 2) <= 1
    assert tasks["worker"]["response_min_ns"] >= 15_000_000  # its run, in CPU time
    assert tasks["ping"]["jobs"] >= 50 and abs(tasks["ping"]["jobs"] - tasks["pong"]["jobs"]) <= 1
    assert activations["ping"][1] + activations["pong"][1] == 1  # the first resume, before the other waits
