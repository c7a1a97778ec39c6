"""The platform's DVFS levels and power model (rtsched.model.power, platform.dvfs)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model import TaskSetError, load_taskset, taskset_from_dict, taskset_to_dict
from rtsched.model.dvfs_format import DVFS_KEYS, OPERATING_POINT_KEYS
from rtsched.model.power import OperatingPoint, PowerModel

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "taskset.schema.json").read_text())

BASE = """
name: d
platform:
  scheduler: G-EDF
  cpus: [0]
  dvfs: {dvfs}
tasks: [{{name: t, period: 10ms, body: [{{compute: 1ms}}]}}]
"""
GOOD = ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 1100}, {frequency_mhz: 500, voltage_mv: 900}], "
        "capacitance_pf: 1000, static_mw: 50, idle_mw: 20, memory_bound: 0.25}")


def load(dvfs: str):
    return taskset_from_dict(yaml.safe_load(BASE.format(dvfs=dvfs)))


def errors(dvfs: str) -> list[str]:
    with pytest.raises(TaskSetError) as caught:
        load(dvfs)
    return caught.value.errors


def test_a_power_model_loads_sorted_and_exact():
    model = load(GOOD).platform.dvfs
    assert model is not None
    assert model.operating_points == (OperatingPoint(500, 900), OperatingPoint(1000, 1100))
    assert model.memory_bound == Fraction(1, 4)
    # 1000 pF * (1.1 V)^2 * 1 GHz = 1.21 W
    assert model.dynamic_mw(model.max_point) == 1210
    assert model.running_mw(model.max_point) == 1260
    # at half the frequency: a quarter of the work does not slow down, three quarters take twice as long
    assert model.slowdown(model.operating_points[0]) == Fraction(1, 4) + Fraction(3, 4) * 2
    assert model.speed(model.max_point) == 1


def test_the_power_model_round_trips_through_the_user_format():
    ts = load(GOOD)
    assert taskset_from_dict(taskset_to_dict(ts)) == ts


def test_the_example_set_validates_with_its_critical_frequency():
    model = load_taskset(ROOT / "examples" / "dvfs-edf.yaml").platform.dvfs
    assert model is not None
    # 200 MHz costs more energy per unit of work than 300 MHz at the same voltage (static power)
    assert [op.frequency_mhz for op in model.efficient_points] == [300, 600, 800, 1000, 1200]


@pytest.mark.parametrize("dvfs, expected", [
    ("{capacitance_pf: 1}", 'platform.dvfs: missing required key "operating_points"'),
    ("{operating_points: [], capacitance_pf: 1}", "platform.dvfs.operating_points: expected a non-empty list"),
    ("{operating_points: [{frequency_mhz: 1000}], capacitance_pf: 1}",
     'platform.dvfs.operating_points[0]: missing required key "voltage_mv"'),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 1.1}], capacitance_pf: 1}",
     "platform.dvfs.operating_points[0].voltage_mv: expected a positive integer, got 1.1"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 900, volts: 1}], capacitance_pf: 1}",
     "platform.dvfs.operating_points[0].volts: unknown key"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 900}, {frequency_mhz: 1000, voltage_mv: 950}], "
     "capacitance_pf: 1}", "platform.dvfs.operating_points: frequency 1000 MHz is listed twice"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 900}, {frequency_mhz: 500, voltage_mv: 950}], "
     "capacitance_pf: 1}", "platform.dvfs.operating_points: 1000 MHz needs at least the 950 mV of 500 MHz"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 900}], capacitance_pf: 0}",
     "platform.dvfs.capacitance_pf: must be > 0"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 900}], capacitance_pf: 1, memory_bound: 1}",
     "platform.dvfs.memory_bound: must be below 1"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 900}], capacitance_pf: 1, static_mw: -1}",
     "platform.dvfs.static_mw: must be >= 0"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 1000}], capacitance_pf: 1, idle_mw: 2}",
     "platform.dvfs.idle_mw: 2 mW is above the running power at the lowest operating point (1 mW)"),
    ("{operating_points: [{frequency_mhz: 1000, voltage_mv: 900}], capacitance_pf: 1, leak_mw: 1}",
     "platform.dvfs.leak_mw: unknown key"),
])
def test_bad_power_models_say_what_and_where(dvfs, expected):
    found = errors(dvfs)
    assert any(e.startswith(expected) for e in found), found


def test_the_schema_describes_the_same_keys():
    assert set(SCHEMA["$defs"]["dvfs"]["properties"]) == DVFS_KEYS
    assert set(SCHEMA["$defs"]["operatingPoint"]["properties"]) == OPERATING_POINT_KEYS
    assert SCHEMA["$defs"]["dvfs"]["additionalProperties"] is False


@st.composite
def power_models(draw: st.DrawFn) -> PowerModel:
    n = draw(st.integers(1, 6))
    freqs = sorted(draw(st.lists(st.integers(100, 4000), min_size=n, max_size=n, unique=True)))
    volts = sorted(draw(st.lists(st.integers(500, 1500), min_size=n, max_size=n)))
    points = tuple(OperatingPoint(f, v) for f, v in zip(freqs, volts))
    capacitance = Fraction(draw(st.integers(1, 5000)))
    static = Fraction(draw(st.integers(0, 500)))
    memory = Fraction(draw(st.integers(0, 90)), 100)
    model = PowerModel(points, capacitance, static, Fraction(0), memory)
    idle = Fraction(draw(st.integers(0, int(model.running_mw(points[0])))))
    return PowerModel(points, capacitance, static, idle, memory)


@settings(max_examples=200, deadline=None)
@given(power_models())
def test_power_rises_with_frequency_and_energy_per_work_rises_on_the_efficient_points(model: PowerModel):
    powers = [model.running_mw(op) for op in model.operating_points]
    assert powers == sorted(powers) and len(set(powers)) == len(powers)
    speeds = [model.speed(op) for op in model.operating_points]
    assert speeds == sorted(speeds) and speeds[-1] == 1
    efficient = model.efficient_points
    assert efficient[-1] == model.max_point
    costs = [model.energy_per_work_pj(op) for op in efficient]
    assert all(a < b for a, b in zip(costs, costs[1:]))  # strictly monotone in frequency
    # every point left out costs at least as much per unit of work as a higher efficient one
    for op in model.operating_points:
        if op not in efficient:
            higher = [e for e in efficient if e.frequency_mhz > op.frequency_mhz]
            assert min(model.energy_per_work_pj(e) for e in higher) <= model.energy_per_work_pj(op)
    # with no static power and no memory-bound part, energy per work is C·V²·f_max: a lower
    # frequency is worth it exactly when it has a lower voltage than the next point up
    if model.static_mw == 0 and model.idle_mw == 0 and model.memory_bound == 0:
        points = model.operating_points
        expected = [op for op, up in zip(points, points[1:]) if op.voltage_mv < up.voltage_mv] + [points[-1]]
        assert list(efficient) == expected


@settings(max_examples=100, deadline=None)
@given(power_models(), st.integers(1, 10**6))
def test_a_fixed_amount_of_work_costs_more_the_higher_the_efficient_point(model: PowerModel, work_ns: int):
    """Energy over a window long enough for the work at every point: work at ``op`` then idle."""
    window = work_ns * model.slowdown(model.operating_points[0])
    energies = []
    for op in model.efficient_points:
        busy = work_ns * model.slowdown(op)
        energies.append(busy * model.running_mw(op) + (window - busy) * model.idle_mw)
    assert all(a < b for a, b in zip(energies, energies[1:]))
