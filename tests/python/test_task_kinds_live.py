"""Self-paced and event tasks run by rtsched run (docs/taskset.md "Task kinds"): each handler job
is released by one of tick's activations, at its time, and names tick in its RELEASE; the second
activation of each tick job finds the handler's one-place queue full and is lost (recorded on
tick's stream); the self-paced loop's jobs come at its completions, never closer than its gap;
under both backends."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import yaml

from rtsched.trace import RELEASE_BY_SHIFT, RELEASE_CAUSE_MASK, EventType, ReleaseCause, read_trace
from task_kinds_sets import events_set
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

MS = 1_000_000


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
    trace = read_trace(out / "trace.rtst")
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams}
    tick, handler, loop = (trace.events_of(streams[n]) for n in ("tick", "handler", "loop"))

    activations = tick[tick["type"] == EventType.ACTIVATE]
    assert (activations["arg0"] == 1).all()  # the handler's trace task id
    kept, lost = activations[activations["arg1"] == 1], activations[activations["arg1"] == 0]
    tick_jobs = np.unique(activations["job"])
    assert len(tick_jobs) >= 20
    for job in tick_jobs:  # per tick job: the first kept, the second lost (the queue holds one)
        assert activations["arg1"][activations["job"] == job].tolist() == [1, 0], job
    assert len(lost) == len(kept)

    releases = handler[handler["type"] == EventType.RELEASE]
    assert len(releases) >= len(kept) - 1  # the last activation may come as the run ends
    causes = releases["arg0"] & RELEASE_CAUSE_MASK
    assert (causes == ReleaseCause.ACTIVATION).all()
    assert ((releases["arg0"] >> RELEASE_BY_SHIFT) == 1).all()  # tick: trace task id 0, + 1
    assert releases["time_ns"].tolist() == kept["time_ns"][:len(releases)].tolist()

    loop_releases = loop[loop["type"] == EventType.RELEASE]
    completions = loop[loop["type"] == EventType.COMPLETE]
    assert len(loop_releases) >= 10
    assert ((loop_releases["arg0"][1:] & RELEASE_CAUSE_MASK) == ReleaseCause.COMPLETION).all()
    gaps = np.diff(loop_releases["time_ns"])
    assert (gaps >= 5 * MS).all()
    for k in range(1, len(loop_releases)):  # at its least gap, or at the completion that came later
        at, last = int(loop_releases["time_ns"][k]), int(loop_releases["time_ns"][k - 1])
        assert at == last + 5 * MS or at >= int(completions["time_ns"][k - 1]), k

    summary = json.loads((out / "summary.json").read_text())
    assert summary["activations"] == [{"task": "handler", "kept": len(kept), "lost": len(lost)}]
    assert f"handler: {len(kept) + len(lost)} activations, {len(lost)} lost" in done.stdout
    handler_row = next(t for t in summary["tasks"] if t["task"] == "handler")
    assert handler_row["jobs"] >= len(kept) - 2 and handler_row["deadline_misses"] == 0
    # tick, on top, is never preempted by the task it activates (the ult backend records every
    # preemption; it orders the woken event task by its key, from the activation)
    assert not (tick["type"] == EventType.PREEMPT).any()
