"""A reservation enforced by the kernel against one enforced by the user level, beside a competitor.

Runs examples/kernel-reservation.yaml (a 3 ms / 10 ms reservation holding CPU 1's tree, its task
"crunch" always ready) four times, 2 s each: with ``enforcement: kernel`` and ``user``, each beside
a busy loop pinned to CPU 1 that is either SCHED_OTHER or SCHED_FIFO at priority 60 (above the ult
workers' 50). Prints the share of CPU 1 the runner's threads and the competitor got over 1.5 s of
each run (from /proc/PID/task/*/schedstat). Needs root; run under ``flock /tmp/rt.lock`` with
RTSCHED_NATIVE_BIN set (docs/reservations.md, "Enforced by the kernel", has its output).

    python3 experiments/kernel_reservation_competitors.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rtsched.model import loads_taskset, to_runner_input
from rtsched.native import native_tool

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "kernel-reservation.yaml"
CPU = 1
COMPETITORS = {
    "SCHED_OTHER": "",
    "SCHED_FIFO 60": "os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(60))\n",
}


def cpu_ns(pid: int) -> int:
    """Time on a CPU of all threads of ``pid`` so far (the first field of each thread's schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except OSError:
            pass  # the thread ended
    return total


def measure(enforcement: str, competitor: str, tmp: Path) -> tuple[float, float]:
    """(runner's share, competitor's share) of CPU 1 over 1.5 s of a 2 s run."""
    text = EXAMPLE.read_text().replace("enforcement: kernel", f"enforcement: {enforcement}")
    spec = to_runner_input(loads_taskset(text), str(tmp / "trace.rtst"), duration_ns=2 * 10**9)
    (tmp / "runner.json").write_text(json.dumps(spec))
    loop = subprocess.Popen([sys.executable, "-c",
                             f"import os\nos.sched_setaffinity(0, {{{CPU}}})\n{COMPETITORS[competitor]}"
                             "while True:\n    pass\n"])
    run = subprocess.Popen([str(native_tool("rtsched-run")), str(tmp / "runner.json"), "--quiet"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.4)  # past the release
        start = (time.monotonic_ns(), cpu_ns(run.pid), cpu_ns(loop.pid))
        time.sleep(1.5)
        end = (time.monotonic_ns(), cpu_ns(run.pid), cpu_ns(loop.pid))
    finally:
        loop.kill()  # first: a competitor above the workers would keep the run from ending
        loop.wait()
    _, err = run.communicate(timeout=30)
    if run.returncode != 0:
        raise SystemExit(f"rtsched-run failed ({run.returncode}): {err}")
    wall = end[0] - start[0]
    return (end[1] - start[1]) / wall, (end[2] - start[2]) / wall


def main() -> None:
    print("enforcement  competitor      reservation's share  competitor's share   (of CPU 1; budget 0.30)")
    with tempfile.TemporaryDirectory() as tmp:
        for enforcement in ("user", "kernel"):
            for competitor in COMPETITORS:
                mine, theirs = measure(enforcement, competitor, Path(tmp))
                print(f"{enforcement:<12} {competitor:<15} {mine:>19.3f} {theirs:>19.3f}", flush=True)


if __name__ == "__main__":
    main()
