"""``rtsched run`` of a PREM set (docs/prem.md): real threads, real gating.

CPU 1 holds two PREM tasks: `lo`'s 3 ms interval begins at each of its releases, and `hi`
(higher priority) is released 1 ms into it, so a preemptive schedule would run `hi` at once.
CPU 0 holds a low-priority peripheral that writes over 8 MiB for 2 ms of every 5 ms. The trace
must show that no event of `hi` falls inside an interval of `lo` (never preempted), that every
interval lasts its length (padded, none overran; a rare few stretched by the kernel or the host,
from outside the set), and that the peripheral's run spans never
overlap a memory phase (the gate). Only orders and counts are asserted, plus the padding's
own bound: an interval ends at the first clock reading past its length.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rtsched.model import load_taskset
from rtsched.report.prem import gate_spans, memory_phases, overlapping_spans, prem_intervals
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stolen_cpu import skip_if_stolen  # noqa: E402
from test_run_live import _rt_available  # noqa: E402

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

DURATION_NS = 1_000_000_000  # the set's duration
LENGTHS_NS = {0: 3_000_000, 1: 1_500_000}  # lo's and hi's interval lengths, by body index of each
COMPUTE_NS = {"lo": 2_000_000, "hi": 1_000_000}  # their work's CPU time
#: The busy-wait reads the clock until past the end, then stamps PREM_END: an interrupt in
#: between is all that can stretch an interval beyond its length.
STAMP_SLACK_NS = 200_000
SET = """\
name: run-test-prem
duration: 1s
platform: {scheduler: P-FP, cpus: [0, 1]}
tasks:
  - name: lo
    period: 20ms
    priority: 95
    partition: cpu1
    body:
      - prem: {buffers: [256KiB], compute: 2ms, length: 3ms}
  - name: hi
    period: 20ms
    offset: 1ms
    priority: 96
    partition: cpu1
    body:
      - prem: {buffers: [128KiB, 64KiB], compute: 1ms, length: 1500us, access: random}
  - name: dma
    period: 5ms
    priority: 10
    partition: cpu0
    peripheral: {buffer: 8MiB}
    body:
      - compute: 2ms
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("prem")
    spec = folder / "prem.yaml"
    spec.write_text(SET)
    out = folder / "out"
    for _attempt in range(10):
        done = subprocess.run(
            [sys.executable, "-m", "rtsched.cli.main", "run", str(spec), "--out", str(out), "--json", "--no-plots"],
            capture_output=True, text=True, timeout=90)
        if "another rtsched-run" in done.stderr:  # one rtsched-run per machine at a time
            time.sleep(2)
            continue
        break
    assert done.returncode == 0, done.stderr
    return load_taskset(spec), read_trace(out / "trace.rtst"), json.loads((out / "summary.json").read_text())


def skip_if_cpu1_stolen(summary: dict, what: str) -> None:
    """The intervals are wall-clock lengths around CPU-time work: the host's steal of CPU 1 (in the
    trace's time, not in the thread's CPU time) stretches them and delays the releases within."""
    skip_if_stolen({"steal_ns": {"1": (summary.get("steal_ns") or {}).get("1", 0)}}, DURATION_NS, what)


def skip_if_overruns_stolen(task: str, rows: np.ndarray, lengths_ns: np.ndarray) -> None:
    """Skips when each interval whose work overran its length lost at least that overrun inside
    its work: the work is CPU time (the task's compute), measured from PREM_EXEC to when it was
    done (the interval's end less its padding), so the wall time beyond the compute is time the
    thread did not run: the host's steal (which the guest keeps out of CPU time on this VM), or
    the kernel's (counted as the interval's involuntary switches). To the nanosecond, where
    /proc/stat's steal moves in 10 ms ticks."""
    overran = rows["padding"] <= 0
    worked_ns = rows["start"] + lengths_ns - rows["padding"] - rows["execution"]
    lost_ns = worked_ns - COMPUTE_NS[task]
    if not overran.any() or (lost_ns[overran] < -rows["padding"][overran]).any():
        return
    figures = "; ".join(f"{-p / 1e3:.0f} us over, {lost / 1e3:.0f} us lost, {s} switches"
                        for p, lost, s in zip(rows["padding"][overran], lost_ns[overran], rows["switches"][overran]))
    pytest.skip(f"{task}: each of its {int(overran.sum())} intervals whose work overran its length lost at least "
                f"that much of its work's wall time off the CPU: {figures}")


