"""Budget consumed per reservation (docs/reservations.md), from its trace stream's
RESERVATION_REPLENISH and RESERVATION_DEPLETE events (docs/trace-format.md).

    budgets = reservation_budgets(trace, taskset)   # one ReservationBudget per reservation traced
    budgets[0].used_max_ns, budgets[0].depletions

A reservation's stream has task_id -1 and its name. The budget used in period k
is the arg0 of period k+1's REPLENISH, so the periods counted are those whose
end the trace saw (the last one, cut by the end of the run, is not).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from rtsched.model import TaskSet
from rtsched.trace import EventType as EV
from rtsched.trace import Trace

__all__ = ["ReservationBudget", "reservation_budgets"]


@dataclass(frozen=True, slots=True)
class ReservationBudget:
    """What one reservation's periods used of its budget. ``used_ns``: per whole period, in
    order (the budget used, running its tasks or idling); ``budgets_ns``: the budget each of
    those periods had; ``depletions``: periods whose budget ran out (DEPLETE events)."""

    name: str
    period_ns: int
    periods: int
    depletions: int
    used_ns: tuple[int, ...]
    budgets_ns: tuple[int, ...]
    replenish_times_ns: tuple[int, ...]  # the start of each period begun, since t0

    @property
    def used_mean_ns(self) -> float:
        return float(np.mean(self.used_ns)) if self.used_ns else 0.0

    @property
    def used_max_ns(self) -> int:
        return max(self.used_ns, default=0)

    @property
    def used_share(self) -> float:
        """Budget used over budget given, over the whole periods (0 without any)."""
        given = sum(self.budgets_ns)
        return sum(self.used_ns) / given if given else 0.0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(used_mean_ns=self.used_mean_ns, used_max_ns=self.used_max_ns, used_share=self.used_share)
        for key in ("used_ns", "budgets_ns", "replenish_times_ns"):
            d[key] = list(d[key])
        return d


def reservation_budgets(trace: Trace, taskset: TaskSet) -> tuple[ReservationBudget, ...]:
    """One ReservationBudget per reservation of ``taskset`` with a stream in ``trace``, in the
    file's order (none for a trace without reservation streams)."""
    t0 = int(trace.header["t0_ns"])
    streams = {str(s["name"]): int(s["stream_id"]) for s in trace.streams if s["task_id"] < 0}
    out = []
    for r in taskset.reservations:
        if r.name not in streams:
            continue
        events = trace.events_of(streams[r.name])
        replenish = events[events["type"] == int(EV.RESERVATION_REPLENISH)]
        budgets = [int(b) for b in replenish["arg1"]]
        out.append(
            ReservationBudget(
                name=r.name,
                period_ns=r.period_ns,
                periods=len(replenish),
                depletions=int((events["type"] == int(EV.RESERVATION_DEPLETE)).sum()),
                used_ns=tuple(int(u) for u in replenish["arg0"][1:]),
                budgets_ns=tuple(budgets[:-1]),
                replenish_times_ns=tuple(int(t) - t0 for t in replenish["time_ns"]),
            )
        )
    return tuple(out)
