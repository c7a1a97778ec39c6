"""A reservation enforced by the kernel, live (docs/reservations.md, "Enforced by the kernel";
src/ult/kernel_reservation.c): the runner on this machine, its CPU 1 worker under SCHED_DEADLINE.

One run of 3 s: reservation "box" (3 ms every 10 ms, ``enforcement: kernel``) alone on CPU 1
holds a task that never stops computing (50 ms of work every 10 ms), and a SCHED_OTHER process
busy-loops on CPU 1 beside it. Asserted, from the kernel's own records:

- the worker's attributes (sched_getattr): SCHED_DEADLINE, runtime = the budget, deadline =
  period = the reservation's period, no flags; its affinity is CPU 1 alone, in the runner's
  exclusive cpuset;
- its CPU time (/proc/PID/task/TID/schedstat) over a window of the run is at most its budget
  per period (with a margin of 3 % of the CPU) although its task would take all of it: the user
  level keeps no budget at this level, so this is the kernel's throttling; and the rest goes to
  everything else: CPU 1 is idle at most 5 % of the window, and the SCHED_OTHER competitor gets
  more than 6 % of it (beside an unthrottled real-time worker, all SCHED_OTHER work of CPU 1
  together gets only the kernel's fair server, 5 %). The competitor's own share is not asserted
  higher: other SCHED_OTHER work of the machine shares CPU 1 with it.

Needs root and real-time scheduling (skips with its reason otherwise); run under
``flock /tmp/rt.lock`` with RTSCHED_NATIVE_BIN set.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rtsched.model import loads_taskset, to_runner_input
from rtsched.native import NativeToolMissing, native_tool
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

MS = 1_000_000
SCHED_DEADLINE = 6
SYS_SCHED_GETATTR = {"x86_64": 315}  # the ult backend runs on x86_64 only (src/ult/switch_x86_64.S)
BUDGET_NS, PERIOD_NS = 3 * MS, 10 * MS
CPU = 1

KERNEL_SET = f"""\
name: kernel-live
platform: {{scheduler: P-FP, backend: ult, cpus: [{CPU}]}}
reservations:
  - {{name: box, period: 10ms, budget: 3ms, scheduler: FP, priority: 50, partition: cpu{CPU}, enforcement: kernel}}
tasks:
  - {{name: spin, reservation: box, partition: cpu{CPU}, period: 10ms, priority: 10, body: [{{compute: 50ms}}]}}
"""

COMPETITOR = f"import os\nos.sched_setaffinity(0, {{{CPU}}})\nwhile True:\n    pass\n"


class SchedAttr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("sched_policy", ctypes.c_uint32), ("sched_flags", ctypes.c_uint64),
                ("sched_nice", ctypes.c_int32), ("sched_priority", ctypes.c_uint32),
                ("sched_runtime", ctypes.c_uint64), ("sched_deadline", ctypes.c_uint64),
                ("sched_period", ctypes.c_uint64), ("sched_util_min", ctypes.c_uint32),
                ("sched_util_max", ctypes.c_uint32)]


def sched_getattr(tid: int) -> SchedAttr | None:
    libc = ctypes.CDLL(None, use_errno=True)
    attr = SchedAttr()
    if libc.syscall(SYS_SCHED_GETATTR[platform.machine()], tid, ctypes.byref(attr), ctypes.sizeof(attr), 0) != 0:
        return None  # the thread ended
    return attr


def cpu_ns(pid: int, tid: int | None = None) -> int:
    """Time on a CPU (the first field of schedstat) of a thread, or of a process's first thread."""
    path = Path(f"/proc/{pid}/task/{tid}/schedstat") if tid else Path(f"/proc/{pid}/schedstat")
    return int(path.read_text().split()[0])


