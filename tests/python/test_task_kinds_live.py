"""Self-paced and event tasks run by rtsched run (docs/taskset.md "Task kinds"): each handler job
is released by one of tick's activations, at its time, and names tick in its RELEASE; the second
activation of each tick job finds the handler's one-place queue full and is lost (recorded on
tick's stream); the self-paced loop's jobs come at its completions, never closer than its gap;
under both backends."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from rtsched.trace import EventType
from task_kinds_sets import check_kinds_output, events_set
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))


@pytest.mark.parametrize("backend", ["threads", "ult"])
def test_event_and_self_paced_tasks_run_as_their_kinds_say(tmp_path, backend):
    data = events_set()
    data["platform"]["backend"] = backend
    path = tmp_path / "events.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--ideal", "--out",
                           str(out), str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    tick = check_kinds_output(out, done.stdout)
    # tick, on top, is never preempted by the task it activates (the ult backend records every
    # preemption; it orders the woken event task by its key, from the activation)
    assert not (tick["type"] == EventType.PREEMPT).any()
