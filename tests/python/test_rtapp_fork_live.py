"""``rtsched run`` of examples/rtapp/launcher.json: each fork of the launcher is a worker task whose first
release is the fork's time after t0 (nominal release times from the trace), each running its 20 jobs."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_run_live import _rt_available  # noqa: E402

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

ROOT = Path(__file__).resolve().parents[2]
MS = 1_000_000


def test_forked_workers_start_at_the_forks_times(tmp_path):
    out = tmp_path / "out"
    for _attempt in range(10):
        done = subprocess.run(
            [sys.executable, "-m", "rtsched.cli.main", "run", str(ROOT / "examples" / "rtapp" / "launcher.json"),
             "--duration", "500ms", "--out", str(out), "--json", "--no-plots"],
            capture_output=True, text=True, timeout=90)
        if "another rtsched-run" not in done.stderr:  # one rtsched-run per machine at a time
            break
        time.sleep(2)
    assert done.returncode == 0, done.stderr
    t0 = json.loads((out / "summary.json").read_text())["t0_ns"]
    trace = read_trace(out / "trace.rtst")
    first_release, completed = {}, {}
    for stream in trace.streams:
        events = trace.events_of(int(stream["stream_id"]))
        releases = events[events["type"] == EV.RELEASE]["time_ns"]
        first_release[str(stream["name"])] = int(releases.min()) - t0
        completed[str(stream["name"])] = int((events["type"] == EV.COMPLETE).sum())
    assert first_release == {"control": 0, "worker-f0": 10 * MS, "worker-f1": 30 * MS, "worker-f2": 50 * MS}
    assert [completed[f"worker-f{k}"] for k in range(3)] == [20, 20, 20]
