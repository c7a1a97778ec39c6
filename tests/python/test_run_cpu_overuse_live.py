"""The runner's side of test_report_cpu_overuse.py: a real run names the jobs whose thread used
more CPU time than the task's WCET, and no job of a task whose body stays within it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rtsched.trace import read_trace
from stolen_cpu import off_cpu_ns
from test_report_cpu_overuse import check_overuse, overusing_file
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))


def test_run_names_the_jobs_that_ran_beyond_their_wcet(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--ideal", "--out", str(out),
                           str(overusing_file(tmp_path))], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "used more CPU time than their WCET" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    disturbed = [j["cause"] for j in summary["jobs_above_bound"] if j["task"] == "short" and j["verdict"] == "disturbed"]
    if disturbed and max((summary.get("steal_ns") or {}).values(), default=0):
        # the report put a job's excess down to the host's steal (a fresh-clone CI here: 10 ms in the run)
        pytest.skip(f"{len(disturbed)} job(s) disturbed from outside while the host stole CPU time: {disturbed[0]}")
    unexpected = [o for o in summary["jobs_over_wcet"] if o["task"] != "short"]
    if unexpected:
        # a job of a task within its WCET measured beyond it: skip when each such job spent 0.5 ms or
        # more off its CPU, neither its own nor the set's (the host's work on the vCPU counts as the
        # thread's CPU time: stolen_cpu.off_cpu_ns)
        trace = read_trace(out / "trace.rtst")
        off = [off_cpu_ns(trace, o["task"], o["job"]) for o in unexpected]
        if all(ns is not None and ns >= 500_000 for ns in off):
            pytest.skip("; ".join(f"{o['task']} job {o['job']}: {o['cpu_ns'] / 1e6:.3f} ms of CPU time for a "
                                  f"{o['wcet_ns'] / 1e6:.0f} ms WCET, {ns / 1e6:.3f} ms off its CPU"
                                  for o, ns in zip(unexpected, off)))
    check_overuse(summary)
