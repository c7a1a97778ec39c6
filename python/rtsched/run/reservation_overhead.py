"""The reservation hierarchy's overhead as ``rtsched-run`` reports it (docs/reservations.md, "Overhead").

At the end of a run the runner reports, per CPU whose scheduler has
reservations, the time that scheduler spent on its decisions and, of that,
on the budget controller, measured with CLOCK_MONOTONIC timestamps around
each (``rts_reservation_overhead``). ``rtsched run`` starts it with
``--json``, and it prints its figures as one JSON object in ns
(tools/run/main.c ``print_figures_json``; docs/run.md, "The runner's figures"):

    overheads = reservation_overhead(outcome.figures, run_ns=duration_ns)
    overheads[0].decision_share      # decision time over the run's length

This is what the runner knows of itself (its scheduler's own time), not
something a trace shows: another trace producer (the simulator) has none,
and its summary has no ``reservation_overhead``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rtsched.run.runner import RunnerOutputError

__all__ = ["ReservationOverhead", "reservation_overhead", "overhead_line"]


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


def reservation_overhead(figures: dict[str, Any], run_ns: int) -> tuple[ReservationOverhead, ...]:
    """Each CPU's reservation overhead in the runner's ``figures``, by CPU as the runner
    listed them (none for a run without reservations)."""
    try:
        return tuple(ReservationOverhead(cpu=o["cpu"], decisions=o["decisions"], decision_ns=o["decision_ns"],
                                         controls=o["controls"], control_ns=o["control_ns"], run_ns=run_ns)
                     for o in figures.get("reservation_overhead", ()))
    except (KeyError, TypeError) as error:
        raise RunnerOutputError(f"rtsched-run's reservation_overhead figures lack {error}") from None


def overhead_line(o: dict[str, Any]) -> str:
    """The report's line for one CPU, from its summary form (``ReservationOverhead.as_dict``)."""
    return (f"reservation overhead on CPU {o['cpu']}: {o['decisions']} decisions, {o['decision_ns'] / 1e6:.3f} ms "
            f"({100 * o['decision_share']:.4f}% of the run); controller: {o['controls']} runs, "
            f"{o['control_ns'] / 1e6:.3f} ms ({100 * o['control_share']:.4f}%)")
