"""A sporadic reservation's budget in the simulator: a ``SporadicServer`` (the one the I/O
controller uses, rtsched.sim.sporadic_server) driven by a partition's reservation tree
(rtsched.sim.reservations), and its trace stream.

The tree tells the budget, at each decision of its partition:

1. ``stop``: the time since the last decision, if the reservation was on the active path (a
   task inside ran: a sporadic reservation holds tasks only and is entered only while one is
   ready), is consumed from the server; if that empties its eligible budget, ``DEPLETE``;
2. ``update``: whether a task inside is ready or running (*backlogged*): the server is
   activated when it becomes so and deactivated when it stops being so; the budget that became
   eligible since the last decision is traced as one ``REPLENISH``; ``left_ns`` is the eligible
   budget (the walk enters the reservation only while it is backlogged with budget left);
3. ``start``: the walk entered it: the server runs from now; returns the latest time the run
   may last to (its eligible budget used up, or the next refill: the server's rule 2), the
   depletion instant the tree arms.

Between decisions the next refill of every server is a decision too (``next_refill_ns``), so
a server waiting with work and no budget runs again when its budget returns, and each refill
is traced at its time.

Trace (a stream per reservation, as periodic ones): ``RESERVATION_REPLENISH`` at t0 (``job``
1, arg0 0, arg1 the budget) and whenever budget becomes eligible again (``job`` 2, 3, ...;
arg0 the amount that came back: what was consumed in an activation one period before; arg1
the budget); ``RESERVATION_DEPLETE`` when a run empties the eligible budget (``job``: the
number of the last replenishment). The report's "used per period" of a sporadic reservation
is then the amount per replenishment.

Invariant: ``consumed_ns`` is every ns the server ran; the amount eligible at a decision is
``budget - consumed + replenished`` (no refill limit: the server's refills always sum to the
budget), so ``replenished_ns`` counts every ns that came back, each traced once.
"""

from __future__ import annotations

from rtsched.model import Reservation
from rtsched.trace import EventType as EV
from rtsched.sim.sporadic_server import SporadicServer

__all__ = ["SporadicBudget"]

_REPLENISH, _DEPLETE = int(EV.RESERVATION_REPLENISH), int(EV.RESERVATION_DEPLETE)
_U32 = (1 << 32) - 1

Event = tuple[int, int, int, int, int, int, int]


class SporadicBudget:
    """The budget of one ``kind: sporadic`` reservation (no limit on pending refills)."""

    __slots__ = ("server", "events", "cpu", "consumed_ns", "replenished_ns", "replenishments", "refill_event_ns")

    def __init__(self, model: Reservation, events: list[Event], cpu: int) -> None:
        self.server = SporadicServer(model.budget_ns, model.period_ns)
        self.events = events  # the reservation's trace stream
        self.cpu = cpu
        self.consumed_ns = 0
        self.replenished_ns = 0
        self.replenishments = 0
        self.refill_event_ns: int | None = None  # the refill instant a decision is armed for

    def stop(self, now: int) -> None:
        """Consume what ran since the last start (nothing if it was not running)."""
        if not self.server.running:
            return
        used = self.server.stop(now)
        self.consumed_ns += used
        if used and self.server.available_ns(now) == 0:
            self.events.append((now, _DEPLETE, self.cpu, self.replenishments, 0, 0, self.server.budget_ns))

    def update(self, backlogged: bool, now: int) -> int:
        """Activate or deactivate, trace what came back; return the eligible budget."""
        server = self.server
        if backlogged:
            server.activate(now)
        elif server.active:
            server.deactivate(now)
        eligible = server.available_ns(now)
        if self.replenishments == 0:  # the full budget at t0, as a periodic reservation's first period
            self._replenish(now, 0)
        came_back = eligible - server.budget_ns + self.consumed_ns - self.replenished_ns
        if came_back > 0:
            self.replenished_ns += came_back
            self._replenish(now, came_back)
        return eligible

    def start(self, now: int) -> int:
        """The walk entered the reservation: run from ``now``; return when the run must stop."""
        self.server.start(now)
        return self.server.run_limit_ns(now)

    def next_refill_ns(self, now: int) -> int | None:
        """The next refill after ``now`` not yet armed as a decision (None: none, or armed)."""
        following = self.server.next_refill_ns(now)
        if following is None or following == self.refill_event_ns:
            return None
        self.refill_event_ns = following
        return following

    def _replenish(self, now: int, amount_ns: int) -> None:
        self.replenishments += 1
        self.events.append((now, _REPLENISH, self.cpu, self.replenishments, min(amount_ns, _U32), 0,
                            self.server.budget_ns))
