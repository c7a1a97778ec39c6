"""A JSON reader that accepts what rt-app's parser (json-c, non-strict mode) accepts.

rt-app reads its files with json-c's tokener in its default, non-strict
mode, so real rt-app files carry things Python's ``json`` refuses:

- ``/* block */`` and ``// line`` comments anywhere whitespace may go;
- a trailing comma before ``}`` or ``]``;
- strings in single quotes as well as double quotes;
- ``true`` / ``false`` / ``null`` in any letter case, and ``NaN`` /
  ``Infinity`` / ``-Infinity``.

And one thing json-c itself does not keep but rt-app's users rely on:
**repeated keys**. rt-app's tutorial writes an event sequence as repeated
``"run"`` / ``"sleep"`` keys and lets its ``workgen`` front end number them
before rt-app reads the file; json-c alone would keep one value per key.
This reader keeps every member, in file order, with the position of its
key, and leaves numbering to the importer.

The result: objects are :class:`JObject` (members in order, duplicates
kept), arrays are lists, strings ``str``, integers ``int``, other numbers
``float``, literals ``True`` / ``False`` / ``None``. Every member carries
the line and column (1-based) of its key, so the importer can say where a
problem is. Syntax errors raise :class:`RtAppSyntaxError` with the position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["JObject", "Member", "RtAppSyntaxError", "read_rtapp_json"]


class RtAppSyntaxError(ValueError):
    """Text that json-c would refuse too; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int):
        self.message = message
        self.line = line
        self.column = column
        super().__init__(f"{line}:{column}: invalid JSON: {message}")


