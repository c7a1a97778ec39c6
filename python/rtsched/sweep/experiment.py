"""An experiment file: what to generate, the grid to sweep, the tests to run (docs/sweep.md).

    seed: 1
    samples: 200                 # task sets per grid point
    generator: {tasks: 10, utilizations: uunifast, periods: log-uniform}
    grid: {utilization: {from: 0.5, to: 1.0, step: 0.05}}
    tests: [fp-ll, fp-rta]

:func:`load_experiment` checks the whole file and raises one
:class:`ExperimentError` listing every problem with its path
(``grid.utilization[3]: ...``); unknown keys are errors, an unknown test
names the registry's tests. The result, :class:`Experiment`, is frozen and
picklable (it travels to the workers, local or Dask).

Invariant: :meth:`Experiment.points` is a pure function of the file, in a
fixed order (the grid's keys in file order, the last varying fastest), and
every point holds every generator parameter (:data:`PARAMS`), resolved.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from rtsched.analysis.generators import UTILIZATION_METHODS
from rtsched.analysis.overheads import Overheads, OverheadsError, load_overheads
from rtsched.analysis.registry import TESTS
from rtsched.analysis.tasks import KNOWN_PROTOCOLS
from rtsched.model.load import parse_document
from rtsched.model.validate import TaskSetError

__all__ = ["PARAMS", "Experiment", "ExperimentError", "TestSpec", "load_experiment", "loads_experiment"]

TOP_KEYS = ("name", "seed", "samples", "generator", "grid", "tests")
TEST_KEYS = ("name", "label", "options", "overheads")
SCHEDULERS = ("FP", "EDF", "G-FP", "G-EDF", "P-FP", "P-EDF")
MAX_GRID_POINTS = 100_000


class ExperimentError(Exception):
    """An experiment file that cannot be run: every problem, each with its path in the file."""

    def __init__(self, problems: list[str], source: str) -> None:
        self.problems = problems
        self.source = source
        super().__init__("\n".join(f"{source}: {p}" for p in problems))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (_is_int(v) or isinstance(v, float)) and math.isfinite(v)


@dataclass(frozen=True, slots=True)
class Param:
    """One generator parameter: its kind (``int``, ``float``, ``str``), default and check."""

    kind: str
    default: Any
    check: Callable[[Any], str | None]
    doc: str


def _int_at_least(low: int) -> Callable[[Any], str | None]:
    return lambda v: None if _is_int(v) and v >= low else f"expected an integer >= {low}, got {v!r}"


def _positive(v: Any) -> str | None:
    return None if _is_number(v) and v > 0 else f"expected a positive number, got {v!r}"


def _probability(v: Any) -> str | None:
    return None if _is_number(v) and 0 <= v <= 1 else f"expected a number in [0, 1], got {v!r}"


def _one_of(*choices: str) -> Callable[[Any], str | None]:
    return lambda v: None if v in choices else f"expected one of {', '.join(choices)}, got {v!r}"


#: Every generator parameter (a key of ``generator:`` or of ``grid:``); each becomes a column of the results.
PARAMS: dict[str, Param] = {
    "tasks": Param("int", 10, _int_at_least(1), "tasks per set"),
    "utilization": Param("float", None, _positive, "total utilization (or give utilization_per_cpu)"),
    "utilization_per_cpu": Param("float", None, _positive, "total utilization divided by cpus"),
    "utilizations": Param("str", "uunifast", _one_of(*UTILIZATION_METHODS),
                          "how the total is split: UUniFast (-discard when the total is above 1), "
                          "UUniFast-discard (no task above 1), RandFixedSum (the same, drawn directly)"),
    "periods": Param("str", "log-uniform", _one_of("log-uniform", "uniform"), "period distribution"),
    "period_min_ms": Param("float", 10, _positive, "shortest period"),
    "period_max_ms": Param("float", 1000, _positive, "longest period"),
    "deadlines": Param("str", "implicit", _one_of("implicit", "constrained"),
                       "D = T, or D uniform in [C, T] (deadline-monotonic priorities)"),
    "scheduler": Param("str", "FP", _one_of(*SCHEDULERS), "FP, EDF, G-FP, G-EDF, P-FP, P-EDF"),
    "cpus": Param("int", 1, _int_at_least(1), "processors"),
    "partitioning": Param("str", "worst-fit", _one_of("first-fit", "worst-fit", "best-fit"),
                          "P-FP / P-EDF: the bin-packing heuristic (decreasing utilization)"),
    "resources": Param("int", 0, _int_at_least(0), "shared resources"),
    "p_access": Param("float", 0.3, _probability, "probability that a task uses a resource"),
    "cs_min_us": Param("float", 1, _positive, "shortest critical section"),
    "cs_max_us": Param("float", 100, _positive, "longest critical section"),
    "protocol": Param("str", "pcp", _one_of(*KNOWN_PROTOCOLS), "every resource's locking protocol"),
}


@dataclass(frozen=True, slots=True)
class TestSpec:
    """A test of the registry to run on every set: ``label`` names its rows (default: the test's name)."""

    name: str
    label: str
    options: tuple[tuple[str, Any], ...] = ()
    overheads: Overheads | None = None
    overheads_file: str | None = None


@dataclass(frozen=True, slots=True)
class Experiment:
    """A checked experiment file. ``grid`` keeps the file's order of keys and of values."""

    name: str
    seed: int
    samples: int
    generator: tuple[tuple[str, Any], ...]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]
    tests: tuple[TestSpec, ...]
    text: str
    source: str

    @property
    def sha256(self) -> str:
        """The file's text, hashed: what a results folder is tied to."""
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def grid_keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.grid)

    def points(self) -> list[dict[str, Any]]:
        """Every grid point, each with every parameter resolved (see :func:`resolve_point`)."""
        base = dict(self.generator)
        combos = itertools.product(*(values for _, values in self.grid))
        return [resolve_point({**base, **dict(zip(self.grid_keys, combo))}) for combo in combos]

    def point(self, index: int) -> dict[str, Any]:
        """``points()[index]``, without building the others (the grid read as a mixed-radix number)."""
        chosen = {}
        for key, values in reversed(self.grid):
            index, digit = divmod(index, len(values))
            chosen[key] = values[digit]
        if index:
            raise IndexError("grid point index out of range")
        return resolve_point({**dict(self.generator), **chosen})

    @property
    def total_sets(self) -> int:
        return math.prod(len(v) for _, v in self.grid) * self.samples


