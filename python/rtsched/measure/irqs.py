"""Device interrupts per CPU, from /proc/interrupts.

Device IRQs are the numbered lines; the named ones (LOC, RES, CAL, ...) are
per-CPU architecture interrupts that every CPU takes and no affinity moves.
The local timer (the scheduler tick and the CPU's hrtimers) is the ``LOC``
line on x86 and the numbered ``arch_timer`` line on arm64: counting it over a
measurement shows whether the tick ran on the measured CPU (``nohz_full``
stops it while one task runs there).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

PROC_INTERRUPTS = Path("/proc/interrupts")


@dataclass
class IrqLine:
    irq: str
    counts: list[int]  # per CPU column
    name: str

    @property
    def is_device(self) -> bool:
        return self.irq.isdigit()


def parse_interrupts(text: str) -> tuple[list[int], list[IrqLine]]:
    """(CPU numbers of the columns, lines) of a /proc/interrupts text."""
    rows = text.splitlines()
    if not rows:
        return [], []
    cpus = [int(word[3:]) for word in rows[0].split() if word.startswith("CPU")]
    lines: list[IrqLine] = []
    for row in rows[1:]:
        head, _, rest = row.partition(":")
        words = rest.split()
        counts: list[int] = []
        for word in words[: len(cpus)]:
            if not word.isdigit():
                break
            counts.append(int(word))
        if not counts:
            continue
        counts += [0] * (len(cpus) - len(counts))
        lines.append(IrqLine(head.strip(), counts, " ".join(words[len(cpus):])))
    return cpus, lines


def device_irq_counts(text: str | None = None) -> dict[int, int]:
    """Total device interrupts taken per CPU since boot."""
    cpus, lines = parse_interrupts(text if text is not None else PROC_INTERRUPTS.read_text())
    totals = {cpu: 0 for cpu in cpus}
    for line in lines:
        if line.is_device:
            for cpu, count in zip(cpus, line.counts):
                totals[cpu] += count
    return totals


def device_irq_rates(seconds: float = 0.5) -> dict[int, int]:
    """Device interrupts per CPU during the next ``seconds``."""
    before = device_irq_counts()
    time.sleep(seconds)
    after = device_irq_counts()
    return {cpu: after[cpu] - before.get(cpu, 0) for cpu in after}


def _is_local_timer(line: IrqLine) -> bool:
    return line.irq == "LOC" or (line.is_device and line.name.endswith("arch_timer"))


def local_timer_counts(text: str | None = None) -> dict[int, int] | None:
    """Local timer interrupts per CPU since boot; None when the text has no local timer line."""
    cpus, lines = parse_interrupts(text if text is not None else PROC_INTERRUPTS.read_text())
    timer = next((line for line in lines if _is_local_timer(line)), None)
    return None if timer is None else dict(zip(cpus, timer.counts))


class LocalTimerWindow:
    """The local timer interrupts each of ``cpus`` took between entering and leaving::

        with LocalTimerWindow([1]) as ticks:
            measure()
        ticks.counts  # {1: 251}; None when the kernel shows no local timer line
    """

    def __init__(self, cpus: list[int]):
        self.cpus = sorted(set(cpus))
        self.counts: dict[int, int] | None = None
        self._before: dict[int, int] | None = None

    def __enter__(self) -> LocalTimerWindow:
        self._before = local_timer_counts()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        after = local_timer_counts()
        if self._before is not None and after is not None:
            self.counts = {cpu: after[cpu] - self._before[cpu] for cpu in self.cpus
                           if cpu in after and cpu in self._before}

    def as_json(self) -> dict[str, int] | None:
        """The counts keyed by CPU number as text (JSON object keys), or None."""
        return None if self.counts is None else {str(cpu): n for cpu, n in self.counts.items()}
