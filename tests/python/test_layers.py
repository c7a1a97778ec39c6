"""What may import what inside the Python package (docs/architecture.md), checked on the
source: every import, at module level or inside a function, of one part of rtsched by
another must be in ALLOWED. A producer of traces never reaches the report through the
runner, and the report never imports the runner."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "rtsched"

#: Part -> the parts it may import (a part: a subpackage or a top-level module of rtsched;
#: "rtsched" is the package's own __init__). "analysis.results" alone: the result types.
ALLOWED: dict[str, set[str]] = {
    "rtsched": set(),
    "cpus": set(),
    "native": set(),
    "outputs": set(),
    "trace": set(),
    "model": {"cpus"},
    "analysis": {"model", "cpus", "native"},
    "report": {"model", "trace", "analysis.results", "outputs"},
    "measure": {"rtsched", "cpus", "native", "trace", "outputs"},
    "run": {"model", "analysis", "trace", "report", "measure", "native", "cpus", "outputs"},
    "litmus": {"trace", "report"},
    "cpufreq": {"cpus"},
    "sim": {"model", "trace", "report", "cpus", "native", "analysis.results", "analysis.overheads", "outputs"},
    "sweep": {"rtsched", "analysis", "model", "cpus", "outputs"},
    "tlb": {"analysis", "outputs"},
    "cli": {"rtsched", "model", "analysis", "trace", "report", "measure", "run", "sim", "sweep", "native", "cpus",
            "cpufreq", "tlb", "outputs"},
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
    assert not _allowed("report", "rtsched.run.session")
    assert not _allowed("report", "rtsched.analysis.registry")
    assert _allowed("report", "rtsched.analysis.results")
    assert not _allowed("model", "rtsched.report")
    assert not _allowed("report", "rtsched.sim")
    assert not _allowed("sim", "rtsched.run")
    assert not _allowed("sim", "rtsched.analysis.registry")
    assert not _allowed("report", "rtsched.sweep")
