"""A JSON reader that reads what rt-app reads, as rt-app reads it (json-c's tokener, non-strict mode).

rt-app master reads its file with ``json_object_from_file`` (rt-app/src/rt-app_parse_config.c,
``parse_config``), which runs json-c's tokener with its default flags (not
``JSON_TOKENER_STRICT``) and its default depth. So real rt-app files carry things Python's
``json`` refuses, and json-c gives some text a meaning of its own. This reader follows it,
rule by rule (each checked against libjson-c itself: tests/python/test_rtapp_reader_jsonc.py):

- ``/* block */`` and ``// line`` comments wherever blank space may be (blank space is space,
  tab, CR and LF: form feed and vertical tab are not, nor are digits other than ASCII's);
- a trailing comma before ``}`` or ``]``;
- strings in single quotes as well as double quotes (``\\'`` is no escape in either);
- ``true`` / ``false`` / ``null`` in any letter case, ``NaN`` / ``Infinity`` / ``-Infinity``;
- a number's exponent without digits is dropped (``1.5e`` is 1.5); a lone UTF-16 surrogate
  escape becomes U+FFFD;
- values nested at most 32 deep, the top one included (json-c's ``JSON_TOKENER_DEFAULT_DEPTH``;
  so 32 nested arrays, but 31 nested objects around a number);
- **a repeated key keeps its first place and its last value**: json-c's tokener adds each member
  with ``json_object_object_add``, which replaces the value of a key already there without moving
  it. ``{"run": 4000, "unlock": "m", "run": 2000}`` is, for rt-app, ``run`` 2000 then ``unlock``.
  (rt-app's tutorial has its ``workgen`` script number repeated keys before rt-app reads a file;
  rt-app itself never sees them.) Each replaced member is kept in :attr:`JObject.replaced`, so
  the importer can warn about it;
- **text after the document is ignored**, from its first character that is neither blank space
  nor a comment: the tokener reads those, then stops, and ``json_object_from_file`` does not look
  further (but refuses a file that ends inside a comment: an unclosed ``/*``, or a ``//`` without
  its newline). :attr:`RtAppText.ignored_from` says where the ignored text starts;
- a byte-order mark at the start, and a NUL character in a string, are refused, as json-c refuses
  them.

The result: objects are :class:`JObject` (members in json-c's order, one per key), arrays are
lists, strings ``str``, integers ``int``, other numbers ``float``, literals ``True`` / ``False`` /
``None``. Every member carries the line and column (1-based) of its key (for a repeated key, of
the one whose value it has), so the importer can say where a problem is. Syntax errors raise
:class:`RtAppSyntaxError` with the position.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["JObject", "Member", "RtAppSyntaxError", "RtAppText", "read_rtapp", "read_rtapp_json"]


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
    """A JSON object as json-c keeps it: one member per key, in the order of each key's first place.

    ``replaced``: the members a repeated key's later value replaced (json-c drops them), in file order.
    """

    members: list[Member] = field(default_factory=list)
    line: int = 1
    column: int = 1
    replaced: list[Member] = field(default_factory=list)

    def __iter__(self) -> Iterator[Member]:
        return iter(self.members)

    def __len__(self) -> int:
        return len(self.members)

    def get(self, key: str) -> Member | None:
        """The member named ``key``, or None."""
        for member in self.members:
            if member.key == key:
                return member
        return None

    def add(self, member: Member) -> None:
        """Add a member as ``json_object_object_add`` does: a key already there keeps its place, takes the value."""
        for i, old in enumerate(self.members):
            if old.key == member.key:
                self.replaced.append(old)
                self.members[i] = member
                return
        self.members.append(member)

    def to_plain(self) -> dict[str, Any]:
        """A plain dict, recursively; for messages and tests."""
        return {m.key: _plain(m.value) for m in self.members}


def _plain(value: Any) -> Any:
    if isinstance(value, JObject):
        return value.to_plain()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class RtAppText:
    """A read document: its top value, and where text after it starts (json-c ignores it), if any."""

    root: Any
    ignored_from: tuple[int, int] | None


MAX_DEPTH = 32  # json-c's default nesting limit (JSON_TOKENER_DEFAULT_DEPTH), the top value included
_LITERALS = {"true": True, "false": False, "null": None, "nan": math.nan, "infinity": math.inf}
_BLANK = frozenset(" \t\n\r")  # json-c's is_ws_char: not \f nor \v
_DIGITS = frozenset("0123456789")  # ASCII only (str.isdigit() takes other scripts' digits too)
_NUMBER_CHARS = _DIGITS | frozenset(".eE+-")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


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
            if c in _BLANK:
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
        if self.depth == MAX_DEPTH and c:
            raise self.fail(f"values nested deeper than {MAX_DEPTH} (json-c's limit; the top value, numbers and "
                            "strings count)")
        if c in ("{", "["):
            self.depth += 1
            result = self.object() if c == "{" else self.array()
            self.depth -= 1
            return result
        if c in ('"', "'"):
            return self.string()
        if c == "-" or c in _DIGITS:
            if self.text[self.pos + 1:self.pos + 9].lower() == "infinity":
                self.pos += 9
                return -math.inf
            return self.number()
        if c.isascii() and c.isalpha():
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isascii() and \
                    self.text[self.pos].isalpha():
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
            obj.add(Member(key, self.value(), key_line, key_column))
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
            if c == "\0":
                raise self.fail("a NUL character in a string (json-c refuses it)")
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
                    out.append("\ufffd" if 0xD800 <= code < 0xE000 else chr(code))  # json-c: a lone half
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
        while self.pos < len(text) and text[self.pos] in _NUMBER_CHARS:
            if text[self.pos] in "+-" and text[self.pos - 1] not in "eE":
                break
            self.pos += 1
        literal = text[start:self.pos]
        is_double = any(c in literal for c in ".eE")  # json-c's rule, whatever float() would take
        bare_exponent = re.search(r"[eE][+-]?$", literal)
        if bare_exponent and literal[:bare_exponent.start()][-1:] in _DIGITS:
            literal = literal[:bare_exponent.start()]  # json-c drops an exponent without digits
        try:
            if is_double:
                return float(literal)
            return int(literal)
        except ValueError:
            raise self.fail(f"malformed number {literal!r}", start) from None

    def document(self) -> RtAppText:
        result = self.value()
        # json-c still reads blank space and comments after the document, and json_object_from_file
        # refuses a file that ends inside one; the first other character ends its reading
        text = self.text
        while self.pos < len(text):
            if text[self.pos] in _BLANK:
                self.pos += 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("comment /* ... not closed by */ at the end of the file (rt-app's json-c "
                                    "refuses a file that ends inside a comment)")
                self.pos = end + 2
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                if end < 0:
                    raise self.fail("a // comment ends the file without a newline (rt-app's json-c refuses a "
                                    "file that ends inside a comment): add a line break after it")
                self.pos = end + 1
            elif text[self.pos] == "/":
                raise self.fail("'/' after the document starts no comment (json-c refuses it)")
            else:
                return RtAppText(result, self.where())
        return RtAppText(result, None)


def read_rtapp(text: str) -> RtAppText:
    """Parse rt-app JSON text as rt-app (json-c's json_object_from_file) does. Raises RtAppSyntaxError."""
    if text.startswith("\ufeff"):
        raise RtAppSyntaxError("the file starts with a byte-order mark (U+FEFF), which rt-app's json-c refuses: "
                               "save it without one", 1, 1)
    return _Reader(text).document()


def read_rtapp_json(text: str) -> Any:
    """The top value of rt-app JSON text, read as rt-app (json-c) reads it. Raises RtAppSyntaxError."""
    return read_rtapp(text).root
