"""Output files that are whole or absent: what every command writes goes through here.

A file is written under a temporary name beside its final one
(``.NAME.partial-PID.EXT``, so that a plotting library still sees the
extension) and renamed over the final name only once it is complete: a full
disk, a quota, a crash or a SIGKILL in between leaves no truncated
``jobs.csv`` or 0-byte ``schedule.png`` for a reader to take as a result.
On an error the temporary file is removed and the error re-raised as
``OutputError``, whose message names the file and, for a full disk, the
space left on its filesystem; ``rtsched`` prints it as one line.

    write_text(out / "summary.json", text)
    with partial(out / "schedule.png") as tmp:
        figure.savefig(tmp)
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["OutputError", "partial", "write_bytes", "write_text"]

_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class OutputError(OSError):
    """An output file could not be written; nothing is left under its name. The message says
    which file and why, in one line."""


def _free_space(directory: Path) -> str:
    try:
        st = os.statvfs(directory)
    except OSError:
        return ""
    return f" ({st.f_bavail * st.f_frsize / 1024:,.0f} KiB free on its filesystem)"


def _explained(error: OSError, path: Path) -> OutputError:
    why = error.strerror or str(error)
    if error.errno in _FULL:
        why += _free_space(path.parent)
    return OutputError(error.errno or 0, f"cannot write {path}: {why}")


@contextmanager
def partial(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; renamed to ``path`` when the block ends without
    an error, removed otherwise (OutputError for an OSError, with the file named)."""
    final = Path(path)
    tmp = final.with_name(f".{final.stem}.partial-{os.getpid()}{final.suffix}")
    try:
        yield tmp
        os.replace(tmp, final)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            raise _explained(error, final) from None
        raise


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """``text`` as the whole of ``path``, or nothing (see ``partial``)."""
    with partial(path) as tmp:
        tmp.write_text(text, encoding=encoding)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """``data`` as the whole of ``path``, or nothing (see ``partial``)."""
    with partial(path) as tmp:
        tmp.write_bytes(data)
