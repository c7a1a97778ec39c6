"""What may import what inside the Python package (docs/architecture.md), checked on the
source: every import, at module level or inside a function, of one part of rtsched by
another must be in ALLOWED. A producer of traces never reaches the report through the
runner, and the report never imports the runner. The producers of traces (``run``, the C
runner; ``sim``, the simulator) import neither the analysis nor the report: the pipeline
(``pipeline``) alone joins them (issue 36)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "rtsched"

#: Part -> the parts it may import (a part: a subpackage or a top-level module of rtsched;
#: "rtsched" is the package's own __init__). "analysis.results" alone: the result types.
ALLOWED: dict[str, set[str]] = {
    "rtsched": set(),
    "cpus": set(),
    "lifetime": set(),
    "native": {"lifetime"},
    "outputs": set(),
    "trace": set(),
    "model": {"cpus"},
    "analysis": {"model", "cpus", "native"},
    "report": {"model", "trace", "analysis.results", "outputs", "lifetime", "native"},
    "measure": {"rtsched", "cpus", "native", "trace", "lifetime", "outputs"},
    "producer": {"model", "trace"},
    "run": {"model", "trace", "measure", "native", "cpus", "outputs", "producer"},
    "litmus": {"trace", "report"},
    "cpufreq": {"cpus"},
    "sim": {"model", "trace", "cpus", "native", "outputs", "producer"},
    "pipeline": {"model", "analysis", "report", "trace", "producer", "run", "sim", "outputs"},
    "sweep": {"rtsched", "analysis", "model", "cpus", "lifetime", "outputs"},
    "tlb": {"analysis", "outputs"},
    "cli": {"rtsched", "model", "analysis", "trace", "report", "measure", "run", "sim", "pipeline", "producer",
            "sweep", "native", "cpus", "cpufreq", "tlb", "outputs"},
}


def _part(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return "rtsched" if rel.parts == ("__init__.py",) else rel.parts[0].removesuffix(".py")


def _imported(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return [n for n in names if n == "rtsched" or n.startswith("rtsched.")]


def _allowed(importer: str, module: str) -> bool:
    parts = module.split(".")
    target = "rtsched" if len(parts) == 1 else parts[1]
    if target == importer:
        return True
    allowed = ALLOWED[importer]
    return target in allowed or ".".join(parts[1:3]) in allowed


def test_every_part_is_listed():
    parts = {_part(p) for p in PACKAGE.rglob("*.py")}
    assert parts == set(ALLOWED), "a new part of the package: add it to ALLOWED and docs/architecture.md"


def test_parts_import_only_what_the_layers_allow():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = _part(path)
        for module in _imported(ast.parse(path.read_text(), str(path))):
            if not _allowed(importer, module):
                wrong.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert wrong == []


def test_the_check_sees_a_forbidden_import():
    assert not _allowed("report", "rtsched.run.producer")
    assert not _allowed("report", "rtsched.analysis.registry")
    assert _allowed("report", "rtsched.analysis.results")
    assert not _allowed("model", "rtsched.report")
    assert not _allowed("report", "rtsched.sim")
    assert not _allowed("sim", "rtsched.run")
    assert not _allowed("sim", "rtsched.analysis.registry")
    assert not _allowed("report", "rtsched.sweep")


def test_the_producers_import_neither_the_analysis_nor_the_report():
    """issue 36: run/ and sim/ are producers behind rtsched.producer; bounds and the report
    are the pipeline's."""
    for producer in ("run", "sim"):
        for module in ("rtsched.analysis", "rtsched.analysis.results", "rtsched.analysis.overheads",
                       "rtsched.report", "rtsched.report.excess", "rtsched.pipeline"):
            assert not _allowed(producer, module), (producer, module)
    assert not _allowed("pipeline", "rtsched.cli.run")
    assert not _allowed("producer", "rtsched.run")
