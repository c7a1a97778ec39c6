"""Helpers of the sweep tests: experiment files written to tmp_path, and rows as bytes."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa

LL_SWEEP = """\
name: ll-vs-rta
seed: 11
samples: 40
generator: {tasks: 4, utilizations: uunifast, periods: log-uniform}
grid:
  utilization: [0.3, 0.5, 0.7, 1.2]
tests: [fp-ll, fp-rta]
"""


def write(tmp_path: Path, text: str, name: str = "exp.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def table_bytes(table: pa.Table) -> bytes:
    """The rows serialized as one Arrow IPC record batch: equal bytes means equal rows, in order."""
    sink = io.BytesIO()
    combined = table.combine_chunks()
    with pa.ipc.new_stream(sink, combined.schema) as writer:
        writer.write_table(combined, max_chunksize=max(1, combined.num_rows))
    return sink.getvalue()
