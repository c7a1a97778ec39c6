"""Read a task-set file (YAML or JSON) into the model.

The format is chosen by extension (``.yaml``/``.yml``, ``.json``), or for
any other name by content (a document starting with ``{`` is JSON, anything
else YAML). Syntax errors and duplicate keys are reported with line and
column; everything else by ``rtsched.model.validate`` with its path. YAML
and JSON go through the same validator, so the same set written in either
gives equal models.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from rtsched.model.model import TaskSet
from rtsched.model.nesting import MAX_DEPTH, too_deep_path, too_deep_position
from rtsched.model.validate import TaskSetError, taskset_from_dict

__all__ = ["load_taskset", "loads_taskset", "read_document", "parse_document", "detect_format"]


# libyaml's parser when PyYAML was built with it (5x faster on a large set), else PyYAML's own.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[misc,valid-type]  # PyYAML ships no types
    """The safe loader, refusing duplicate keys (PyYAML keeps the last one silently)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
    loader.flatten_mapping(node)
    result: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                "found an unhashable key", key_node.start_mark,
            ) from None
        if key in result:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                f"found duplicate key {key!r}", key_node.start_mark,
            )
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping
)


def detect_format(text: str, filename: str | None = None) -> str:
    """``"json"`` or ``"yaml"``: by the file's extension, else by its content."""
    if filename:
        suffix = Path(filename).suffix.lower()
        if suffix in (".yaml", ".yml"):
            return "yaml"
        if suffix == ".json":
            return "json"
    return "json" if text.lstrip().startswith("{") else "yaml"


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f'duplicate key "{key}"')
        result[key] = value
    return result


def parse_document(text: str, fmt: str, source: str = "<string>") -> Any:
    """Parse YAML or JSON text into plain data; syntax errors become TaskSetError with line:column,
    and so does nesting deeper than MAX_DEPTH (with its key path when the text could be read)."""
    try:
        data = _parse(text, fmt, source)
    except RecursionError:
        position = too_deep_position(text)
        where = f"line {position[0]}, column {position[1]}: " if position else ""
        raise TaskSetError([f"{where}nested deeper than {MAX_DEPTH} levels (mappings and lists): "
                            "a task set needs fewer than 10"], source) from None
    path = too_deep_path(data)
    if path is not None:
        raise TaskSetError([f"{path}: nested deeper than {MAX_DEPTH} levels (mappings and lists): "
                            "a task set needs fewer than 10"], source)
    return data


def _parse(text: str, fmt: str, source: str) -> Any:
    if fmt == "json":
        try:
            return json.loads(text, object_pairs_hook=_json_pairs)
        except json.JSONDecodeError as e:
            raise TaskSetError([f"line {e.lineno}, column {e.colno}: invalid JSON: {e.msg}"], source) from None
        except ValueError as e:  # duplicate key from _json_pairs
            raise TaskSetError([f"invalid JSON: {e}"], source) from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a safe loader subclass
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        what = e.problem or "syntax error"
        context = f" ({e.context})" if e.context else ""
        raise TaskSetError([f"{where}invalid YAML: {what}{context}"], source) from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow, by offset
        line = text.count("\n", 0, e.position) + 1
        column = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
        raise TaskSetError([f"line {line}, column {column}: invalid YAML: the character U+{e.character:04X} is "
                            "not allowed (control characters must be escaped in a quoted string)"], source) from None
    except yaml.YAMLError as e:
        raise TaskSetError([f"invalid YAML: {' '.join(str(e).split())}"], source) from None


def read_document(path: str | Path) -> Any:
    """Read a YAML or JSON file into plain data (no validation)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TaskSetError(["cannot read: no such file"], str(path)) from None
    except IsADirectoryError:
        raise TaskSetError(["cannot read: is a directory"], str(path)) from None
    except OSError as e:
        raise TaskSetError([f"cannot read: {e.strerror or e}"], str(path)) from None
    except UnicodeDecodeError as e:
        raise TaskSetError([f"cannot read: not UTF-8 text (byte {e.start})"], str(path)) from None
    return parse_document(text, detect_format(text, path.name), str(path))


def loads_taskset(text: str, fmt: str | None = None, *, source: str = "<string>") -> TaskSet:
    """A TaskSet from YAML or JSON text (``fmt`` ``"yaml"``/``"json"``, or None to detect)."""
    data = parse_document(text, fmt or detect_format(text), source)
    return taskset_from_dict(data, source=source)


def load_taskset(path: str | Path) -> TaskSet:
    """Read, validate and build the TaskSet in ``path``; raise TaskSetError listing every problem.

    An rt-app file (JSON whose ``tasks`` is an object, docs/from-rtapp.md) is imported; its
    warnings go to standard error as ``PATH:LINE:COLUMN: warning: ...``.
    """
    path = Path(path)
    if path.suffix.lower() == ".json" and _is_rtapp_file(path):
        from rtsched.model.rtapp import RtAppImportError, import_rtapp, located

        try:
            taskset, _, warnings = import_rtapp(path)
        except RtAppImportError as e:  # its warnings first: they may explain an error
            for warning in e.warnings:
                print(located(str(path), warning, warning=True), file=sys.stderr)
            raise
        for warning in warnings:
            print(located(str(path), warning, warning=True), file=sys.stderr)
        return taskset
    data = read_document(path)
    return taskset_from_dict(data, source=str(path), base_dir=path.parent)


def _is_rtapp_file(path: Path) -> bool:
    from rtsched.model.rtapp import is_rtapp_text

    try:
        return is_rtapp_text(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False  # read_document reports it