def resolve_point(given: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults filled in, ``utilization`` and ``utilization_per_cpu`` both set (the total and per CPU)."""
    point = {k: given.get(k, p.default) for k, p in PARAMS.items()}
    if point["utilization"] is None:
        point["utilization"] = round(point["utilization_per_cpu"] * point["cpus"], 12)
    else:
        point["utilization_per_cpu"] = round(point["utilization"] / point["cpus"], 12)
    for k, p in PARAMS.items():  # one type per column, whatever the file wrote (10 or 10.0)
        if p.kind == "float":
            point[k] = float(point[k])
    return point


def _point_problems(point: Mapping[str, Any], where: str) -> list[str]:
    out = []
    if point["period_max_ms"] < point["period_min_ms"]:
        out.append(f"{where}period_max_ms ({point['period_max_ms']}) is below period_min_ms ({point['period_min_ms']})")
    if point["cs_max_us"] < point["cs_min_us"]:
        out.append(f"{where}cs_max_us ({point['cs_max_us']}) is below cs_min_us ({point['cs_min_us']})")
    if point["utilization"] > point["tasks"]:
        out.append(f"{where}utilization {point['utilization']} cannot be split into {point['tasks']} tasks of at most 1")
    if point["scheduler"] in ("FP", "EDF") and point["cpus"] != 1:
        out.append(f"{where}scheduler {point['scheduler']} is uniprocessor but cpus is {point['cpus']}")
    return out


def _grid_values(key: str, spec: Any, problems: list[str]) -> tuple[Any, ...]:
    path = f"grid.{key}"
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - {"from", "to", "step"})
        if unknown or not {"from", "to", "step"} <= set(spec):
            problems.append(f"{path}: a range is {{from, to, step}}" + (f"; unknown key(s) {unknown}" if unknown else ""))
            return ()
        lo, hi, step = spec["from"], spec["to"], spec["step"]
        if not all(_is_number(v) for v in (lo, hi, step)) or step <= 0 or hi < lo:
            problems.append(f"{path}: from <= to and step > 0, all numbers (got {lo!r}, {hi!r}, {step!r})")
            return ()
        count = math.floor((hi - lo) / step + 1e-9) + 1
        if count > MAX_GRID_POINTS:
            problems.append(f"{path}: {count} values (at most {MAX_GRID_POINTS})")
            return ()
        if all(_is_int(v) for v in (lo, hi, step)):
            return tuple(lo + i * step for i in range(count))
        return tuple(round(lo + i * step, 10) for i in range(count))
    if isinstance(spec, list) and spec:
        if len(set(map(repr, spec))) != len(spec):
            problems.append(f"{path}: a value is repeated")
        return tuple(spec)
    problems.append(f"{path}: expected a non-empty list of values or {{from, to, step}}")
    return ()


def _test_spec(entry: Any, path: str, base: Path, problems: list[str]) -> TestSpec | None:
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        problems.append(f"{path}: expected a test name or {{name, label, options, overheads}}")
        return None
    for key in sorted(set(entry) - set(TEST_KEYS)):
        problems.append(f"{path}.{key}: unknown key (known: {', '.join(TEST_KEYS)})")
    name = entry.get("name")
    if name not in TESTS:
        problems.append(f"{path}.name: unknown test {name!r}; the registry's tests: {', '.join(sorted(TESTS))}")
        return None
    label = entry.get("label", name)
    if not isinstance(label, str) or not label:
        problems.append(f"{path}.label: expected a non-empty string")
        return None
    options = entry.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(k, str) and k.isidentifier() for k in options):
        problems.append(f"{path}.options: expected a mapping of option names to values")
        return None
    if "overheads" in options:
        problems.append(f"{path}.options.overheads: give the profile as {path}.overheads: FILE")
    overheads = None
    file = entry.get("overheads")
    if file is not None:
        if not isinstance(file, str):
            problems.append(f"{path}.overheads: expected a file name")
            return None
        try:
            overheads = load_overheads(base / file)
        except (OverheadsError, OSError, ValueError) as error:
            problems.append(f"{path}.overheads: {base / file}: {error}")
            return None
    return TestSpec(name, label, tuple(sorted(options.items())), overheads, file)


def loads_experiment(text: str, source: str = "<string>", base: Path | None = None) -> Experiment:
    """An Experiment from YAML text; ``base``: where relative file names (overheads) are found."""
    base = base if base is not None else Path(".")
    try:
        data = parse_document(text, "yaml", source)
    except TaskSetError as error:
        raise ExperimentError(list(error.errors), source) from None
    if not isinstance(data, dict):
        raise ExperimentError(["expected a mapping with seed, samples, generator, grid, tests"], source)
    problems: list[str] = []
    for key in sorted(set(data) - set(TOP_KEYS)):
        problems.append(f"{key}: unknown key (known: {', '.join(TOP_KEYS)})")
    for key in ("seed", "samples", "tests"):
        if key not in data:
            problems.append(f"{key}: missing")
    seed, samples, name = data.get("seed", 0), data.get("samples", 1), data.get("name", Path(source).stem)
    if not _is_int(seed) or not 0 <= seed < 2**63:
        problems.append(f"seed: expected an integer in [0, 2^63), got {seed!r}")
    if not _is_int(samples) or samples < 1:
        problems.append(f"samples: expected an integer >= 1, got {samples!r}")
    if not isinstance(name, str):
        problems.append(f"name: expected a string, got {name!r}")

    generator = data.get("generator", {})
    if not isinstance(generator, dict):
        problems.append("generator: expected a mapping of parameters")
        generator = {}
    grid_data = data.get("grid", {})
    if not isinstance(grid_data, dict):
        problems.append("grid: expected a mapping of parameter -> values")
        grid_data = {}
    for section, keys in (("generator", generator), ("grid", grid_data)):
        for key in keys:
            if key not in PARAMS:
                problems.append(f"{section}.{key}: unknown parameter (known: {', '.join(PARAMS)})")
    for key, value in generator.items():
        if key in PARAMS and (msg := PARAMS[key].check(value)):
            problems.append(f"generator.{key}: {msg}")
        if key in grid_data:
            problems.append(f"generator.{key}: also in grid (give it in one place)")
    grid = []
    for key, spec in grid_data.items():
        values = _grid_values(key, spec, problems)
        if key in PARAMS:
            for i, value in enumerate(values):
                if msg := PARAMS[key].check(value):
                    problems.append(f"grid.{key}[{i}]: {msg}")
        grid.append((key, values))
    given = set(generator) | set(grid_data)
    if len(given & {"utilization", "utilization_per_cpu"}) != 1:
        problems.append("generator: give exactly one of utilization and utilization_per_cpu (in generator or grid)")

    tests_data = data.get("tests", [])
    tests: list[TestSpec] = []
    if not isinstance(tests_data, list) or not tests_data:
        problems.append("tests: expected a non-empty list of tests of the registry")
    else:
        for i, entry in enumerate(tests_data):
            spec = _test_spec(entry, f"tests[{i}]", base, problems)
            if spec is not None:
                tests.append(spec)
        labels = [t.label for t in tests]
        for label in sorted({x for x in labels if labels.count(x) > 1}):
            problems.append(f"tests: label {label!r} is used twice (give each a distinct label)")
    if problems:
        raise ExperimentError(problems, source)

    experiment = Experiment(name, seed, samples, tuple(generator.items()), tuple(grid), tuple(tests), text, source)
    if len(experiment.points()) > MAX_GRID_POINTS:
        raise ExperimentError([f"grid: {len(experiment.points())} points (at most {MAX_GRID_POINTS})"], source)
    for index, point in enumerate(experiment.points()):
        where = f"grid point {index} ({', '.join(f'{k}={point[k]}' for k in experiment.grid_keys)}): "
        problems.extend(_point_problems(point, where))
    if problems:
        raise ExperimentError(problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else []),
                              source)
    return experiment


def load_experiment(path: str | Path) -> Experiment:
    """Read and check an experiment file (ExperimentError when it cannot be read or run)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ExperimentError([f"cannot read: {getattr(error, 'strerror', None) or error}"], str(path)) from None
    return loads_experiment(text, str(path), path.parent)
