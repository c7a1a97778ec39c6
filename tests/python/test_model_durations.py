"""Durations: units required, exact nanoseconds, formatting round-trips."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rtsched.model.durations import DurationError, format_duration, parse_duration


@pytest.mark.parametrize(
    "text, ns",
    [
        ("10ms", 10_000_000),
        ("500us", 500_000),
        ("500µs", 500_000),
        ("2s", 2_000_000_000),
        ("1.5ms", 1_500_000),
        ("250ns", 250),
        ("0ms", 0),
        (".5s", 500_000_000),
        ("1.000000001s", 1_000_000_001),
        (" 3 ms ", 3_000_000),
    ],
)
def test_parses_units_exactly(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize("bare", [10, 0, 1.5, True])
def test_bare_numbers_are_refused_even_integers(bare):
    with pytest.raises(DurationError, match="without a unit is not accepted|bare number"):
        parse_duration(bare)


@pytest.mark.parametrize("text", ["ten", "10", "10 m", "ms", "1e3ms", "10min", "", "1,5ms"])
def test_malformed(text):
    with pytest.raises(DurationError, match="expected a duration"):
        parse_duration(text)


def test_negative_and_sub_nanosecond():
    with pytest.raises(DurationError, match="non-negative"):
        parse_duration("-1ms")
    with pytest.raises(DurationError, match="whole number of nanoseconds"):
        parse_duration("1.5ns")


@pytest.mark.parametrize("value", [None, [1], {"a": 1}])
def test_other_types(value):
    with pytest.raises(DurationError, match="expected a duration"):
        parse_duration(value)


@pytest.mark.parametrize(
    "ns, text", [(0, "0ms"), (250, "250ns"), (1_500_000, "1.5ms"), (2_000_000_000, "2s"), (1_001, "1.001us")]
)
def test_format(ns, text):
    assert format_duration(ns) == text


@given(st.integers(min_value=0, max_value=10**15))
def test_format_then_parse_round_trips(ns):
    assert parse_duration(format_duration(ns)) == ns


@given(
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=0, max_value=999),
    st.sampled_from(["us", "ms", "s"]),
)
def test_decimal_text_parses_to_the_exact_value(whole, frac, unit):
    size = {"us": 1_000, "ms": 1_000_000, "s": 1_000_000_000}[unit]
    text = f"{whole}.{frac:03d}{unit}"
    assert parse_duration(text) == whole * size + frac * size // 1000
