"""The sporadic server's replenishment rules on hand-computed schedules (exact
ns), including the two defects of POSIX SCHED_SPORADIC that Stanovich et al.
(RTAS 2010) describe: premature replenishment and budget amplification."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.sim.sporadic_server import Refill, SporadicServer


def test_consumed_budget_returns_one_period_after_activation():
    s = SporadicServer(budget_ns=2, period_ns=10)
    s.activate(0)
    s.start(0)
    assert s.run_limit_ns(0) == 2
    assert s.stop(2) == 2
    assert s.refills == (Refill(10, 2),)
    assert s.available_ns(9) == 0 and s.available_ns(10) == 2
    s.start(10)
    s.stop(11)
    s.deactivate(11)
    assert s.refills == (Refill(10, 1), Refill(20, 1))


def test_preemption_keeps_the_activation_time():
    s = SporadicServer(budget_ns=4, period_ns=10)
    s.activate(3)
    s.start(3)
    s.stop(4)      # preempted by a higher priority
    s.start(6)     # resumes, still the same activation
    s.stop(8)
    s.deactivate(8)
    assert s.refills == (Refill(0, 1), Refill(13, 3))


def test_budget_that_arrived_while_active_is_not_replenished_prematurely():
    # Out of budget at 4, the server waits with work pending; its budget returns at 10
    # and it runs 10..12. Sprunt's rule as POSIX words it would post those 2 ns at the
    # activation (0) + 10 = 10: back at once, so the server could run 10..16, 6 ns in
    # the window [10, 20) of a 4 ns budget. Posted at their own arrival + period: 20.
    s = SporadicServer(budget_ns=4, period_ns=10)
    s.activate(0)
    s.start(0)
    s.stop(4)
    s.start(10)
    s.stop(12)
    assert s.refills == (Refill(10, 2), Refill(20, 2))
    assert s.available_ns(12) == 2
    assert s.run_limit_ns(12) == 14


def test_a_full_refill_list_defers_budget_and_never_amplifies_it():
    # POSIX bounds pending replenishments (sched_ss_max_repl) and, when the list is
    # full, lets budget come back in ways that add to the capacity. Here the new
    # posting joins the last refill at the later time: less budget earlier, never more.
    s = SporadicServer(budget_ns=4, period_ns=10, max_refills=2)
    s.activate(0)
    s.start(0)
    s.stop(1)
    s.deactivate(1)
    assert s.refills == (Refill(0, 3), Refill(10, 1))
    s.activate(2)
    s.start(2)
    s.stop(3)
    s.deactivate(3)
    assert s.refills == (Refill(0, 2), Refill(12, 2))
    s.activate(5)
    s.start(5)
    s.stop(7)
    s.deactivate(7)
    assert s.refills == (Refill(12, 2), Refill(15, 2))
    s.activate(8)
    s.start(12)
    s.stop(14)     # budget eligible since 12 in an activation at 8: back at max(8, 12) + 10
    s.deactivate(14)
    assert s.refills == (Refill(15, 2), Refill(22, 2))
    assert sum(r.amount_ns for r in s.refills) == 4


def test_misuse_is_refused():
    with pytest.raises(ValueError, match="budget <= period"):
        SporadicServer(budget_ns=11, period_ns=10)
    s = SporadicServer(budget_ns=2, period_ns=10)
    with pytest.raises(RuntimeError, match="only while active"):
        s.start(0)
    s.activate(0)
    s.start(0)
    with pytest.raises(RuntimeError, match="overran"):
        s.stop(3)
    s.stop(2)
    with pytest.raises(RuntimeError, match="no budget"):
        s.start(5)


def _tokens(refills: tuple[Refill, ...]) -> list[int]:
    return sorted(r.at_ns for r in refills for _ in range(r.amount_ns))


@settings(max_examples=200, deadline=None)
@given(budget=st.integers(1, 12), extra=st.integers(0, 30), max_refills=st.one_of(st.none(), st.integers(1, 4)),
       steps=st.lists(st.tuples(st.sampled_from(["run", "idle", "wait"]), st.integers(1, 25)), max_size=40))
def test_budget_comes_back_never_earlier_than_the_rules_say_and_never_more(budget, extra, max_refills, steps):
    # A model of the budget as `budget` one-ns tokens, each with the time it becomes
    # eligible: a run uses the oldest eligible tokens, and a token used during the
    # activation that began at a, eligible since e, returns at max(a, e) + period
    # (one period after it became usable: no premature replenishment). The server
    # must hold exactly these tokens (without a refill limit), or the same number each
    # no earlier (with one: deferral only), so it never has more budget than the model.
    period = budget + extra
    s = SporadicServer(budget, period, max_refills)
    model = [0] * budget
    activation = None
    now = 0
    for what, length in steps:
        if what == "run":
            if activation is None:
                activation = now
            s.activate(now)
            if s.available_ns(now) == 0:
                now = s.next_refill_ns(now)
            end = min(now + length, s.run_limit_ns(now))
            eligible = [t for t in model if t <= now]
            assert len(eligible) >= end - now
            used = eligible[: end - now]
            for t in used:
                model.remove(t)
            model = sorted(model + [max(activation, t) + period for t in used])
            s.start(now)
            s.stop(end)
            now = end
        elif what == "idle":
            s.deactivate(now)
            activation = None
            now += length
        else:
            now += length
        tokens = _tokens(s.refills)
        assert len(tokens) == budget
        if max_refills is None:
            assert tokens == model
        else:
            assert all(mine >= rule for mine, rule in zip(tokens, model))
