"""How deeply a task-set document may nest, checked without recursion.

A task set nests a few levels (the examples reach 8: set, tasks, a task, its
body, an action, its arguments). Python's JSON and YAML readers recurse once
per level and fail with ``RecursionError`` near a thousand; the validator
recurses too. So a document is refused at ``MAX_DEPTH`` levels with the place
it goes too deep: a key path when it could be read, a line and column when
the reader itself ran out of stack.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_DEPTH", "too_deep_path", "too_deep_position"]

#: The deepest nesting of mappings and lists a task-set document may have.
MAX_DEPTH = 64

# A quoted string (skipped whole, so brackets inside it do not count), or one bracket.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[\[\]{}]')


def too_deep_path(data: Any) -> str | None:
    """The key path of the first value nested deeper than MAX_DEPTH (``tasks[0].body[2]``), else None."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:  # depths only: the path is built for a refusal, not for every value
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth == MAX_DEPTH:
                    return _path_to_depth(data)
                stack.append((child, depth + 1))
    return None


def _path_to_depth(data: Any) -> str:
    """The path of the first container (in document order) at depth MAX_DEPTH + 1."""
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return path
        if isinstance(value, dict):
            children = [(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()]
        elif isinstance(value, list):
            children = [(v, f"{path}[{i}]") for i, v in enumerate(value)]
        else:
            continue
        stack.extend((v, p, depth + 1) for v, p in reversed(children) if isinstance(v, (dict, list)))
    raise AssertionError("too_deep_path found a container deeper than this one finds")


def too_deep_position(text: str) -> tuple[int, int] | None:
    """(line, column) of the bracket that opens level MAX_DEPTH + 1 of the text's flow-style
    ({...} and [...]) nesting, or None when its brackets stay within MAX_DEPTH."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                start = match.start()
                line = text.count("\n", 0, start) + 1
                return line, start - (text.rfind("\n", 0, start) + 1) + 1
        elif token in "]}":
            depth -= 1
    return None
