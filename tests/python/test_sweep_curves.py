"""The table behind the curves, on rows written by hand: fractions, Wilson intervals, weighted schedulability,
one curve per test and value of the other grid parameters."""

from __future__ import annotations

import pyarrow as pa
import pytest

from rtsched.sweep.curves import curve_table


def rows(*items: tuple[str, int, float, float, bool]) -> pa.Table:
    test, cpus, x, u, ok = zip(*items)
    return pa.table({"test": list(test), "cpus": list(cpus), "cs": list(x), "set_utilization": list(u),
                     "schedulable": list(ok)})


def test_fractions_intervals_and_curves_by_the_other_parameters():
    table = rows(("b", 2, 10.0, 0.5, True), ("b", 2, 10.0, 0.7, False), ("a", 2, 10.0, 0.5, True),
                 ("a", 4, 10.0, 0.5, True), ("a", 2, 20.0, 0.9, False), ("a", 2, 10.0, 0.9, True))
    points = curve_table(table, "cs", ["cpus"], tests=["a", "b"])
    assert [(p.curve, p.x, p.sets, p.schedulable) for p in points] == [
        ("a, cpus=2", 10.0, 2, 2), ("a, cpus=2", 20.0, 1, 0), ("a, cpus=4", 10.0, 1, 1), ("b, cpus=2", 10.0, 2, 1)]
    assert points[3].value == 0.5 and points[3].low == pytest.approx(0.0945, abs=1e-4)
    assert points[3].high == pytest.approx(0.9055, abs=1e-4)


def test_weighted_schedulability_weighs_each_set_by_its_utilization():
    table = rows(("a", 1, 5.0, 0.2, True), ("a", 1, 5.0, 0.6, False), ("a", 1, 5.0, 0.2, True))
    [point] = curve_table(table, "cs", [], tests=["a"], weighted=True)
    assert point.value == pytest.approx(0.4 / 1.0) and point.low is None and point.sets == 3
