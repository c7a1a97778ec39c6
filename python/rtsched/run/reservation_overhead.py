"""The reservation hierarchy's overhead as ``rtsched-run`` reports it (docs/reservations.md, "Overhead").

At the end of a run the runner prints, per CPU whose scheduler has
reservations, the time that scheduler spent on its decisions and, of that,
on the budget controller, measured with CLOCK_MONOTONIC timestamps around
each (``rts_reservation_overhead``; tools/run/main.c):

    reservations on CPU 0: 6786 decisions, 2.996 ms (0.0150% of the run); controller: 148 runs, 0.421 ms (0.0021%)

    overheads = parse_reservation_overhead(outcome.stdout, run_ns=duration_ns)
    overheads[0].decision_share      # decision time over the run's length

The times are printed in ms with three decimals, so they are read to the
microsecond. This is what the runner knows of itself (its scheduler's own
time), not something a trace shows: another trace producer (the simulator)
has none, and its summary has no ``reservation_overhead``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["ReservationOverhead", "RunnerOutputError", "parse_reservation_overhead", "overhead_line"]

_LINE = re.compile(
    r"reservations on CPU (?P<cpu>\d+): (?P<decisions>\d+) decisions, (?P<decision_ms>\d+\.\d+) ms "
    r"\([0-9.]+% of the run\); controller: (?P<controls>\d+) runs, (?P<control_ms>\d+\.\d+) ms \([0-9.]+%\)"
)
_PREFIX = "reservations on CPU "


class RunnerOutputError(ValueError):
    """A line of the runner's output that starts as an overhead line but does not read as one."""


@dataclass(frozen=True, slots=True)
class ReservationOverhead:
    """One CPU's reservation scheduler over a run of ``run_ns``: ``decisions`` taking
    ``decision_ns`` in all, of which the controller's ``controls`` runs and its sampling took
    ``control_ns`` (so control_ns ≤ decision_ns)."""

    cpu: int
    decisions: int
    decision_ns: int
    controls: int
    control_ns: int
    run_ns: int

    @property
    def decision_share(self) -> float:
        """The hierarchy's time (the controller's included) over the run's length."""
        return self.decision_ns / self.run_ns if self.run_ns else 0.0

    @property
    def control_share(self) -> float:
        return self.control_ns / self.run_ns if self.run_ns else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "decision_share": self.decision_share, "control_share": self.control_share}


def _ns(ms: str) -> int:
    whole, _, frac = ms.partition(".")
    return int(whole) * 1_000_000 + int((frac + "000000")[:6])


def parse_reservation_overhead(stdout: str, run_ns: int) -> tuple[ReservationOverhead, ...]:
    """Every overhead line of the runner's standard output, by CPU as printed (none for a run
    without reservations). Raises RunnerOutputError for a line that begins like one and is not."""
    out = []
    for line in stdout.splitlines():
        if not line.startswith(_PREFIX):
            continue
        m = _LINE.fullmatch(line.strip())
        if m is None:
            raise RunnerOutputError(f"rtsched-run's overhead line is not in the expected format: {line!r}")
        out.append(ReservationOverhead(cpu=int(m["cpu"]), decisions=int(m["decisions"]),
                                       decision_ns=_ns(m["decision_ms"]), controls=int(m["controls"]),
                                       control_ns=_ns(m["control_ms"]), run_ns=run_ns))
    return tuple(out)


def overhead_line(o: dict[str, Any]) -> str:
    """The report's line for one CPU, from its summary form (``ReservationOverhead.as_dict``)."""
    return (f"reservation overhead on CPU {o['cpu']}: {o['decisions']} decisions, {o['decision_ns'] / 1e6:.3f} ms "
            f"({100 * o['decision_share']:.4f}% of the run); controller: {o['controls']} runs, "
            f"{o['control_ns'] / 1e6:.3f} ms ({100 * o['control_share']:.4f}%)")