def idle_ticks(cpu: int) -> tuple[int, int]:
    """(idle + iowait, all) clock ticks of ``cpu`` so far (/proc/stat)."""
    for line in Path("/proc/stat").read_text().splitlines():
        fields = line.split()
        if fields[0] == f"cpu{cpu}":
            ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
            return ticks[3] + ticks[4], sum(ticks)
    raise AssertionError(f"cpu{cpu} not in /proc/stat")


def find_deadline_thread(pid: int, timeout_s: float) -> int | None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        for entry in Path(f"/proc/{pid}/task").iterdir():
            attr = sched_getattr(int(entry.name))
            if attr is not None and attr.sched_policy == SCHED_DEADLINE:
                return int(entry.name)
        time.sleep(0.02)
    return None


@pytest.fixture(scope="module")
def kernel_run(tmp_path_factory):
    if platform.machine() not in SYS_SCHED_GETATTR:
        pytest.skip(f"the ult backend runs on x86_64, not {platform.machine()}")
    try:
        runner = native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))
    tmp = tmp_path_factory.mktemp("kernel")
    spec = to_runner_input(loads_taskset(KERNEL_SET), str(tmp / "trace.rtst"), duration_ns=3000 * MS)
    (tmp / "runner.json").write_text(json.dumps(spec))
    competitor = subprocess.Popen([sys.executable, "-c", COMPETITOR])
    run = subprocess.Popen([str(runner), str(tmp / "runner.json"), "--quiet"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    found: dict = {}
    try:
        tid = find_deadline_thread(run.pid, timeout_s=2.0)
        if tid is not None:
            found["attr"] = sched_getattr(tid)
            found["affinity"] = os.sched_getaffinity(tid)
            found["cpuset"] = Path(f"/proc/{run.pid}/task/{tid}/cpuset").read_text().strip()
            time.sleep(0.5)  # past the release: the task computes
            start = (time.monotonic_ns(), cpu_ns(run.pid, tid), cpu_ns(competitor.pid), *idle_ticks(CPU))
            time.sleep(1.5)
            end = (time.monotonic_ns(), cpu_ns(run.pid, tid), cpu_ns(competitor.pid), *idle_ticks(CPU))
            wall = end[0] - start[0]
            found["worker_share"] = (end[1] - start[1]) / wall
            found["competitor_share"] = (end[2] - start[2]) / wall
            found["idle_share"] = (end[3] - start[3]) / (end[4] - start[4])
        out, err = run.communicate(timeout=30)
    finally:
        competitor.kill()
        competitor.wait()
        if run.poll() is None:
            run.kill()
            run.wait()
    found.update(returncode=run.returncode, stderr=err, tid=tid)
    return found


def test_the_worker_runs_under_sched_deadline_with_the_reservations_budget_and_period(kernel_run):
    assert kernel_run["returncode"] == 0, kernel_run["stderr"]
    assert kernel_run["tid"] is not None, "no SCHED_DEADLINE thread in the runner"
    attr = kernel_run["attr"]
    assert (attr.sched_policy, attr.sched_runtime, attr.sched_deadline, attr.sched_period, attr.sched_flags) == (
        SCHED_DEADLINE, BUDGET_NS, PERIOD_NS, PERIOD_NS, 0)
    assert kernel_run["affinity"] == {CPU}
    assert "rtsched-run" in kernel_run["cpuset"]  # the exclusive cpuset the runner made for it


def test_the_kernel_holds_the_subtree_to_its_budget_and_the_competitor_gets_the_rest(kernel_run):
    assert kernel_run["returncode"] == 0, kernel_run["stderr"]
    share = BUDGET_NS / PERIOD_NS
    assert kernel_run["worker_share"] <= share + 0.03, kernel_run
    assert kernel_run["worker_share"] >= share - 0.10, kernel_run  # it did get its budget: the task computes
    assert kernel_run["idle_share"] <= 0.05, kernel_run  # the rest of CPU 1 went to everything else
    assert kernel_run["competitor_share"] > 0.06, kernel_run
