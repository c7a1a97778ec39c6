"""Runs rtsched-latency and reads its JSON into histograms.

The native program does the measuring (pinned threads, absolute timers,
mlockall); this module builds its command line from a LatencyConfig, shows
its progress lines to a callback, and turns its output into one Histogram
per thread (see ``histogram``). JSON format "rtsched-latency/1": documented
in docs/measurement.md.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from rtsched.cpus import format_cpu_list
from rtsched.measure.histogram import Histogram
from rtsched.native import native_tool, start_native

POLICIES = ("other", "fifo", "deadline")


class LatencyError(RuntimeError):
    pass


@dataclass
class LatencyConfig:
    cpus: list[int]
    interval_us: int = 1000
    distance_us: int = 500
    policy: str = "fifo"
    priority: int = 99
    duration_s: float = 10.0
    loops: int | None = None  # samples per thread instead of a duration
    histogram_us: int = 20000
    timerslack_ns: int | None = None
    dma_latency_us: int = 0
    cpusets: list[str] = field(default_factory=list)

    def expected_samples(self, thread: int) -> int:
        """Samples thread ``thread`` takes: duration / its interval (or loops)."""
        if self.loops:
            return self.loops
        interval = self.interval_us + thread * self.distance_us
        return int(self.duration_s * 1e6 // interval)

    def command(self, program: str, output: str | None = None) -> list[str]:
        command = [
            program,
            "--cpus", format_cpu_list(self.cpus),
            "--interval-us", str(self.interval_us),
            "--distance-us", str(self.distance_us),
            "--policy", self.policy,
            "--histogram-us", str(self.histogram_us),
            "--dma-latency-us", str(self.dma_latency_us),
            "--progress",
        ]
        if self.policy == "fifo":
            command += ["--priority", str(self.priority)]
        if self.loops:
            command += ["--loops", str(self.loops), "--duration", "0"]
        else:
            command += ["--duration", repr(float(self.duration_s))]
        if self.timerslack_ns is not None:
            command += ["--timerslack-ns", str(self.timerslack_ns)]
        for cpuset in self.cpusets:
            command += ["--cpuset", cpuset]
        if output:
            command += ["--output", output]
        return command


@dataclass
class LatencyRun:
    config: LatencyConfig
    command: list[str]
    raw: dict
    histograms: list[Histogram]  # one per thread, in CPU order

    def thread(self, cpu: int) -> dict:
        for t in self.raw["threads"]:
            if t["cpu"] == cpu:
                return t
        raise KeyError(cpu)


def histogram_of_thread(thread: dict, label: str = "") -> Histogram:
    samples = thread["samples"]
    return Histogram(
        buckets=list(thread["histogram"]),
        overflows=thread["overflows"],
        min_us=thread["min_ns"] / 1000 if thread["min_ns"] is not None else None,
        max_us=thread["max_ns"] / 1000 if thread["max_ns"] is not None else None,
        sum_us=thread["sum_ns"] / 1000 if samples else None,
        label=label or f"CPU {thread['cpu']}",
    )


def parse_latency_json(text: str) -> dict:
    data = json.loads(text)
    if data.get("format") != "rtsched-latency/1":
        raise LatencyError(f"unexpected output format {data.get('format')!r}")
    return data


ProgressCallback = Callable[[float, int, float], None]  # elapsed s, samples, max us


def run_latency(
    config: LatencyConfig,
    on_progress: ProgressCallback | None = None,
    label: str = "",
) -> LatencyRun:
    """Run rtsched-latency once; raises LatencyError with its message when it fails."""
    fd, output = tempfile.mkstemp(prefix="rtsched-latency-", suffix=".json")
    os.close(fd)
    command = config.command(str(native_tool("rtsched-latency")), output)
    try:
        process = start_native("rtsched-latency", command[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        messages: list[str] = []

        def read_stderr() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                words = line.split()
                if len(words) == 4 and words[0] == "progress":
                    if on_progress:
                        on_progress(int(words[1]) / 1e9, int(words[2]), int(words[3]) / 1000)
                else:
                    messages.append(line.rstrip())

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        bound = (config.loops * (config.interval_us + len(config.cpus) * config.distance_us) / 1e6
                 if config.loops else config.duration_s)
        try:
            process.wait(timeout=bound + 30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise LatencyError("rtsched-latency did not finish in time") from None
        except KeyboardInterrupt:
            process.send_signal(signal.SIGINT)  # it stops and still writes its result
            process.wait(timeout=10)
            raise
        reader.join(timeout=5)
        text = Path(output).read_text()
        if process.returncode != 0:
            detail = "; ".join(m for m in messages if m) or f"exit code {process.returncode}"
            raise LatencyError(detail)
    finally:
        Path(output).unlink(missing_ok=True)
    raw = parse_latency_json(text)
    histograms = [histogram_of_thread(t, f"{label} CPU {t['cpu']}".strip()) for t in raw["threads"]]
    return LatencyRun(config=config, command=command, raw=raw, histograms=histograms)
