"""How every command reports a file that does not validate: each error on its own line,
prefixed with the file, then a count (``rtsched run``, ``sim``, ``io``, ``validate``
print the same, so a user and the tests see one form)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["print_invalid"]


def print_invalid(path: object, errors: Sequence[str]) -> None:
    """``PATH: error`` per error, then ``PATH: invalid (N errors)``, on stderr."""
    for error in errors:
        print(f"{path}: {error}", file=sys.stderr)
    print(f"{path}: invalid ({len(errors)} error{'s' if len(errors) != 1 else ''})", file=sys.stderr)
