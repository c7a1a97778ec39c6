"""The affinity action run by rtsched run (threads backend; docs/taskset.md "Changing CPUs"): the kernel
reports the thread's allowed CPUs (/proc/PID/task/TID/status, Cpus_allowed_list) as each affinity sets them
while the run goes on, and the events after an affinity are recorded on its CPU. rt-app's example8.json,
whose thread needs CPU 2, is refused on a machine without it, as rt-app refuses it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from rtsched.trace import EventType, read_trace
from child_threads import child_threads
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))
needs_two_cpus = pytest.mark.skipif(not {0, 1} <= os.sched_getaffinity(0), reason="needs CPUs 0 and 1")

SET = {
    "name": "hop", "duration": "400ms",
    "platform": {"scheduler": "P-FP"},
    "tasks": [
        {"name": "hop", "policy": "other", "kind": "self-paced", "period": "70ms", "max_jobs": 4,
         "body": [{"affinity": [0]}, {"compute": "1ms"}, {"sleep": "30ms"},
                  {"affinity": [1]}, {"compute": "1ms"}, {"sleep": "30ms"}]},
    ],
}


#: rt-app's doc/examples/tutorial/example8.json, its own settings (logs, ftrace, calibration) left out
EXAMPLE8 = {"tasks": {"thread0": {"cpus": [2], "phases": {
    "phase1": {"cpus": [0], "loop": 1, "run": 1500},
    "phase2": {"cpus": [1], "loop": 1, "run": 1500},
    "phase3": {"loop": 1, "run": 1500}}}},
    "global": {"duration": 2, "default_policy": "SCHED_OTHER", "pi_enabled": False}}


def _allowed_cpus(parent: int) -> dict[int, set[str]]:
    """TID -> the Cpus_allowed_list values seen, for every thread of the children of ``parent``."""
    seen: dict[int, set[str]] = {}
    for task in child_threads(parent):
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith("Cpus_allowed_list:"):
                    seen.setdefault(int(task.name), set()).add(line.split()[1])
        except OSError:
            continue
    return seen


@needs_two_cpus
def test_the_kernel_moves_the_thread_at_each_affinity_and_the_events_follow(tmp_path):
    path = tmp_path / "hop.yaml"
    path.write_text(yaml.safe_dump(SET, sort_keys=False))
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--ideal", "--out",
                            str(out), str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: dict[int, set[str]] = {}
    while run.poll() is None:
        for tid, lists in _allowed_cpus(run.pid).items():
            seen.setdefault(tid, set()).update(lists)
        time.sleep(0.002)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stdout + stderr

    trace = read_trace(out / "trace.rtst")
    (stream,) = [s for s in trace.streams if s["name"] == "hop"]
    assert {"0", "1"} <= seen.get(int(stream["tid"]), set()), seen  # each sleep shows one CPU allowed
    events = trace.events_of(int(stream["stream_id"]))
    completes = events[events["type"] == EventType.COMPLETE]
    assert len(completes) == 4
    assert set(completes["cpu"].tolist()) == {1}  # after affinity [1]
    starts = events[events["type"] == EventType.START]
    assert set(starts["cpu"][1:].tolist()) == {1}  # the next job starts where the last one left it


@pytest.mark.skipif(2 in os.sched_getaffinity(0), reason="this machine has CPU 2: rt-app runs example8 here")
def test_rt_apps_example8_is_refused_on_a_machine_without_cpu_2(tmp_path):
    path = tmp_path / "example8.json"
    path.write_text(json.dumps(EXAMPLE8))
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--out",
                           str(tmp_path / "out"), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert 'tasks[0].body[4].affinity: task "thread0": CPU 2 does not exist on this machine' in done.stderr
    assert not (tmp_path / "out" / "trace.rtst").exists()  # refused before anything ran, as rt-app refuses