def test_an_interval_is_never_preempted_by_a_higher_priority_release(run):
    _, trace, summary = run
    lo = prem_intervals(trace, "lo")
    assert len(lo) >= 40
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams}
    hi = trace.events_of(streams["hi"])
    ran = hi[hi["type"] != EV.RELEASE]  # RELEASE carries the nominal release time, not when it ran
    inside = [(int(a), int(b)) for a, b in zip(lo["start"], lo["end"])
              if ((ran["time_ns"] > a) & (ran["time_ns"] < b)).any()]
    assert inside == []
    # hi was released inside lo's intervals (1 ms in) and started only after them
    releases = hi[hi["type"] == EV.RELEASE]["time_ns"]
    waited = sum(bool(((releases > a) & (releases < b)).any()) for a, b in zip(lo["start"], lo["end"]))
    if waited < len(lo) - 2:
        skip_if_cpu1_stolen(summary, f"hi was released inside {waited} of lo's {len(lo)} intervals")
    assert waited >= len(lo) - 2


def test_every_interval_lasts_its_length_padded(run):
    _, trace, summary = run
    for task in ("lo", "hi"):
        rows = prem_intervals(trace, task)
        assert len(rows) >= 40, task
        lengths = np.array([LENGTHS_NS[int(i) if task == "lo" else 1] for i in rows["index"]])
        excess = rows["end"] - rows["start"] - lengths
        assert (excess >= 0).all(), task
        # Outside the set, the kernel may still take the CPU (its fair server runs starved SCHED_OTHER
        # threads ahead of real-time ones, counted as involuntary switches) or the host may: rare.
        stretched = rows[excess > STAMP_SLACK_NS]
        unpadded = int((rows["padding"] <= 0).sum())
        if len(stretched) > max(2, len(rows) // 20) or unpadded:
            if len(stretched) <= max(2, len(rows) // 20):
                skip_if_overruns_stolen(task, rows, lengths)
            skip_if_cpu1_stolen(summary, f"{task}: {len(stretched)} of {len(rows)} intervals stretched, "
                                f"{unpadded} whose work overran their length")
        assert len(stretched) <= max(2, len(rows) // 20), (task, stretched.tolist())
        assert (rows["padding"] > 0).all(), task  # the work fit: padding made the length, not the work
        assert (rows["memory"] <= rows["execution"]).all() and (rows["execution"] <= rows["end"]).all()
    assert {p["name"]: p["overruns"] for p in summary["prem"]} == {"lo": 0, "hi": 0}


def test_the_peripheral_never_runs_during_a_memory_phase(run):
    taskset, trace, summary = run
    spans = gate_spans(trace, "dma")
    phases = memory_phases(trace, taskset)
    assert len(spans) >= 100 and len(phases) >= 80
    assert overlapping_spans(spans, phases) == 0
    # the same in trace order: at each memory phase's start the peripheral is outside any run span
    for begin, end in phases.tolist():
        opened = spans[(spans[:, 0] < end) & (spans[:, 1] > begin)]
        assert len(opened) == 0, (begin, end, opened.tolist())
    (dma,) = summary["peripherals"]
    assert dma["overlapping"] == 0 and dma["held"] > 0  # the gate did hold it back
    # a phase goes on without the peripheral only if it was descheduled inside its span: rare
    forced = sum(p["forced"] for p in summary["prem"])
    if forced > max(2, len(phases) // 20):
        # descheduled inside its span: the host's steal of CPU 0 (14 of 87 in a fresh-clone CI here)
        skip_if_stolen(summary, DURATION_NS, f"{forced} of {len(phases)} memory phases went on without the "
                       "peripheral")
    assert forced <= max(2, len(phases) // 20)
