"""Reading ``platform.dvfs`` (the operating points and the power model) from plain data.

    dvfs:
      operating_points:
        - {frequency_mhz: 600, voltage_mv: 900}
        - {frequency_mhz: 1000, voltage_mv: 1100}
      capacitance_pf: 1000      # effective switched capacitance (alpha * C)
      static_mw: 50             # leakage while running
      idle_mw: 20               # whole CPU while idle
      memory_bound: 0.1         # fraction of a compute that does not scale with frequency

Every problem goes to ``error(path, message)`` (the task-set checker's), so it
is listed with the file's other errors. docs/taskset.md and
docs/taskset.schema.json describe the same keys.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from rtsched.model.power import OperatingPoint, PowerModel
from rtsched.model.values import describe

__all__ = ["DVFS_KEYS", "OPERATING_POINT_KEYS", "read_dvfs"]

DVFS_KEYS = frozenset({"operating_points", "capacitance_pf", "static_mw", "idle_mw", "memory_bound"})
OPERATING_POINT_KEYS = frozenset({"frequency_mhz", "voltage_mv"})

Error = Callable[[str, str], None]


def _number(value: Any, path: str, error: Error, *, positive: bool) -> Fraction | None:
    """An int or a float as an exact Fraction (a float by its decimal text: 0.1 is 1/10)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        error(path, f"expected a number, got {describe(value)}")
        return None
    number = Fraction(value) if isinstance(value, int) else Fraction(repr(value))
    if number < 0 or (positive and number == 0):
        error(path, f"must be {'> 0' if positive else '>= 0'}, got {describe(value)}")
        return None
    return number


def _integer(value: Any, path: str, error: Error) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        error(path, f"expected a positive integer, got {describe(value)}")
        return None
    return value


def _unknown_keys(data: dict[str, Any], allowed: frozenset[str], path: str, error: Error) -> None:
    for key in data:
        if key not in allowed:
            error(f"{path}.{key}", f"unknown key (known: {', '.join(sorted(allowed))})")


def _operating_points(value: Any, path: str, error: Error) -> tuple[OperatingPoint, ...] | None:
    if not isinstance(value, list) or not value:
        error(path, "expected a non-empty list of {frequency_mhz, voltage_mv}")
        return None
    points: list[OperatingPoint] = []
    for i, item in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(item, dict):
            error(where, "expected a mapping {frequency_mhz, voltage_mv}")
            continue
        _unknown_keys(item, OPERATING_POINT_KEYS, where, error)
        missing = [k for k in sorted(OPERATING_POINT_KEYS) if k not in item]
        for key in missing:
            error(where, f'missing required key "{key}"')
        if missing:
            continue
        mhz = _integer(item["frequency_mhz"], f"{where}.frequency_mhz", error)
        mv = _integer(item["voltage_mv"], f"{where}.voltage_mv", error)
        if mhz is not None and mv is not None:
            points.append(OperatingPoint(mhz, mv))
    if len(points) != len(value):
        return None
    ordered = sorted(points, key=lambda op: op.frequency_mhz)
    ok = True
    for lower, higher in zip(ordered, ordered[1:]):
        if lower.frequency_mhz == higher.frequency_mhz:
            error(path, f"frequency {higher.frequency_mhz} MHz is listed twice")
            ok = False
        elif higher.voltage_mv < lower.voltage_mv:
            error(path, f"{higher.frequency_mhz} MHz needs at least the {lower.voltage_mv} mV of "
                        f"{lower.frequency_mhz} MHz, got {higher.voltage_mv} mV (voltage must not "
                        "fall as frequency rises)")
            ok = False
    return tuple(ordered) if ok else None


def read_dvfs(value: Any, path: str, error: Error) -> PowerModel | None:
    """The power model at ``path`` (``platform.dvfs``), or None after reporting every problem."""
    if not isinstance(value, dict):
        error(path, "expected a mapping (operating_points, capacitance_pf, static_mw, idle_mw, memory_bound)")
        return None
    _unknown_keys(value, DVFS_KEYS, path, error)
    for key in ("operating_points", "capacitance_pf"):
        if key not in value:
            error(path, f'missing required key "{key}"')
    points = (_operating_points(value["operating_points"], f"{path}.operating_points", error)
              if "operating_points" in value else None)
    capacitance = (_number(value["capacitance_pf"], f"{path}.capacitance_pf", error, positive=True)
                   if "capacitance_pf" in value else None)
    static = _number(value.get("static_mw", 0), f"{path}.static_mw", error, positive=False)
    idle = _number(value.get("idle_mw", 0), f"{path}.idle_mw", error, positive=False)
    memory = _number(value.get("memory_bound", 0), f"{path}.memory_bound", error, positive=False)
    if memory is not None and memory >= 1:
        error(f"{path}.memory_bound", f"must be below 1 (a fraction of the work), got {value['memory_bound']!r}")
        memory = None
    if points is None or capacitance is None or static is None or idle is None or memory is None:
        return None
    model = PowerModel(points, capacitance, static, idle, memory)
    lowest_mw = model.running_mw(points[0])
    if idle > lowest_mw:
        error(f"{path}.idle_mw", f"{float(idle):g} mW is above the running power at the lowest operating "
                                 f"point ({float(lowest_mw):g} mW): an idle CPU draws less than a busy one")
        return None
    return model
