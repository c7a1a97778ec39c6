"""`rtsched run` puts best-effort threads in the cpu cgroups their tasks name (docs/taskset.md "Taskgroups"),
as the kernel reports them in /proc/TID/cgroup while the run goes on, moves them where a `taskgroup`
action stands, and removes the folders it made once the run is over."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from child_threads import child_threads
from test_run_live import _rt_available

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))


def cpu_controller_mount() -> Path | None:
    """The cgroup v1 cpu controller's mount, as rt-app and the runner find it."""
    for line in Path("/proc/mounts").read_text().splitlines():
        _dev, mount, kind, options, *_ = line.split()
        if kind == "cgroup" and "cpu" in options.split(","):
            return Path(mount)
    return None


def cpu_cgroup(task: Path) -> str | None:
    """The cpu controller's cgroup of /proc/PID/task/TID, None when it is gone."""
    try:
        for line in (task / "cgroup").read_text().splitlines():
            _id, controllers, path = line.split(":", 2)
            if "cpu" in controllers.split(","):
                return path
    except OSError:
        return None
    return None


def test_threads_are_in_their_taskgroups_and_the_folders_go_after(tmp_path):
    mount = cpu_controller_mount()
    if mount is None:
        pytest.skip("no cgroup v1 cpu controller is mounted here (cgroup v2 only)")
    root = f"/rtsched-test-tg-{time.monotonic_ns()}"
    data = {"name": "taskgroups", "duration": "400ms", "platform": {"scheduler": "P-FP", "cpus": [1]},
            "tasks": [
                {"name": "a", "policy": "other", "kind": "self-paced", "period": "10ms", "taskgroup": f"{root}/a",
                 "body": [{"compute": "1ms"}, {"taskgroup": "/"}, {"compute": "1ms"}, {"taskgroup": f"{root}/a"}]},
                {"name": "b", "policy": "batch", "kind": "self-paced", "period": "10ms", "taskgroup": f"{root}/b",
                 "body": [{"compute": "1ms"}]}]}
    path = tmp_path / "set.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    run = subprocess.Popen([sys.executable, "-m", "rtsched.cli.main", "run", "--no-plots", "--ideal", "--out",
                            str(tmp_path / "out"), str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    seen: set[str] = set()
    while run.poll() is None:
        for task in child_threads(run.pid):
            group = cpu_cgroup(task)
            if group is not None:
                seen.add(group)
        time.sleep(0.002)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stdout + stderr
    assert {f"{root}/a", f"{root}/b", "/"} <= seen, seen
    assert not (mount / root.lstrip("/")).exists()  # the runner removed what it made
