"""Warnings for what rt-app's reader (json-c) drops from a file: replaced values of repeated keys, text after the end.

reader.py reads a file as json-c does, so the importer sees what rt-app runs. But a user who writes
``"run": 4000, ..., "run": 2000`` may mean two runs (rt-app's ``workgen`` script would number the keys
before rt-app reads them), and text after the document's end may be a second document glued on.
rt-app says nothing about either; rtsched says what was dropped, where, and how to keep it.
"""

from __future__ import annotations

from typing import Any

from rtsched.model.rtapp.events import Problems
from rtsched.model.rtapp.reader import JObject, Member, RtAppText
from rtsched.model.values import describe

__all__ = ["warn_dropped"]


def _shown(value: Any) -> str:
    return "an object" if isinstance(value, JObject) else describe(value)


def _walk(value: Any, path: str, problems: Problems) -> None:
    if isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, f"{path}[{i}]", problems)
    if not isinstance(value, JObject):
        return
    for old in value.replaced:
        kept: Member | None = value.get(old.key)
        assert kept is not None  # a replaced member's key stays in the object
        problems.warn(old, f"{path}.{old.key}" if path else old.key,
                      f"repeated key: rt-app (json-c) keeps only its last value, {_shown(kept.value)} at "
                      f"{kept.where}, in this key's place, and drops {_shown(old.value)}; to keep every value, "
                      f'number the keys ("{old.key}0", "{old.key}1", ...), as rt-app\'s workgen script does')
    for member in value:
        _walk(member.value, f"{path}.{member.key}" if path else member.key, problems)


def warn_dropped(read: RtAppText, problems: Problems) -> None:
    """A warning for every value a repeated key replaced, and for text after the document."""
    _walk(read.root, "", problems)
    if read.ignored_from is not None:
        line, column = read.ignored_from
        problems.warnings.append(f"{line}:{column}: (after the document): text after the end of the top object "
                                 "is ignored, as rt-app (json-c) ignores it")
