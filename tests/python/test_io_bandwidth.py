"""The COTS bus: concurrent transfers share the bandwidth max-min fairly and
slow each other exactly as that model says (exact Fractions)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model.io_system import Flow, IoSystem, Peripheral
from rtsched.sim.io import simulate_unscheduled
from rtsched.sim.io.bandwidth import fair_rates

MS = 1_000_000


def test_two_engines_on_one_link_each_get_half_and_take_twice_as_long():
    system = IoSystem("two", Fraction(10**12), (Peripheral("bridge", Fraction(100 * 10**6)),), (
        Flow("a", "bridge", 100_000, 1 * MS, 10 * MS, 10 * MS),
        Flow("b", "bridge", 100_000, 1 * MS, 10 * MS, 10 * MS),
    ))
    run = simulate_unscheduled(system)
    assert [c.finish_ns for c in run.chunks] == [2 * MS, 2 * MS]
    assert {s.bytes_per_ns for s in run.segments} == {Fraction(1, 20)}


def test_a_short_transfer_slows_a_long_one_only_while_they_overlap():
    # a: 200 kB alone in 2 ms; b: 50 kB alone in 1 ms; both on a 100 MB/s memory.
    # Together each gets 50 MB/s: b needs 1 ms, a moves 50 kB meanwhile, then the
    # remaining 150 kB alone in 1.5 ms: a finishes at 2.5 ms.
    system = IoSystem("mem", Fraction(100 * 10**6), (Peripheral("p"), Peripheral("q")), (
        Flow("a", "p", 200_000, 2 * MS, 10 * MS, 10 * MS),
        Flow("b", "q", 50_000, 1 * MS, 10 * MS, 10 * MS),
    ))
    finish = {c.flow: c.finish_ns for c in simulate_unscheduled(system).chunks}
    assert finish == {"a": Fraction(5 * MS, 2), "b": 1 * MS}


def test_a_flow_held_by_its_own_cap_leaves_the_rest_to_the_others():
    rates = fair_rates({"slow": Fraction(1), "fast": Fraction(10)}, [(Fraction(6), ["slow", "fast"])])
    assert rates == {"slow": 1, "fast": 5}


def test_table_3_1_stretch_is_the_fluid_arithmetic():
    # Memory M = 909.1 MB/s; the ML555's peak p = 4.0 MB / 4.4 ms; three ML505s at
    # r = 1.1 MB / 7.5 ms each keep their rate (below M / 4). The ML555 gets M - 3r for
    # 7.5 ms, then p for what is left.
    m = Fraction(9091, 10_000)                     # bytes per ns
    p, r = Fraction(4_000_000, 44 * MS // 10), Fraction(1_100_000, 75 * MS // 10)
    shared = (m - 3 * r) * (75 * MS // 10)
    expected = Fraction(75 * MS, 10) + (4_000_000 - shared) / p
    system = IoSystem("t31", m * 10**9, tuple(Peripheral(n) for n in "mabc"), (
        Flow("ml555", "m", 4_000_000, 44 * MS // 10, 8 * MS, 8 * MS),
        *(Flow(f"ml505-{n}", n, 1_100_000, 75 * MS // 10, 72 * MS, 72 * MS) for n in "abc"),
    ))
    first = simulate_unscheduled(system).chunks_of("ml555")[0]
    assert first.finish_ns == expected


caps = st.dictionaries(st.sampled_from("abcdef"), st.integers(1, 50).map(Fraction), min_size=1)


@settings(max_examples=200, deadline=None)
@given(caps=caps, data=st.data())
def test_fair_rates_respect_every_limit_and_are_max_min_fair(caps, data):
    flows = sorted(caps)
    links = [(Fraction(data.draw(st.integers(1, 80))), data.draw(st.lists(st.sampled_from(flows), min_size=1,
                                                                         unique=True))) for _ in range(3)]
    rates = fair_rates(caps, links)
    assert all(0 < rates[f] <= caps[f] for f in flows)
    assert all(sum(rates[f] for f in members) <= capacity for capacity, members in links)
    for f in flows:  # held by its cap, or by a saturated link on which no flow gets more
        saturated = [members for capacity, members in links
                     if f in members and sum(rates[g] for g in members) == capacity]
        assert rates[f] == caps[f] or any(all(rates[g] <= rates[f] for g in m) for m in saturated)
