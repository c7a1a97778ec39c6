"""Import rt-app workload files (github.com/scheduler-tools/rt-app) as rtsched task sets.

    from rtsched.model.rtapp import import_rtapp, is_rtapp_text
    taskset, document, warnings = import_rtapp("workload.json")

- reader.py: the JSON syntax rt-app accepts, read as rt-app reads it (json-c's: comments,
  trailing commas, single quotes; a repeated key's last value in its first place; text after
  the document ignored), with positions;
- dropped.py: a warning for each value and text json-c drops;
- events.py: rt-app's events and the actions each becomes;
- writes.py: ``mem`` and ``iorun`` (with ``global`` settings and each one's WCET);
- fork.py: ``fork`` from launcher threads;
- threads.py: a thread and its phases -> tasks;
- importer.py: the whole set (global keys, barriers, platform, validation).

What maps, what is adapted and what is refused: docs/from-rtapp.md. Every
error and warning starts with ``line:column`` of the key it is about.
"""

from __future__ import annotations

from typing import Any, Callable

import json
import re
from pathlib import Path

from rtsched.model.model import TaskSet
from rtsched.model.rtapp.events import RT_APP_EVENTS, event_kind
from rtsched.model.rtapp.importer import RtAppImportError, rtapp_document
from rtsched.model.rtapp.reader import JObject, RtAppSyntaxError, read_rtapp, read_rtapp_json
from rtsched.model.validate import TaskSetError, taskset_from_dict

__all__ = ["RT_APP_EVENTS", "RtAppImportError", "event_kind", "import_rtapp", "is_rtapp_text", "loads_rtapp", "located"]


def located(source: str, message: str, *, warning: bool = False) -> str:
    """``FILE:LINE:COLUMN: [warning: ]...`` for a message that starts with ``LINE:COLUMN: ``."""
    head, sep, rest = message.partition(": ")
    line, colon, column = head.partition(":")
    if sep and colon and line.isdigit() and column.isdigit():
        return f"{source}:{head}: {'warning: ' if warning else ''}{rest}"
    return f"{source}: {'warning: ' if warning else ''}{message}"


# "tasks": { with blanks or json-c's comments between: what every rt-app file has.
_BLANK = r"(?:\s|/\*.*?\*/|//[^\n]*)*"
_TASKS_OBJECT = re.compile(rf"""["']tasks["']{_BLANK}:{_BLANK}\{{""", re.S)
# "global": { or "resources": {: an rt-app fragment without tasks (rt-app's doc/examples/merge/).
_RTAPP_OBJECT = re.compile(rf"""["'](?:tasks|global|resources)["']{_BLANK}:{_BLANK}\{{""", re.S)


def _rtapp_root(get: Callable[[str], Any]) -> bool:
    """``tasks`` an object; or no ``tasks``, ``name`` or ``platform`` and rt-app's ``global`` or ``resources``
    object: a fragment, which rt-app refuses, as the importer does, for having no tasks."""
    tasks = get("tasks")
    if tasks is not None:
        return isinstance(tasks, (dict, JObject))
    if get("name") is not None or get("platform") is not None:
        return False
    return any(isinstance(get(key), (dict, JObject)) for key in ("global", "resources"))


def is_rtapp_text(text: str) -> bool:
    """True when the text is an rt-app file: a JSON object whose ``tasks`` is an object.

    (An rtsched task set's ``tasks`` is a list.) So is an object with rt-app's ``global`` or
    ``resources`` object and no ``tasks``, ``name`` or ``platform``: a fragment of an rt-app file,
    refused as rt-app refuses it. Text with a syntax error counts as rt-app when it has
    ``"tasks": {``, so that the error comes from the reader that accepts rt-app's syntax.
    """
    if _RTAPP_OBJECT.search(text) is None:  # an rtsched set's "tasks": [ (the common case, read once)
        return False
    try:  # strict JSON first: the standard reader is 50x faster than rt-app's on a large set
        plain = json.loads(text)
    except (ValueError, RecursionError):
        pass
    else:
        return isinstance(plain, dict) and _rtapp_root(plain.get)
    try:
        root = read_rtapp_json(text)
    except RtAppSyntaxError:
        return _TASKS_OBJECT.search(text) is not None
    if not isinstance(root, JObject):
        return False
    return _rtapp_root(lambda key: None if (m := root.get(key)) is None else m.value)


def loads_rtapp(text: str, *, name: str = "rtapp", source: str = "<string>",
                default_policy: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """The rtsched document for rt-app text, and warnings. Raises TaskSetError (each error with line:column).

    ``default_policy`` replaces the file's ``global.default_policy`` when given.
    """
    try:
        read = read_rtapp(text)
    except RtAppSyntaxError as e:
        raise TaskSetError([str(e)], source) from None
    return rtapp_document(read, name=name, source=source, default_policy=default_policy)


def import_rtapp(path: str | Path) -> tuple[TaskSet, dict[str, Any], list[str]]:
    """Import an rt-app file: (model, rtsched document, warnings). Raises TaskSetError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise TaskSetError([f"cannot read: {e.strerror or e}"], str(path)) from None
    except UnicodeDecodeError as e:
        raise TaskSetError([f"cannot read: not UTF-8 text (byte {e.start})"], str(path)) from None
    doc, warnings = loads_rtapp(text, name=path.stem, source=str(path))
    return taskset_from_dict(doc, source=str(path)), doc, warnings
