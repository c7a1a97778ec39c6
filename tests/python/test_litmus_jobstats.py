"""rtspin (-llitmus) traced with RTSCHED_LITMUS_TRACE under P-FP and PSN-EDF.

From rtsched's trace, never from times: jobs numbered 1, 2, ... without a
gap, every job on the partition asked for, nominal releases exactly one
period apart, and the st-job-stats CSV of ``rtsched.litmus.jobstats`` with
the task's COST, PERIOD and CPU. Needs root and real-time scheduling (skips
with the reason otherwise); run under ``flock /tmp/rt.lock``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rtsched.litmus.jobstats import litmus_job_table, main
from rtsched.native import NativeToolMissing, native_tool

PERIOD_NS = 10_000_000
WCET_NS = 2_000_000


def _tool(name: str) -> Path:
    try:
        return native_tool(name)
    except NativeToolMissing as err:
        pytest.skip(str(err))


def _rtspin(tmp_path: Path, plugin: str, cpu: int) -> Path:
    if os.geteuid() != 0:
        pytest.skip("needs root (SCHED_FIFO, SCHED_DEADLINE, cpusets)")
    trace_dir = tmp_path / plugin
    trace_dir.mkdir()
    env = dict(os.environ, RTSCHED_LITMUS_PLUGIN_FILE=str(tmp_path / "plugin"),
               RTSCHED_LITMUS_TRACE=str(trace_dir))
    env.pop("RTSCHED_LITMUS_PLUGIN", None)
    setsched = _tool("litmus-setsched")
    made = subprocess.run([setsched, plugin], env=env, capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"litmus-setsched {plugin}: {made.stderr.strip()}")
    try:
        run = subprocess.run(
            [_tool("rtspin"), "-p", str(cpu), "-q", "10", "2", "10", "0.2"],
            env=env, capture_output=True, text=True, timeout=30,
        )
    finally:
        subprocess.run([setsched, "Linux"], env=env, capture_output=True)
    if run.returncode == 2 and "refused" in run.stderr:
        pytest.skip(run.stderr.strip())
    assert run.returncode == 0, run.stderr
    return trace_dir


@pytest.mark.parametrize("plugin", ["P-FP", "PSN-EDF"])
def test_rtspin_jobs_from_trace(tmp_path: Path, plugin: str) -> None:
    cpu = len(os.sched_getaffinity(0)) - 1
    if cpu < 1:
        pytest.skip("needs 2 CPUs")
    result = litmus_job_table([_rtspin(tmp_path, plugin, cpu)])
    assert len(result.table.tasks) == 1
    jobs = result.table.of_task(0)
    numbers = jobs["job"].tolist()
    assert numbers == list(range(1, len(numbers) + 1))
    assert 10 <= len(numbers) <= 21  # 0.2 s of 10 ms periods, with margin
    assert set(jobs["first_cpu"].tolist()) == {cpu}
    assert result.cpus == [[cpu]]
    assert np.all(np.diff(jobs["release"]) == PERIOD_NS)
    assert np.all(jobs["deadline"] - jobs["release"] == PERIOD_NS)
    assert result.cost_ns == [WCET_NS]

    csv_path = tmp_path / "jobs.csv"
    assert main([str(tmp_path / plugin), "-o", str(csv_path)]) == 0
    lines = csv_path.read_text().splitlines()
    assert lines[1].endswith(f"COST={WCET_NS} PERIOD={PERIOD_NS} CPU={cpu}")
    assert len(lines) == 2 + len(numbers)


def _litmus_env(tmp_path: Path, plugin: str) -> dict[str, str]:
    if os.geteuid() != 0:
        pytest.skip("needs root (SCHED_FIFO)")
    trace_dir = tmp_path / "traces"
    trace_dir.mkdir()
    env = dict(os.environ, RTSCHED_LITMUS_PLUGIN=plugin, RTSCHED_LITMUS_TRACE=str(trace_dir),
               RTSCHED_LITMUS_TS_NAME=f"rtsched-test-jobstats-{os.getpid()}")
    return env


def test_killed_task_keeps_its_thread_id(tmp_path: Path) -> None:
    """Issue 30: a program killed before exit_litmus left its trace's thread id 0."""
    env = _litmus_env(tmp_path, "P-FP")
    cpu = len(os.sched_getaffinity(0)) - 1
    spin = subprocess.Popen([_tool("rtspin"), "-p", str(cpu), "-q", "10", "2", "10", "30"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    traces = Path(env["RTSCHED_LITMUS_TRACE"])
    deadline = time.monotonic() + 10
    while not any(traces.glob("litmus-*.rtst")) and spin.poll() is None:
        assert time.monotonic() < deadline, "no trace file appeared"
        time.sleep(0.05)
    time.sleep(0.3)  # some jobs
    spin.kill()
    _, err = spin.communicate()
    if spin.returncode == 2 and "refused" in err:
        pytest.skip(err.strip())
    result = litmus_job_table([traces])
    assert result.table.tasks[0].tid == spin.pid  # the main thread: tid = pid


def test_synchronous_release_wait_is_no_response(tmp_path: Path) -> None:
    """Issue 30: under -w the wait for release_ts was counted as the first job's response."""
    env = _litmus_env(tmp_path, "P-FP")
    cpu = len(os.sched_getaffinity(0)) - 1
    wait_ms = 300
    spin = subprocess.Popen([_tool("rtspin"), "-w", "-p", str(cpu), "-q", "10", "2", "10", "0.2"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(wait_ms / 1000)  # the task waits at least this long: release_ts is not yet called
    release = subprocess.run([_tool("release_ts"), "-f", "1", "-d", "10"], env=env,
                             capture_output=True, text=True, timeout=30)
    _, err = spin.communicate(timeout=30)
    shm = Path("/dev/shm") / env["RTSCHED_LITMUS_TS_NAME"]
    shm.unlink(missing_ok=True)
    if spin.returncode == 2 and "refused" in err:
        pytest.skip(err.strip())
    assert release.returncode == 0, release.stderr
    assert spin.returncode == 0, err
    jobs = litmus_job_table([Path(env["RTSCHED_LITMUS_TRACE"])]).table.of_task(0)
    assert len(jobs) >= 10
    # No job spans the wait: every response is far below it, and no job is late.
    assert int(jobs["response"].max()) < wait_ms * 1_000_000 // 2
    assert not jobs["missed"].any()


def test_jobstats_names_missing_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nothing")]) == 2
    assert "no such trace file or folder" in capsys.readouterr().err
    assert main([str(tmp_path)]) == 2
    assert "no litmus-*.rtst trace" in capsys.readouterr().err
