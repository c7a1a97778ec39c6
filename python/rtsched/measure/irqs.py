"""Device interrupts per CPU, from /proc/interrupts.

Device IRQs are the numbered lines; the named ones (LOC, RES, CAL, ...) are
per-CPU architecture interrupts that every CPU takes and no affinity moves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

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
