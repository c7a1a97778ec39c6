"""trace.pftrace written by a forked child beside the report's pass (report/forked_writer.py,
report.table_writers above PFTRACE_CHILD_EVENTS): the same files as written in the pass; a child
that fails is reported with its traceback and leaves no file; a pass that fails kills the child."""

from __future__ import annotations

import os
import signal
import time

import pytest

import rtsched.report.report as report_module
from rtsched.model import load_taskset
from rtsched.pipeline import ReportSettings, run_experiment
from rtsched.report.forked_writer import ForkedWriterFailed, written_in_child
from rtsched.sim import SimOptions, SimProducer

from test_report_chunked import EXAMPLES

SIM = SimOptions(duration_ns=300_000_000, cpus=(0, 1, 2, 3))


def _outputs(out) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in ("jobs.csv", "trace.pftrace")}


@pytest.mark.parametrize("example", ["picv-rpc", "ult-cedf", "overload"])
def test_the_child_writes_the_same_files_as_the_pass(tmp_path, monkeypatch, example):
    taskset = load_taskset(EXAMPLES / f"{example}.yaml")
    monkeypatch.setattr(report_module, "can_fork_a_writer", lambda: True)
    monkeypatch.setattr(report_module, "PFTRACE_CHILD_EVENTS", 1 << 62)
    run_experiment(taskset, SimProducer(SIM), tmp_path / "pass", settings=ReportSettings(plots=False))
    monkeypatch.setattr(report_module, "PFTRACE_CHILD_EVENTS", 0)
    forked = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forked.append(1) or real_fork())
    run_experiment(taskset, SimProducer(SIM), tmp_path / "child", settings=ReportSettings(plots=False))
    assert forked == [1]
    assert _outputs(tmp_path / "child") == _outputs(tmp_path / "pass")
    assert not [p.name for p in (tmp_path / "child").iterdir() if "partial" in p.name]


def test_no_child_is_forked_from_a_worker_thread(tmp_path, monkeypatch):
    """A pool's worker thread may end before the report is read: the child, which dies with the
    thread that forked it, is not made there; the pass writes the file."""
    import threading

    taskset = load_taskset(EXAMPLES / "picv-rpc.yaml")
    monkeypatch.setattr(report_module, "PFTRACE_CHILD_EVENTS", 0)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    forked = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forked.append(1) or real_fork())
    worker = threading.Thread(target=run_experiment, args=(taskset, SimProducer(SIM), tmp_path / "thread"),
                              kwargs={"settings": ReportSettings(plots=False)})
    worker.start()
    worker.join()
    assert forked == [] and (tmp_path / "thread" / "trace.pftrace").stat().st_size > 0


def _fail() -> None:
    raise ValueError("the writer's own error")


def test_a_failing_child_is_raised_with_its_traceback():
    with pytest.raises(ForkedWriterFailed) as caught:
        with written_in_child(_fail):
            pass
    assert "ValueError: the writer's own error" in str(caught.value)
    assert "in _fail" in str(caught.value)


def test_a_killed_child_is_named_by_its_signal():
    with pytest.raises(ForkedWriterFailed, match="ended by signal 9"):
        with written_in_child(lambda: os.kill(os.getpid(), signal.SIGKILL)):
            pass


def test_a_failing_block_kills_the_child_and_waits_for_it(tmp_path):
    started = tmp_path / "started"

    def forever() -> None:
        started.write_text(str(os.getpid()))
        while True:
            time.sleep(1)

    with pytest.raises(KeyError):
        with written_in_child(forever):
            while not started.exists() or not started.read_text():
                time.sleep(0.01)
            raise KeyError("the pass failed")
    with pytest.raises(ChildProcessError):  # reaped: no zombie left
        os.waitpid(int(started.read_text()), os.WNOHANG)
