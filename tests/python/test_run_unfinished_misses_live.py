"""The runner's side of test_report_unfinished_misses.py: a starved task's jobs that never start
are counted as misses in the table, the summary and --fail-on-miss (issue 36, item 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from test_report_unfinished_misses import check_starved_summary, starving_file
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))


def test_run_counts_the_jobs_a_starved_task_never_started(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--out", str(out),
                           "--fail-on-miss", str(starving_file(tmp_path))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "missed their deadline without completing" in done.stdout
    check_starved_summary(json.loads((out / "summary.json").read_text()))
