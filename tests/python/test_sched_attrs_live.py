"""`rtsched run` gives each thread the kernel attributes its task asks for, read with sched_getattr on the
running threads (docs/taskset.md): a `sched` action's policy and priority from where it stands on, a
SCHED_DEADLINE reservation of the task's own (`dl_deadline`, `dl_period`) and a fair policy's `slice`;
and rt-app's custom-slice.json shape runs its jobs."""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import sys
import time

import pytest
import yaml

from child_threads import child_threads
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

MS = 1_000_000
SCHED_OTHER, SCHED_FIFO, SCHED_BATCH, SCHED_DEADLINE = 0, 1, 3, 6
SYS_SCHED_GETATTR = {"x86_64": 315, "aarch64": 275}.get(platform.machine())


class SchedAttr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("policy", ctypes.c_uint32), ("flags", ctypes.c_uint64),
                ("nice", ctypes.c_int32), ("priority", ctypes.c_uint32), ("runtime", ctypes.c_uint64),
                ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64)]


def attrs(tid: int) -> tuple[int, int, int, int, int, int] | None:
    """(policy, priority, nice, runtime, deadline, period) of a thread, None when it is gone."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = SchedAttr()
    if libc.syscall(SYS_SCHED_GETATTR, tid, ctypes.byref(attr), ctypes.sizeof(attr), 0) != 0:
        return None
    return attr.policy, attr.priority, attr.nice, attr.runtime, attr.deadline, attr.period


def seen_while_running(tmp_path, data: dict) -> set[tuple[int, int, int, int, int, int]]:
    """Every (policy, priority, nice, runtime, deadline, period) a thread of the run had while it ran."""
    if SYS_SCHED_GETATTR is None:
        pytest.skip(f"no sched_getattr number known for {platform.machine()}")
    path = tmp_path / "set.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    run = subprocess.Popen([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--ideal", "--out",
                            str(tmp_path / "out"), str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    # Sample from CPUs the set does not use (the run, started before, keeps its own): left to share
    # the set's CPU while the other is loaded (test-loaded), this process ran only when the set's
    # real-time thread did not, and never saw its real-time phases (a fresh-clone CI here).
    mine = os.sched_getaffinity(0)
    others = mine - set(data["platform"].get("cpus", ()))
    seen: set[tuple[int, int, int, int, int, int]] = set()
    try:
        if others and others != mine:
            os.sched_setaffinity(0, others)
        while run.poll() is None:
            for task in child_threads(run.pid):
                got = attrs(int(task.name))
                if got is not None:
                    seen.add(got)
            time.sleep(0.002)
    finally:
        os.sched_setaffinity(0, mine)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stdout + stderr
    return seen


def test_a_sched_action_changes_the_thread_from_where_it_stands(tmp_path):
    seen = seen_while_running(tmp_path, {
        "name": "hop", "duration": "400ms", "platform": {"scheduler": "P-FP", "cpus": [1]},
        "tasks": [{"name": "hop", "kind": "self-paced", "period": "4ms", "priority": 20, "partition": "cpu1",
                   "body": [{"compute": "1ms"}, {"sched": {"policy": "fifo", "priority": 45}}, {"compute": "1ms"},
                            {"sched": {"policy": "batch", "nice": 7}}, {"compute": "1ms"},
                            {"sched": {"policy": "fifo", "priority": 20}}]}]})
    policies = {(policy, priority, nice) for policy, priority, nice, *_ in seen}
    assert {(SCHED_FIFO, 20, 0), (SCHED_FIFO, 45, 0), (SCHED_BATCH, 0, 7)} <= policies, policies


def test_an_own_reservation_and_a_slice_are_the_threads(tmp_path):
    seen = seen_while_running(tmp_path, {
        "name": "own", "duration": "400ms", "platform": {"scheduler": "G-EDF"},
        "tasks": [
            {"name": "loop", "kind": "self-paced", "period": "5ms", "budget": "4ms", "dl_deadline": "30ms",
             "dl_period": "40ms", "body": [{"compute": "1ms"}]},
            {"name": "bg", "policy": "other", "slice": "7ms", "period": "10ms", "body": [{"compute": "1ms"}]}]})
    assert (SCHED_DEADLINE, 0, 0, 4 * MS, 30 * MS, 40 * MS) in seen, seen
    kernel = tuple(int(x) for x in os.uname().release.split(".")[:2])
    if kernel >= (6, 12):  # the kernel reports a fair thread's slice in sched_runtime from 6.12 on
        assert any(policy == SCHED_OTHER and runtime == 7 * MS for policy, _p, _n, runtime, *_ in seen), seen
