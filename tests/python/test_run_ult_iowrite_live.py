"""``iowrite`` under ``platform: {backend: ult}`` (docs/ult.md "Blocking system calls"): the
write(2) runs in the task's proxy thread, so its bytes reach the device exactly, a failing
device's errno comes back to the report, and a writer blocked on a full FIFO leaves its CPU to
the other task of that CPU, whose jobs complete inside the writer's job (trace order and
counts only). Needs root and real-time scheduling; run under ``flock /tmp/rt.lock``."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from test_run_live import _rt_available, rtsched_run, write_set

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

IO_BYTES = 100_000
JOBS = 10
FULL_JOBS = 3

FILE_SET = """\
name: ult-iowrite-file
duration: 400ms
platform: {{scheduler: P-FP, cpus: [0, 1], backend: ult}}
tasks:
  - name: writer
    period: 20ms
    priority: 10
    partition: cpu1
    max_jobs: {jobs}
    body:
      - compute: 200us
      - iowrite: {{bytes: {io_bytes}, device: {out_file}, buffer: 4KiB, wcet: 1ms}}
  - name: full
    period: 40ms
    priority: 5
    partition: cpu1
    max_jobs: {full_jobs}
    body:
      - iowrite: {{bytes: 1000, device: /dev/full, buffer: 512, wcet: 100us}}
"""


def events_by_task(trace):
    return {s["name"]: trace.events_of(s["stream_id"]) for s in trace.streams}


def test_an_iowrite_ults_bytes_reach_the_file_and_errno_comes_back(tmp_path):
    out_file = tmp_path / "written.bin"
    spec = write_set(tmp_path / "file.yaml", FILE_SET.format(jobs=JOBS, io_bytes=IO_BYTES, out_file=out_file,
                                                             full_jobs=FULL_JOBS))
    done = rtsched_run(str(spec), "--out", str(tmp_path / "out"), "--json", "--no-plots")
    assert done.returncode == 0, done.stderr
    runner = json.loads((tmp_path / "out" / "runner.json").read_text())
    assert runner["backend"] == "ult:pfp"
    events = events_by_task(read_trace(tmp_path / "out" / "trace.rtst"))
    assert (events["writer"]["type"] == EV.COMPLETE).sum() == JOBS
    assert out_file.read_bytes() == b"\x01" * (JOBS * IO_BYTES)  # the write buffer holds ones
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [m for m in summary["runner_messages"] if "/dev/full" in m] == [
        "rtsched-run: task full: body[0] iowrite: write to /dev/full failed after 0 of 1000 bytes: "
        "No space left on device (errno 28)",
        f"rtsched-run: task full: body[0] iowrite to /dev/full failed in {FULL_JOBS} of {FULL_JOBS} jobs",
    ]


FIFO_BYTES = 256 * 1024
CHUNK = 4096

FIFO_SET = """\
name: ult-iowrite-fifo
duration: 1500ms
platform: {{scheduler: P-FP, cpus: [0, 1], backend: ult}}
tasks:
  - name: writer
    period: 2s
    priority: 20
    partition: cpu1
    max_jobs: 1
    body:
      - iowrite: {{bytes: {fifo_bytes}, device: {fifo}, buffer: 64KiB, wcet: 1ms}}
  - name: other
    period: 10ms
    priority: 10
    partition: cpu1
    body:
      - compute: 200us
"""


def slow_reader(fd: int, want: int, got: bytearray, give_up_s: float = 30) -> None:
    """Read the FIFO 4 KiB at a time with 5 ms pauses, so that a write of more than the pipe's
    64 KiB blocks in the kernel for at least (want - 64 KiB) / 4 KiB pauses."""
    end = time.monotonic() + give_up_s
    while len(got) < want and time.monotonic() < end:
        try:
            got += os.read(fd, CHUNK)
        except BlockingIOError:
            pass
        time.sleep(0.005)


def test_a_writer_blocked_on_a_full_fifo_leaves_its_cpu_to_the_other_task(tmp_path):
    fifo = tmp_path / "slow.fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the runner's open needs a reader
    got = bytearray()
    reader = threading.Thread(target=slow_reader, args=(fd, FIFO_BYTES, got))
    reader.start()
    try:
        spec = write_set(tmp_path / "fifo.yaml", FIFO_SET.format(fifo_bytes=FIFO_BYTES, fifo=fifo))
        done = rtsched_run(str(spec), "--out", str(tmp_path / "out"), "--json", "--no-plots")
    finally:
        reader.join()
        os.close(fd)
    assert done.returncode == 0, done.stderr
    assert bytes(got) == b"\x01" * FIFO_BYTES
    events = events_by_task(read_trace(tmp_path / "out" / "trace.rtst"))
    writer, other = events["writer"], events["other"]
    start = writer[writer["type"] == EV.START]["time_ns"]
    complete = writer[writer["type"] == EV.COMPLETE]["time_ns"]
    assert len(start) == 1 and len(complete) == 1
    # The writer's job left its CPU while its write waited (PREEMPT ... RESUME) ...
    assert (writer["type"] == EV.PREEMPT).sum() >= 1
    # ... and the other task of CPU 1, of lower priority, completed jobs inside it: without the
    # proxy the worker would sit in write(2) for the whole job. At least (256 - 64) / 4 = 48
    # pauses of 5 ms pass, about 24 of its 10 ms periods; 5 leaves a wide margin.
    other_done = other[other["type"] == EV.COMPLETE]["time_ns"]
    inside = int(np.count_nonzero((other_done > start[0]) & (other_done < complete[0])))
    assert inside >= 5, (inside, len(other_done))
    assert (np.concatenate([writer["cpu"], other["cpu"]]) == 1).all()
