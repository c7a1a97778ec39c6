"""A live run with a real-time hog started on the task's CPU: the jobs it delays are reported
above their bound with the hog as the cause (issue 13 item 5). Needs root (SCHED_FIFO, tracefs).

The hog is a SCHED_FIFO thread above the task, on the task's CPU, busy 4 ms in every ~37 ms
until the run has returned (it is then killed): it takes about 11% of that CPU, never the whole
CPU (the other CPU stays free). 37 ms against the task's 10 ms period moves the burst 7 ms on
in each period, through every phase, so some bursts cover a release (with 40 ms the phase
barely moves in a run, and may never do).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rtsched.measure.kernel_recorder import KernelSchedError, tracefs_root
from rtsched.model import loads_taskset
from rtsched.report.excess import DISTURBED, MOSTLY_DISTURBED
from rtsched.pipeline.run_set import RunOptions, run_taskset

from stolen_cpu import skip_if_stolen
from test_run_live import _rt_available

HOG = """
import os, time
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(80))
end = time.monotonic() + 60  # a bound in case the test dies before it kills the hog
while time.monotonic() < end:
    burst = time.monotonic() + 0.004
    while time.monotonic() < burst:
        pass
    time.sleep(0.033)
"""

DURATION_NS = 2_000_000_000  # the set's duration
SET = """
name: hogged
duration: 2s
platform: {{scheduler: P-FP, cpus: [{cpu}]}}
tasks:
  - name: victim
    period: 10ms
    priority: 20
    partition: cpu{cpu}
    body: [{{compute: 1ms}}]
"""


def _why_not() -> str | None:
    reason = _rt_available()
    if reason:
        return reason
    try:
        if not os.access(tracefs_root() / "instances", os.W_OK):
            return "needs write access to tracefs"
    except KernelSchedError as error:
        return str(error)
    return None


@pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))
def test_a_real_time_hog_on_the_cpu_is_named_as_the_cause(tmp_path):
    cpu = max(os.sched_getaffinity(0))
    taskset = loads_taskset(SET.format(cpu=cpu), "yaml")
    hog = subprocess.Popen([sys.executable, "-c", HOG.format(cpu={cpu})])
    try:
        result = run_taskset(taskset, RunOptions(out_dir=tmp_path, plots=False, progress=False))
    finally:
        hog.kill()
        hog.wait(timeout=30)
    report = result.report
    assert report is not None and result.explain_note is None
    # The bound is 1 ms (alone on its CPU); jobs released while the hog runs take up to 5 ms.
    assert report.stats[0].bound_ns == 1_000_000
    # Every job's own overheads (tens of us) put it a little above the ideal 1 ms; the hog's bursts
    # put some far above (up to its 4 ms burst). Each of those is explained by what ran outside the
    # set; where the hog ran in the window it is named and covers most of the excess (the rest: the
    # job's own overheads, which make it "mostly" disturbed). On a loaded machine a job may also be
    # pushed far by other threads (the kernel's fair server running SCHED_OTHER ones ahead, kernel
    # threads): still explained, by those.
    # A job whose own CPU time went half its excess or more beyond its WCET was not pushed from outside:
    # the report calls its bound broken, rightly (the WCET did not hold for it; a fresh-clone CI here:
    # 2.05 ms of CPU time for a 1 ms compute, with 1.4 us of steal seen: cause not found). Those are
    # left out here; the report's verdict for them is test_report_excess's.
    far = [e for e in report.excess if e.excess_ns > 1_000_000 and 2 * e.beyond_wcet_ns < e.excess_ns]
    assert far, [(e.excess_ns, e.cause) for e in report.excess][:5]
    for e in far:
        if e.verdict not in (DISTURBED, MOSTLY_DISTURBED):
            # the host's steal is not all in one measure: a fresh-clone CI here saw it as the job's
            # own CPU time beyond its WCET (0.6-1.3 ms) while the host took 6-72 % of a CPU
            skip_if_stolen(result.summary, DURATION_NS, e.cause)
        assert e.verdict in (DISTURBED, MOSTLY_DISTURBED), e.cause
    by_hog = [(e, ns) for e in far for _, pid, ns in e.others_rt if pid == hog.pid]
    assert by_hog, [e.cause for e in far][:5]
    for e, hog_ns in by_hog:
        assert "real-time threads outside the set ran" in e.cause and f"[{hog.pid}]" in e.cause
        if len(e.others_rt) == 1 and "SCHED_OTHER" not in e.cause:
            # with the hog, a wake-up's latency once it had stopped (a CI run: the CPU idle
            # 2.19 ms between the job's release and its start, after the hog's 4.18 ms), and the
            # host's steal while the victim held its CPU (here: 0.50 ms of a 1.52 ms stretch in
            # which the job consumed 1.01 ms), named too
            late = e.late_start_ns or 0
            if hog_ns + late + e.stolen_ns <= 0.9 * e.excess_ns:
                # the job's own CPU time beyond its WCET (a fresh-clone CI here: 1.27 ms of a 7.48 ms
                # excess, beside 0.16 ms of steal seen while it held its CPU) while the host took a
                # share of the run's CPUs: what the host took is not all in any one measure
                skip_if_stolen(result.summary, DURATION_NS, e.cause)
            assert hog_ns + late + e.stolen_ns > 0.9 * e.excess_ns, e.cause
            assert not late or "the wake-up's latency" in e.cause, e.cause
