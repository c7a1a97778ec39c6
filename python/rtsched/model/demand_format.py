"""The ``compute`` action in a task-set file: a fixed duration, or a varying demand.

    - compute: 2ms                                               # every job
    - compute: {uniform: [2ms, 8ms], seed: 7}
    - compute: {normal: {mean: 5ms, stddev: 1ms, min: 2ms, max: 8ms}}
    - compute: {empirical: [2ms, 3ms, 3ms, 8ms]}
    - compute: {trace: demand/s3.csv, column: tau31_us, at_end: cycle}
    - compute: {sequence: [[300, 1ms], [300, 7ms]]}                # 300 jobs of 1 ms, 300 of 7 ms, again

A trace's path is relative to the task-set file's directory (``base_dir``;
the current directory for a set that comes from no file). The parser returns
the action (or None) with the problems found, each a (path, message) pair, as
``rtsched.model.prem`` does; validate.py reports them. ``Compute.ns`` is the
demand's maximum: the default WCET, and what the analysis uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rtsched.model.demand import (
    AT_END,
    DEFAULT_SEED,
    MAX_JOB_DURATIONS,
    Demand,
    Empirical,
    Normal,
    Sequence,
    Trace,
    Uniform,
    normal_mass,
)
from rtsched.model.demand_csv import TraceError, read_trace_column
from rtsched.model.durations import DurationError, format_duration, parse_duration
from rtsched.model.model import Compute
from rtsched.model.values import describe

__all__ = ["COMPUTE_KEYS", "DEMAND_KINDS", "NORMAL_KEYS", "MIN_NORMAL_MASS", "parse_compute", "trace_job_limit"]

DEMAND_KINDS: tuple[str, ...] = ("uniform", "normal", "empirical", "trace", "sequence")
#: Demands replayed in order, which have no seed.
_REPLAYED = ("trace", "sequence")
COMPUTE_KEYS = frozenset(DEMAND_KINDS) | {"seed", "column", "at_end"}
NORMAL_KEYS = frozenset({"mean", "stddev", "min", "max"})
#: A truncated normal must keep at least this share of its draws inside [min, max].
MIN_NORMAL_MASS = 0.01

Problems = list[tuple[str, str]]


def _duration(value: Any, path: str) -> tuple[int | None, Problems]:
    """A duration >= 0 (a job of a varying compute may need no CPU time)."""
    try:
        return parse_duration(value), []
    except DurationError as err:
        return None, [(path, str(err))]


def _seed(data: dict[str, Any], path: str) -> tuple[int | None, Problems]:
    seed = data.get("seed", DEFAULT_SEED)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        return None, [(f"{path}.seed", f"expected an integer in 0..2^63-1, got {describe(seed)}")]
    return seed, []


def _uniform(value: Any, path: str, seed: int) -> tuple[Demand | None, Problems]:
    if not isinstance(value, list) or len(value) != 2:
        return None, [(path, f"expected [min, max], two durations such as [2ms, 8ms], got {describe(value)}")]
    lo, p1 = _duration(value[0], f"{path}[0]")
    hi, p2 = _duration(value[1], f"{path}[1]")
    if lo is None or hi is None:
        return None, p1 + p2
    if lo > hi:
        return None, [(path, f"min {format_duration(lo)} is above max {format_duration(hi)}")]
    return Uniform(lo, hi, seed), []


def _normal(value: Any, path: str, seed: int) -> tuple[Demand | None, Problems]:
    if not isinstance(value, dict):
        return None, [(path, "expected {mean, stddev, min, max}, four durations")]
    problems = [(f"{path}.{k}", f"unknown key (keys: {', '.join(sorted(NORMAL_KEYS))})")
                for k in value if k not in NORMAL_KEYS]
    problems += [(path, f'missing required key "{k}"') for k in ("mean", "stddev", "min", "max") if k not in value]
    got: dict[str, int] = {}
    for key in sorted(NORMAL_KEYS & set(value)):
        ns, errs = _duration(value[key], f"{path}.{key}")
        problems += errs
        if ns is not None:
            got[key] = ns
    if problems:
        return None, problems
    mean, stddev, lo, hi = got["mean"], got["stddev"], got["min"], got["max"]
    fd = format_duration
    if stddev == 0:
        return None, [(f"{path}.stddev", "must be > 0 (a fixed time is written compute: DURATION)")]
    if lo > hi:
        return None, [(path, f"min {fd(lo)} is above max {fd(hi)}")]
    if not lo <= mean <= hi:
        return None, [(f"{path}.mean", f"{fd(mean)} is outside [min, max] = [{fd(lo)}, {fd(hi)}]")]
    mass = normal_mass(mean, stddev, lo, hi)
    if mass < MIN_NORMAL_MASS:
        return None, [(path, f"[min, max] keeps only {100 * mass:.2g} % of the normal's draws (at least "
                             f"{100 * MIN_NORMAL_MASS:g} %): widen it or lower stddev")]
    return Normal(mean, stddev, lo, hi, seed), []


def _empirical(value: Any, path: str, seed: int) -> tuple[Demand | None, Problems]:
    if not isinstance(value, list) or not value:
        return None, [(path, f"expected a non-empty list of durations (the observed values), got {describe(value)}")]
    values: list[int] = []
    problems: Problems = []
    for i, item in enumerate(value):
        ns, errs = _duration(item, f"{path}[{i}]")
        problems += errs
        if ns is not None:
            values.append(ns)
    return (None, problems) if problems else (Empirical(tuple(values), seed), [])


def _sequence(value: Any, path: str) -> tuple[Demand | None, Problems]:
    if not isinstance(value, list) or not value:
        return None, [(path, f"expected a non-empty list of [jobs, duration] steps, got {describe(value)}")]
    steps: list[tuple[int, int]] = []
    problems: Problems = []
    for i, item in enumerate(value):
        if (not isinstance(item, list) or len(item) != 2 or isinstance(item[0], bool) or not isinstance(item[0], int)
                or item[0] < 1):
            problems.append((f"{path}[{i}]", f"expected [jobs >= 1, duration], got {describe(item)}"))
            continue
        ns, errs = _duration(item[1], f"{path}[{i}][1]")
        problems += errs
        if ns is not None:
            steps.append((item[0], ns))
    if not problems and sum(count for count, _ in steps) > MAX_JOB_DURATIONS:
        problems.append((path, f"more than {MAX_JOB_DURATIONS} jobs in one cycle"))
    return (None, problems) if problems else (Sequence(tuple(steps)), [])


def _trace(data: dict[str, Any], path: str, base_dir: Path | None) -> tuple[Demand | None, Problems]:
    tpath = f"{path}.trace"
    source = data["trace"]
    if not isinstance(source, str) or not source.strip():
        return None, [(tpath, f"expected the path of a CSV file, got {describe(source)}")]
    column = data.get("column")
    if column is not None and not isinstance(column, str):
        return None, [(f"{path}.column", f"expected a column name, got {describe(column)}")]
    at_end = data.get("at_end", "cycle")
    if at_end not in AT_END:
        return None, [(f"{path}.at_end", f"expected one of {', '.join(AT_END)}, got {describe(at_end)}")]
    file = Path(source)
    if not file.is_absolute():
        file = (base_dir if base_dir is not None else Path.cwd()) / file
    try:
        column, values = read_trace_column(file, source, column)
    except TraceError as err:
        return None, [(tpath, str(err))]
    return Trace(str(file.resolve()), column, values, at_end), []


def parse_compute(value: dict[str, Any], path: str, base_dir: Path | None) -> tuple[Compute | None, Problems]:
    """``compute: {KIND: ..., seed/column/at_end}`` at ``path`` (see the module doc; a fixed
    ``compute: 2ms`` is an ordinary duration, read by validate.py)."""
    problems = [(f"{path}.{k}", f"unknown key (keys: {', '.join(sorted(COMPUTE_KEYS))})")
                for k in value if k not in COMPUTE_KEYS]
    kinds = [k for k in DEMAND_KINDS if k in value]
    if len(kinds) != 1:
        return None, problems + [(path, f"expected a mapping with one of {', '.join(DEMAND_KINDS)}, or a duration"
                                        + (f"; got {', '.join(kinds)}" if kinds else ""))]
    kind = kinds[0]
    if kind in _REPLAYED:
        replayed = "rows" if kind == "trace" else "steps"
        problems += [(f"{path}.seed", f"a {kind} has no seed: its {replayed} are replayed in order")] if "seed" in value else []
    if kind != "trace":
        problems += [(f"{path}.{k}", "only for a trace") for k in ("column", "at_end") if k in value]
    demand: Demand | None
    if kind == "trace":
        demand, more = _trace(value, path, base_dir)
    elif kind == "sequence":
        demand, more = _sequence(value[kind], f"{path}.{kind}")
    else:
        seed, more = _seed(value, path)
        reader = {"uniform": _uniform, "normal": _normal, "empirical": _empirical}[kind]
        demand, read = reader(value[kind], f"{path}.{kind}", seed if seed is not None else DEFAULT_SEED)
        more += read
    problems += more
    if problems or demand is None:
        return None, problems
    if demand.max_ns <= 0:
        return None, [(f"{path}.{kind}", "every job would compute 0: the maximum must be > 0")]
    return Compute(demand.max_ns, demand), []


def trace_job_limit(body: list[Any]) -> int | None:
    """The most jobs a body's ``stop`` traces allow (the shortest such trace), None without one."""
    lengths = [len(a.demand.values_ns) for a in body
               if isinstance(a, Compute) and isinstance(a.demand, Trace) and a.demand.at_end == "stop"]
    return min(lengths) if lengths else None
