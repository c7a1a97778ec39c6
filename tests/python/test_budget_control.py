"""The budget controller's policy (rtsched.model.budget_control, src/ult/budget_controller.c):
it raises a starving soft reservation's budget, lowers an idle one's, serves the more important
one first in overload, never shares out more than the capacity; and the C function gives the
same budgets as the Python one on a table of inputs (through ctypes on librtsched.so, as
test_trace_roundtrip.py: RTSCHED_NATIVE_LIB may name a build tree's src/ folder)."""

from __future__ import annotations

import ctypes
import random

import pytest

from rtsched.model.budget_control import PPB, Observation, control_budgets, ppb_ceil, request_ns
from test_trace_roundtrip import find_library

MS = 1_000_000


def obs(*, period=10 * MS, budget=4 * MS, periods=10, used=0, jobs=0, missed=0, late=0,
        importance=1, least=MS // 10, most=10 * MS, headroom=0) -> Observation:
    return Observation(period, budget, periods, used, jobs, missed, late, importance, least, most, headroom)


# ---- the policy --------------------------------------------------------------------------------


def test_a_starving_reservation_asks_for_more_than_its_budget():
    # used its whole 4 ms in every period, and its jobs were 50 ms late in all over 10 periods:
    # 4 ms + 50 ms * (4/10) / 10 = 6 ms
    starving = obs(used=40 * MS, jobs=5, missed=5, late=50 * MS)
    assert request_ns(starving) == 6 * MS
    assert control_budgets([starving], PPB) == [6 * MS]


def test_an_idle_reservation_falls_to_what_it_used_at_least_its_minimum():
    assert control_budgets([obs(used=10 * MS, jobs=5)], PPB) == [MS]
    assert control_budgets([obs()], PPB) == [MS // 10]  # nothing ran: the least budget


def test_the_headroom_adds_to_the_time_used():
    # 1 ms a period used, 30 % more: 1.3 ms
    assert control_budgets([obs(used=10 * MS, headroom=30)], PPB) == [1_300_000]


def test_a_request_is_clamped_to_the_largest_budget():
    assert control_budgets([obs(used=40 * MS, late=10_000 * MS, most=8 * MS)], PPB) == [8 * MS]


def test_in_overload_the_more_important_is_served_first():
    # both ask for 6 ms / 10 ms; the parent leaves 0.7 of a CPU: floors 0.01 each, then the
    # important one gets its 6 ms whichever comes first, the other what is left (0.7 - 0.6 - 0.01)
    low, high = obs(used=60 * MS, importance=1), obs(used=60 * MS, importance=5)
    assert control_budgets([low, high], 7 * PPB // 10) == [MS, 6 * MS]
    assert control_budgets([high, low], 7 * PPB // 10) == [6 * MS, MS]


def test_equal_importance_goes_in_the_order_given():
    a, b = obs(used=60 * MS), obs(used=60 * MS)
    assert control_budgets([a, b], 7 * PPB // 10) == [6 * MS, MS]


def test_without_overload_everyone_gets_its_request():
    group = [obs(used=20 * MS, importance=1), obs(used=30 * MS, period=20 * MS, importance=3)]
    assert control_budgets(group, PPB // 2) == [2 * MS, 3 * MS]


def test_shares_never_exceed_the_capacity():
    rng = random.Random(7)
    for _ in range(500):
        group = [_random_observation(rng) for _ in range(rng.randint(1, 5))]
        capacity = rng.randint(sum(ppb_ceil(o.min_budget_ns, o.period_ns) for o in group), PPB)
        budgets = control_budgets(group, capacity)
        assert sum(ppb_ceil(b, o.period_ns) for b, o in zip(budgets, group)) <= capacity
        assert all(o.min_budget_ns <= b <= request_ns(o) for b, o in zip(budgets, group))


# ---- C and Python agree -----------------------------------------------------------------------


class CObservation(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in (
        "period_ns", "budget_ns", "periods", "used_ns", "jobs", "missed", "late_ns", "importance",
        "min_budget_ns", "max_budget_ns", "headroom_percent")]


@pytest.fixture(scope="module")
def lib():
    path = find_library()
    if path is None:
        pytest.skip("librtsched.so not found: install the package (pip install .) or set RTSCHED_NATIVE_LIB")
    lib = ctypes.CDLL(str(path))
    lib.rts_budget_control.argtypes = [ctypes.POINTER(CObservation), ctypes.c_size_t, ctypes.c_int64,
                                       ctypes.POINTER(ctypes.c_int64)]
    lib.rts_budget_control.restype = None
    lib.rts_budget_request_ns.argtypes = [ctypes.POINTER(CObservation)]
    lib.rts_budget_request_ns.restype = ctypes.c_int64
    return lib


def c_budgets(lib, group: list[Observation], capacity: int) -> list[int]:
    array = (CObservation * len(group))(*(CObservation(*(getattr(o, f) for f in Observation.__slots__))
                                         for o in group))
    out = (ctypes.c_int64 * len(group))()
    lib.rts_budget_control(array, len(group), capacity, out)
    return list(out)


def _random_observation(rng: random.Random) -> Observation:
    period = rng.choice([MS, 10 * MS, 20 * MS, 75 * MS, 100 * MS, 3_333_333])
    least = rng.randint(1, period // 10)
    most = rng.randint(least, period)
    periods = rng.randint(1, 20)
    return Observation(period, rng.randint(least, most), periods, rng.randint(0, period * periods),
                       rng.randint(0, 50), rng.randint(0, 5), rng.choice([0, rng.randint(0, 10**10)]),
                       rng.randint(1, 4), least, most, rng.choice([0, 30, rng.randint(0, 1000)]))


TABLE = [  # (group, capacity): the cases above, then edge cases
    ([obs(used=40 * MS, jobs=5, missed=5, late=50 * MS)], PPB),
    ([obs(used=10 * MS, jobs=5)], PPB),
    ([obs(used=60 * MS, importance=1), obs(used=60 * MS, importance=5)], 7 * PPB // 10),
    ([obs(used=60 * MS), obs(used=60 * MS)], 7 * PPB // 10),
    ([obs(used=40 * MS, late=10_000 * MS, most=8 * MS)], PPB),
    ([obs(used=30 * MS, period=3_333_333), obs(used=10 * MS, period=7 * MS, importance=2)], 333_333_333),
    ([obs(used=10 * MS), obs(used=10 * MS)], 0),  # the floors do not fit: everyone keeps its least budget
    ([obs(used=10 * MS, headroom=30), obs(used=7 * MS, headroom=1000, periods=3)], PPB // 3),
]


def test_c_and_python_give_the_same_budgets(lib):
    rng = random.Random(15)
    table = TABLE + [([_random_observation(rng) for _ in range(rng.randint(1, 6))], rng.randint(0, PPB))
                     for _ in range(300)]
    for group, capacity in table:
        assert c_budgets(lib, group, capacity) == control_budgets(group, capacity), (group, capacity)
        for o in group:
            assert lib.rts_budget_request_ns(ctypes.byref(CObservation(*(getattr(o, f) for f in
                                                                         Observation.__slots__)))) == request_ns(o)
