"""cyclictest (Debian rt-tests), run with the parameters of an rtsched latency
measurement and parsed into the same histograms.

cyclictest's ``-h`` histogram forces the thread distance to 0 ("distance is
ignored and set to 0, if histogram enabled"), so a comparison runs both tools
with distance 0. The number of samples is fixed with ``-l`` (loops per
thread) rather than ``-D``, which takes whole seconds only.

Its histogram output: one line per bucket ("000012 000345 000301": us, then
one count per thread), then "# Total:" (samples inside the histogram, per
thread), "# Min/Avg/Max Latencies:" (whole us) and "# Histogram Overflows:".
"""

from __future__ import annotations

import shutil
import subprocess

from rtsched.cpus import format_cpu_list
from rtsched.measure.histogram import Histogram


class CyclictestError(RuntimeError):
    pass


def find_cyclictest() -> str | None:
    return shutil.which("cyclictest")


def cyclictest_command(
    cpus: list[int],
    interval_us: int,
    loops: int,
    policy: str,
    priority: int,
    histogram_us: int,
    program: str = "cyclictest",
) -> list[str]:
    """``cyclictest -m -q -a CPUS -t N -i INTERVAL -d 0 -l LOOPS -h MAX`` plus the policy."""
    command = [
        program, "-m", "-q",
        "-a", format_cpu_list(cpus), "-t", str(len(cpus)),
        "-i", str(interval_us), "-d", "0",
        "-l", str(loops),
        "-h", str(histogram_us),
    ]
    if policy == "fifo":
        command += ["-p", str(priority)]
    elif policy == "other":
        command += ["--policy", "other"]
    else:
        raise CyclictestError(f"cyclictest comparison supports policies other and fifo, not {policy}")
    return command


def _numbers(line: str) -> list[int]:
    return [int(word) for word in line.split(":", 1)[1].split()]


def parse_cyclictest_histogram(text: str, cpus: list[int]) -> list[Histogram]:
    """One Histogram per thread (in thread order) from cyclictest -h output."""
    nthreads = len(cpus)
    rows: list[list[int]] = []
    totals = mins = avgs = maxs = overflows = None
    for line in text.splitlines():
        if line[:1].isdigit():
            words = line.split()
            if len(words) < 1 + nthreads:
                raise CyclictestError(f"histogram line with fewer than {nthreads} counts: {line!r}")
            rows.append([int(w) for w in words[: 1 + nthreads]])
        elif line.startswith("# Total:"):
            totals = _numbers(line)
        elif line.startswith("# Min Latencies:"):
            mins = _numbers(line)
        elif line.startswith("# Avg Latencies:"):
            avgs = _numbers(line)
        elif line.startswith("# Max Latencies:"):
            maxs = _numbers(line)
        elif line.startswith("# Histogram Overflows:"):
            overflows = _numbers(line)
    if not rows or totals is None or overflows is None:
        raise CyclictestError("no histogram in cyclictest's output")
    size = max(row[0] for row in rows) + 1
    histograms = []
    for t in range(nthreads):
        buckets = [0] * size
        for row in rows:
            buckets[row[0]] = row[1 + t]
        while buckets and buckets[-1] == 0:
            buckets.pop()
        h = Histogram(buckets=buckets, overflows=overflows[t], label=f"cyclictest CPU {cpus[t]}")
        # Whole microseconds, as cyclictest prints them.
        if mins is not None:
            h.min_us = float(mins[t])
        if maxs is not None:
            h.max_us = float(maxs[t])
        if avgs is not None:
            h.sum_us = float(avgs[t]) * h.samples
        h.extra = {"reported_total": totals[t]}
        histograms.append(h)
    return histograms


def run_cyclictest(
    cpus: list[int],
    interval_us: int,
    loops: int,
    policy: str,
    priority: int,
    histogram_us: int,
    timeout_s: float,
) -> tuple[list[str], list[Histogram]]:
    program = find_cyclictest()
    if program is None:
        raise CyclictestError("cyclictest not found (Debian: apt-get install rt-tests)")
    command = cyclictest_command(cpus, interval_us, loops, policy, priority, histogram_us, program)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as error:
        raise CyclictestError(f"cyclictest did not finish within {timeout_s:.0f} s") from error
    if done.returncode != 0:
        raise CyclictestError(f"cyclictest failed ({done.returncode}): {done.stderr.strip()[:300]}")
    return command, parse_cyclictest_histogram(done.stdout, cpus)
