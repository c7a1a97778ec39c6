"""``rtsched run`` of a set with memwrite and iowrite (docs/taskset.md "Memory and I/O writes"): real
threads, real write(2) calls. The bytes written to a regular file are counted against the jobs the
trace shows completed; a device whose writes fail is reported with its path and errno; a device
that cannot be opened stops the run before it starts, naming the path."""

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

IO_BYTES = 100_000
JOBS = 20
FULL_JOBS = 5


def task_set(out_file: Path) -> str:
    return f"""\
name: run-test-writes
duration: 400ms
platform: {{scheduler: P-FP, cpus: [0, 1]}}
tasks:
  - name: writer
    period: 10ms
    priority: 10
    partition: cpu1
    max_jobs: {JOBS}
    body:
      - compute: 500us
      - memwrite: {{bytes: 3MiB, buffer: 1MiB, wcet: 2ms}}
      - iowrite: {{bytes: {IO_BYTES}, device: {out_file}, buffer: 4KiB, wcet: 1ms}}
  - name: full
    period: 20ms
    priority: 5
    partition: cpu1
    max_jobs: {FULL_JOBS}
    body:
      - iowrite: {{bytes: 1000, device: /dev/full, buffer: 512, wcet: 100us}}
"""


def rtsched_run(spec: Path, out: Path) -> subprocess.CompletedProcess[str]:
    for _attempt in range(10):
        done = subprocess.run(
            [sys.executable, "-m", "rtsched.cli.main", "run", str(spec), "--out", str(out), "--json", "--no-plots"],
            capture_output=True, text=True, timeout=90)
        if "another rtsched-run" not in done.stderr:  # one rtsched-run per machine at a time
            return done
        time.sleep(2)
    return done


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("writes")
    out_file = folder / "written.bin"
    spec = folder / "writes.yaml"
    spec.write_text(task_set(out_file))
    done = rtsched_run(spec, folder / "out")
    assert done.returncode == 0, done.stderr
    summary = json.loads((folder / "out" / "summary.json").read_text())
    return out_file, read_trace(folder / "out" / "trace.rtst"), summary


def completed_jobs(trace, task: str) -> int:
    stream = next(int(s["stream_id"]) for s in trace.streams if s["name"] == task)
    return int((trace.events_of(stream)["type"] == EV.COMPLETE).sum())


def test_every_job_writes_exactly_its_bytes_to_the_file(run):
    out_file, trace, _ = run
    assert completed_jobs(trace, "writer") == JOBS
    assert out_file.stat().st_size == JOBS * IO_BYTES


def test_failing_writes_are_reported_with_path_and_errno_and_the_jobs_go_on(run):
    _, trace, summary = run
    assert completed_jobs(trace, "full") == FULL_JOBS
    messages = summary["runner_messages"]
    assert [m for m in messages if "/dev/full" in m] == [
        "rtsched-run: task full: body[0] iowrite: write to /dev/full failed after 0 of 1000 bytes: "
        "No space left on device (errno 28)",
        f"rtsched-run: task full: body[0] iowrite to /dev/full failed in {FULL_JOBS} of {FULL_JOBS} jobs",
    ]


def test_a_device_that_cannot_be_opened_stops_the_run_before_it_starts(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text(task_set(tmp_path / "no-such-dir" / "out.bin"))
    done = rtsched_run(spec, tmp_path / "out")
    assert done.returncode != 0
    assert (f"tasks[0] (writer): body[2] iowrite: cannot open {tmp_path}/no-such-dir/out.bin for writing: "
            "No such file or directory") in done.stderr


def test_an_rt_app_file_with_mem_and_iorun_writes_to_its_io_device(tmp_path):
    """rt-app's mem and iorun through the importer: iorun's bytes reach global.io_device once per job."""
    device = tmp_path / "rt-app.io"
    spec = tmp_path / "writes.json"
    spec.write_text(json.dumps({
        "global": {"duration": 1, "io_device": str(device), "mem_buffer_size": 65536},
        "tasks": {"logger": {"policy": "SCHED_FIFO", "cpus": [1], "loop": 12, "run": 200, "mem": 200000,
                             "iorun": 70000, "wcet": {"mem": 500, "iorun": 1000},
                             "timer": {"ref": "tick", "period": 20000}}}}))
    done = rtsched_run(spec, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    trace = read_trace(tmp_path / "out" / "trace.rtst")
    assert completed_jobs(trace, "logger") == 12
    assert device.stat().st_size == 12 * 70000
