"""``rtsched run FILE --compare-rtapp RT_APP`` against a real rt-app (RTSCHED_RTAPP_BIN: its binary,
built by bench/rtapp/build-rtapp; skipped without it, with the reason). Asserted are what the
comparison must say whatever the machine's speed: every thread of the file has its row beside its
task, both sides ran for the same whole second and counted the same loops (a timer at the very end
is a toss-up, hence one loop of slack), rt-app's logs and the copy it ran are kept; and the
refusals, which need no real-time run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RTAPP = os.environ.get("RTSCHED_RTAPP_BIN")
SKIP = "set RTSCHED_RTAPP_BIN to a built rt-app (bench/rtapp/build-rtapp) to compare with it"


def _run(*args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.mark.skipif(not RTAPP, reason=SKIP)
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (SCHED_FIFO, for rt-app and rtsched)")
def test_compare_a_file_with_real_rt_app(tmp_path):
    source = ROOT / "examples" / "rtapp" / "simple.json"
    done = _run(str(source), "--compare-rtapp", str(RTAPP), "--duration", "1s", "--no-plots", "--json",
                "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    comparison = json.loads(done.stdout)
    assert comparison["format"] == "rtsched-rtapp-compare/1" and comparison["duration_s"] == 1
    assert comparison["rtapp"].startswith("rt-app ")
    rows = {r["thread"]: r for r in comparison["rows"]}
    assert sorted(rows) == ["filter-1", "logger-2", "sensor-0"]
    assert [rows[t]["tasks"] for t in ("sensor-0", "filter-1", "logger-2")] == [["sensor"], ["filter"], ["logger"]]
    for row in rows.values():
        assert abs(row["rtapp"]["jobs"] - row["rtsched"]["jobs"]) <= 1, row
        assert row["rtsched"]["jobs"] >= 15
    assert json.loads((tmp_path / "compare-rtapp.json").read_text()) == comparison
    ran = json.loads((tmp_path / "rtapp" / "workload.json").read_text())
    assert ran["global"]["duration"] == 1 and ran["global"]["log_size"] == "file"
    assert sorted(p.name for p in (tmp_path / "rtapp").glob("rtapp-*.log")) == [
        "rtapp-filter-1.log", "rtapp-logger-2.log", "rtapp-sensor-0.log"]


def test_a_path_that_is_not_rt_app_is_refused_naming_it(tmp_path):
    done = _run(str(ROOT / "examples" / "rtapp" / "simple.json"), "--compare-rtapp", "/bin/true",
                "--out", str(tmp_path))
    assert done.returncode == 1
    assert "--compare-rtapp: /bin/true: not rt-app" in done.stderr
    missing = _run(str(ROOT / "examples" / "rtapp" / "simple.json"), "--compare-rtapp", str(tmp_path / "rt-app"))
    assert missing.returncode == 1 and "rt-app: no such file" in missing.stderr


def test_a_task_set_that_is_not_an_rt_app_file_is_refused(tmp_path):
    done = _run(str(ROOT / "examples" / "pfp-two-cpus.yaml"), "--compare-rtapp", "/bin/true", "--out", str(tmp_path))
    assert done.returncode == 1 and "is not an rt-app file" in done.stderr


def test_a_length_rt_app_cannot_run_is_refused(tmp_path):
    done = _run(str(ROOT / "examples" / "rtapp" / "simple.json"), "--compare-rtapp", "/bin/true",
                "--duration", "1500ms", "--out", str(tmp_path))
    assert done.returncode == 1 and "rt-app runs for whole seconds" in done.stderr