@dataclass(frozen=True)
class Member:
    """One ``"key": value`` of an object, with the position of its key."""

    key: str
    value: Any
    line: int
    column: int

    @property
    def where(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass
class JObject:
    """A JSON object as written: members in file order, repeated keys kept."""

    members: list[Member] = field(default_factory=list)
    line: int = 1
    column: int = 1

    def __iter__(self) -> Iterator[Member]:
        return iter(self.members)

    def __len__(self) -> int:
        return len(self.members)

    def get(self, key: str) -> Member | None:
        """The last member named ``key`` (json-c keeps the last value of a repeated key)."""
        found = None
        for member in self.members:
            if member.key == key:
                found = member
        return found

    def to_plain(self) -> dict[str, Any]:
        """A plain dict (last value of a repeated key wins), recursively; for messages and tests."""
        return {m.key: _plain(m.value) for m in self.members}


def _plain(value: Any) -> Any:
    if isinstance(value, JObject):
        return value.to_plain()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


MAX_DEPTH = 32  # json-c's default nesting limit (JSON_TOKENER_DEFAULT_DEPTH)
_LITERALS = {"true": True, "false": False, "null": None, "nan": math.nan, "infinity": math.inf}
_ESCAPES = {'"': '"', "'": "'", "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.depth = 0
        # offsets of line starts, for positions
        self.line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def where(self, pos: int | None = None) -> tuple[int, int]:
        pos = self.pos if pos is None else pos
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:  # last line start <= pos
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, pos - self.line_starts[lo] + 1

    def fail(self, message: str, pos: int | None = None) -> RtAppSyntaxError:
        line, column = self.where(pos)
        return RtAppSyntaxError(message, line, column)

    def skip_blank(self) -> None:
        """Skip whitespace and comments."""
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c in " \t\r\n\f\v":
                self.pos += 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("comment /* ... not closed by */")
                self.pos = end + 2
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end + 1
            else:
                return

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def value(self) -> Any:
        self.skip_blank()
        c = self.peek()
        if c in ("{", "["):
            if self.depth == MAX_DEPTH:
                raise self.fail(f"objects and arrays nested deeper than {MAX_DEPTH} (json-c's limit)")
            self.depth += 1
            result = self.object() if c == "{" else self.array()
            self.depth -= 1
            return result
        if c in ('"', "'"):
            return self.string()
        if c == "-" or c.isdigit():
            if self.text[self.pos + 1:self.pos + 9].lower() == "infinity":
                self.pos += 9
                return -math.inf
            return self.number()
        if c.isalpha():
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isalpha():
                self.pos += 1
            word = self.text[start:self.pos]
            if word.lower() in _LITERALS:
                return _LITERALS[word.lower()]
            raise self.fail(f"unexpected word {word!r} (a value is a string, number, object, array, "
                            "true, false or null)", start)
        if not c:
            raise self.fail("the text ends where a value was expected")
        raise self.fail(f"unexpected {c!r} where a value was expected")

    def object(self) -> JObject:
        line, column = self.where()
        obj = JObject(line=line, column=column)
        self.pos += 1  # {
        while True:
            self.skip_blank()
            c = self.peek()
            if c == "}":
                self.pos += 1
                return obj
            if c not in ('"', "'"):
                what = f"{c!r}" if c else "the end of the text"
                raise self.fail(f"expected a quoted key or }} in the object opened at {line}:{column}, "
                                f"found {what}")
            key_line, key_column = self.where()
            key = self.string()
            self.skip_blank()
            if self.peek() != ":":
                raise self.fail(f'expected ":" after the key "{key}"')
            self.pos += 1
            obj.members.append(Member(key, self.value(), key_line, key_column))
            self.skip_blank()
            c = self.peek()
            if c == ",":
                self.pos += 1  # a trailing comma before } is accepted, as json-c does
            elif c != "}":
                what = f"{c!r}" if c else "the end of the text"
                raise self.fail(f'expected "," or "}}" after the value of "{key}", found {what}')

    def array(self) -> list[Any]:
        line, column = self.where()
        items: list[Any] = []
        self.pos += 1  # [
        while True:
            self.skip_blank()
            c = self.peek()
            if c == "]":
                self.pos += 1
                return items
            if not c:
                raise self.fail(f"the array opened at {line}:{column} is not closed")
            items.append(self.value())
            self.skip_blank()
            c = self.peek()
            if c == ",":
                self.pos += 1
            elif c != "]":
                what = f"{c!r}" if c else "the end of the text"
                raise self.fail(f'expected "," or "]" in the array opened at {line}:{column}, found {what}')

    def string(self) -> str:
        quote = self.text[self.pos]
        start = self.pos
        self.pos += 1
        out: list[str] = []
        text = self.text
        while True:
            if self.pos >= len(text):
                raise self.fail("string not closed", start)
            c = text[self.pos]
            if c == quote:
                self.pos += 1
                return "".join(out)
            if c == "\\":
                e = text[self.pos + 1:self.pos + 2]
                if e in _ESCAPES:
                    out.append(_ESCAPES[e])
                    self.pos += 2
                elif e == "u":
                    code = self.hex4(self.pos + 2)
                    self.pos += 6
                    if 0xD800 <= code < 0xDC00 and text.startswith("\\u", self.pos):
                        low = self.hex4(self.pos + 2)
                        if 0xDC00 <= low < 0xE000:  # a surrogate pair: one character beyond U+FFFF
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            self.pos += 6
                    out.append(chr(code))
                else:
                    raise self.fail(f"unknown escape \\{e}")
            else:
                out.append(c)
                self.pos += 1

    def hex4(self, at: int) -> int:
        digits = self.text[at:at + 4]
        if len(digits) != 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise self.fail("\\u must be followed by 4 hexadecimal digits", at - 2)
        return int(digits, 16)

    def number(self) -> int | float:
        start = self.pos
        text = self.text
        if text[self.pos] == "-":
            self.pos += 1
        while self.pos < len(text) and (text[self.pos].isdigit() or text[self.pos] in ".eE+-"):
            if text[self.pos] in "+-" and text[self.pos - 1] not in "eE":
                break
            self.pos += 1
        literal = text[start:self.pos]
        try:
            if any(c in literal for c in ".eE"):
                return float(literal)
            return int(literal)
        except ValueError:
            raise self.fail(f"malformed number {literal!r}", start) from None

    def document(self) -> Any:
        result = self.value()
        self.skip_blank()
        if self.pos < len(self.text):
            raise self.fail(f"unexpected {self.text[self.pos]!r} after the end of the document")
        return result


def read_rtapp_json(text: str) -> Any:
    """Parse rt-app JSON text (json-c's non-strict syntax, repeated keys kept). Raises RtAppSyntaxError."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return _Reader(text).document()
