"""A sporadic server (Sprunt, Sha, Lehoczky 1989) with exact replenishment
rules in integer nanoseconds, written for any fixed-priority scheduler of one
resource: the I/O reservation controller (``rtsched.sim.io``) uses it, and a
CPU scheduler can drive it the same way.

The budget is a list of refills ``(at_ns, amount_ns)``: an amount may be
consumed from ``at_ns`` on. The scheduler tells the server four things:
``activate`` (work arrived: the served task became ready), ``start`` (it is
granted the resource), ``stop`` (it is preempted, blocked, or out of budget)
and ``deactivate`` (no work left). Rules:

1. *Activation.* The server's activation time is when it last became active
   (had work). It stays active while preempted or out of budget.
2. *Consumption.* Running consumes the eligible refills oldest first. A run
   must stop when the eligible budget is used up and at the next refill time
   (``run_limit_ns`` says when), so every run draws on one fixed set of refills.
3. *Replenishment.* What a run consumed from a refill that became eligible at
   ``e`` is posted again at ``max(activation, e) + period``.

Rule 3 is Sprunt's "replenish at activation + period", corrected as Stanovich,
Baker, Wang and González Harbour (RTAS 2010) correct POSIX SCHED_SPORADIC:

- *Premature replenishment*: budget that arrived while the server was already
  active (it had run out and waited) must not be posted back at the old
  activation time + period, which is earlier than its own arrival + period and
  would let the server run more than its budget in a window of one period. It
  is posted at its arrival + period.
- *Budget amplification*: a replenishment is only what was consumed from the
  budget, never the length of an interval measured otherwise (POSIX counts
  time run at the background priority and merges refills so that the server's
  capacity grows). Here the refill amounts always sum to the budget, and when
  the list is full (``max_refills``, POSIX's ``sched_ss_max_repl``) a new
  posting merges into the last refill at the later of the two times: budget
  is only ever deferred, never created.

Invariants: refills are sorted by ``at_ns`` with distinct times; their
amounts are positive and sum to ``budget_ns``; a unit consumed at ``c`` in an
activation that began at ``a``, from a refill eligible since ``e``, is back at
``max(a, e) + period_ns`` (≤ ``c + period_ns``), never earlier: the server
demands no more than a periodic task of (budget, period) released at its
activations (Sprunt's theorem; the two corrections above are what make it
hold: tests/python/test_analysis_sporadic_server.py checks the tasks below a
CPU server against that bound). As a periodic task's consecutive jobs may, a
server delayed by higher priorities can run more than ``budget_ns`` in a
window of ``period_ns`` (run 5..7 of an activation at 0, then 10..12).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Refill", "SporadicServer"]


@dataclass(frozen=True)
class Refill:
    at_ns: int
    amount_ns: int


class SporadicServer:
    def __init__(self, budget_ns: int, period_ns: int, max_refills: int | None = None, start_ns: int = 0):
        if budget_ns <= 0 or period_ns <= 0 or budget_ns > period_ns:
            raise ValueError(f"a sporadic server needs 0 < budget <= period, got {budget_ns}/{period_ns} ns")
        if max_refills is not None and max_refills < 1:
            raise ValueError(f"max_refills must be at least 1, got {max_refills}")
        self.budget_ns = budget_ns
        self.period_ns = period_ns
        self.max_refills = max_refills
        self._refills: list[Refill] = [Refill(start_ns, budget_ns)]
        self._activation_ns: int | None = None
        self._running_since_ns: int | None = None

    # -- queries -------------------------------------------------------------

    @property
    def refills(self) -> tuple[Refill, ...]:
        return tuple(self._refills)

    @property
    def active(self) -> bool:
        return self._activation_ns is not None

    @property
    def running(self) -> bool:
        return self._running_since_ns is not None

    def available_ns(self, now_ns: int) -> int:
        """Budget that may be consumed at ``now_ns`` (the eligible refills)."""
        return sum(r.amount_ns for r in self._refills if r.at_ns <= now_ns)

    def next_refill_ns(self, now_ns: int) -> int | None:
        """The first time after ``now_ns`` at which budget becomes eligible."""
        return next((r.at_ns for r in self._refills if r.at_ns > now_ns), None)

    def run_limit_ns(self, now_ns: int) -> int:
        """The latest time a run started at ``now_ns`` may last to (rule 2)."""
        limit = now_ns + self.available_ns(now_ns)
        refill = self.next_refill_ns(now_ns)
        return limit if refill is None else min(limit, refill)

    # -- what the scheduler tells the server ----------------------------------

    def activate(self, now_ns: int) -> None:
        """The served work became ready (no effect if the server is already active)."""
        if self._activation_ns is None:
            self._activation_ns = now_ns

    def start(self, now_ns: int) -> None:
        """The scheduler grants the resource: the server runs from ``now_ns``."""
        if self._activation_ns is None:
            raise RuntimeError("a sporadic server starts only while active (it has work)")
        if self._running_since_ns is not None:
            raise RuntimeError("the sporadic server is already running")
        if self.available_ns(now_ns) == 0:
            raise RuntimeError(f"the sporadic server has no budget at {now_ns} ns")
        self._running_since_ns = now_ns

    def stop(self, now_ns: int) -> int:
        """The server stops running at ``now_ns``; returns the nanoseconds it ran (rule 3 posts them)."""
        since = self._running_since_ns
        if since is None or self._activation_ns is None:
            raise RuntimeError("the sporadic server is not running")
        used = now_ns - since
        if now_ns > self.run_limit_ns(since):
            raise RuntimeError(f"the run {since}..{now_ns} ns overran the budget or a refill time "
                               f"(limit {self.run_limit_ns(since)} ns)")
        self._running_since_ns = None
        self._consume(used, since, self._activation_ns)
        return used

    def deactivate(self, now_ns: int) -> None:
        """No work left: stops a run in progress; the next work starts a new activation."""
        if self._running_since_ns is not None:
            self.stop(now_ns)
        self._activation_ns = None

    # -- bookkeeping ----------------------------------------------------------

    def _consume(self, used_ns: int, at_ns: int, activation_ns: int) -> None:
        postings: list[Refill] = []
        while used_ns > 0:
            head = self._refills[0]
            assert head.at_ns <= at_ns, "consumption beyond the eligible budget"
            take = min(used_ns, head.amount_ns)
            postings.append(Refill(max(activation_ns, head.at_ns) + self.period_ns, take))
            used_ns -= take
            if take == head.amount_ns:
                self._refills.pop(0)
            else:
                self._refills[0] = Refill(head.at_ns, head.amount_ns - take)
        for posting in postings:
            self._post(posting)

    def _post(self, posting: Refill) -> None:
        refills = self._refills
        for i, r in enumerate(refills):
            if r.at_ns == posting.at_ns:
                refills[i] = Refill(r.at_ns, r.amount_ns + posting.amount_ns)
                return
        if self.max_refills is not None and len(refills) >= self.max_refills:
            last = refills[-1]
            refills[-1] = Refill(max(last.at_ns, posting.at_ns), last.amount_ns + posting.amount_ns)
            return
        refills.append(posting)
        refills.sort(key=lambda r: r.at_ns)
