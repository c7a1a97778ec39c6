"""summary.json, written once per experiment, by this one writer (docs/architecture.md)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from rtsched.outputs import write_text
from rtsched.pipeline.result import Result

__all__ = ["write_summary"]


def write_summary(result: Result, *, files: dict[str, Path] | None = None,
                  appended: dict[str, Any] | None = None) -> Result:
    """Write ``result``'s summary.json, once: the report's summary with what the producer
    knows, the bounds' overheads, the files (``files`` added) and ``appended`` at its end.
    A result without a report has none."""
    if result.report is None:
        return result
    production = result.production
    all_files = {**result.files, **(files or {}), "summary.json": result.out_dir / "summary.json"}
    summary = {
        **result.report.summary(
            **production.summary_head,
            overheads=result.bounds.summary(),
            **production.summary_tail,
            files={k: str(v) for k, v in sorted(all_files.items())},
        ),
        **(appended or {}),
    }
    write_text(all_files["summary.json"], json.dumps(summary, indent=2) + "\n")
    return replace(result, summary=summary, files=all_files)
