"""The rt-app reader against json-c itself: the same text gives the same values, or both refuse it.

rt-app reads its files with libjson-c (json_object_from_file: the tokener, non-strict). This test
loads the library that is installed (ctypes; skipped without it) and reads the same texts with both:
hand-picked edge cases, generated texts, and every file of an rt-app checkout when
RTSCHED_RTAPP_DIR names one (scripts/fetch-rtapp).
"""

import ctypes
import ctypes.util
import math
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model.rtapp.reader import JObject, RtAppSyntaxError, read_rtapp_json

_PATH = ctypes.util.find_library("json-c")
pytestmark = pytest.mark.skipif(_PATH is None, reason="libjson-c is not installed (rt-app's JSON library)")


class _Iter(ctypes.Structure):
    _fields_ = [("opaque_", ctypes.c_void_p)]


def _lib():
    lib = ctypes.CDLL(_PATH)
    obj = ctypes.c_void_p
    for name, res, args in [
        ("json_object_from_file", obj, [ctypes.c_char_p]), ("json_object_get_type", ctypes.c_int, [obj]),
        ("json_object_get_int64", ctypes.c_int64, [obj]), ("json_object_get_double", ctypes.c_double, [obj]),
        ("json_object_get_boolean", ctypes.c_int, [obj]), ("json_object_get_string", ctypes.c_char_p, [obj]),
        ("json_object_get_string_len", ctypes.c_int, [obj]), ("json_object_array_length", ctypes.c_size_t, [obj]),
        ("json_object_array_get_idx", obj, [obj, ctypes.c_size_t]), ("json_object_iter_begin", _Iter, [obj]),
        ("json_object_iter_end", _Iter, [obj]), ("json_object_iter_equal", ctypes.c_int,
                                                  [ctypes.POINTER(_Iter), ctypes.POINTER(_Iter)]),
        ("json_object_iter_next", None, [ctypes.POINTER(_Iter)]),
        ("json_object_iter_peek_name", ctypes.c_char_p, [ctypes.POINTER(_Iter)]),
        ("json_object_iter_peek_value", obj, [ctypes.POINTER(_Iter)]), ("json_object_put", ctypes.c_int, [obj]),
    ]:
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


_JC = _lib() if _PATH else None
_NULL, _BOOLEAN, _DOUBLE, _INT, _OBJECT, _ARRAY, _STRING = range(7)  # enum json_type


def _from_json_c(o):
    kind = _JC.json_object_get_type(o)
    if kind == _NULL:
        return None
    if kind == _BOOLEAN:
        return bool(_JC.json_object_get_boolean(o))
    if kind == _DOUBLE:
        return float(_JC.json_object_get_double(o))
    if kind == _INT:
        return int(_JC.json_object_get_int64(o))
    if kind == _STRING:
        return ctypes.string_at(_JC.json_object_get_string(o), _JC.json_object_get_string_len(o)).decode()
    if kind == _ARRAY:
        return [_from_json_c(_JC.json_object_array_get_idx(o, i)) for i in range(_JC.json_object_array_length(o))]
    members, it, end = [], _JC.json_object_iter_begin(o), _JC.json_object_iter_end(o)
    while not _JC.json_object_iter_equal(ctypes.byref(it), ctypes.byref(end)):
        members.append((_JC.json_object_iter_peek_name(ctypes.byref(it)).decode(),
                        _from_json_c(_JC.json_object_iter_peek_value(ctypes.byref(it)))))
        _JC.json_object_iter_next(ctypes.byref(it))
    return ("object", members)


def json_c_reads(text: str):
    """What rt-app gets from a file of that text (json_object_from_file, as rt-app's parse_config calls it):
    the value (objects as ("object", [(key, value)...]) in iteration order), or None."""
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        f.write(text.encode())
        f.flush()
        o = _JC.json_object_from_file(f.name.encode())
    if not o:
        return None
    try:
        return _from_json_c(o)
    finally:
        _JC.json_object_put(o)


def _ours(value):
    if isinstance(value, JObject):
        return ("object", [(m.key, _ours(m.value)) for m in value])
    if isinstance(value, list):
        return [_ours(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
        return max(-2**63, min(value, 2**63 - 1))  # json-c saturates at int64 (rt-app then reads an int)
    return value


def rtsched_reads(text: str):
    try:
        return _ours(read_rtapp_json(text))
    except RtAppSyntaxError:
        return None


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


EDGES = [
    '{"run": 4000, "unlock": "m", "run": 2000}', '{"a": 1} trailing', '{"a": 1}\n{"b": 2}', '{"a": 1} /* open',
    "{'a': TRUE, // c\n \"b\": NaN, \"c\": [1, 2,], /* x */ \"d\": -Infinity,}", '{"a": 01}', '{"a": 1.}',
    '{"a": +1}', '{"a": .5}', '{"a": 1.5e}', '{"a": 1e+}', '{"a": "\\ud800x"}', r"{'a': 'it\'s'}", '{"a": -0}',
    '{"a": [1 2]}', '{"a": 1,,}', '{,}', '{"": 1}', '{"a": NULL, "b": fAlSe}', '{"a": inf}', '{"a": -nan}',
    '{\f}', '{"a":\v1}', '{"a": \u0663}', '{} // c', '{}\n// c\n', '{} /* c */ x', '{} x //', '\ufeff{}', '{"a": "\x00"}',
    '[' * 32 + ']' * 32, '[' * 33 + ']' * 33, '{"a":' * 31 + '1' + '}' * 31, '{"a":' * 32 + '1' + '}' * 32,
    '# not a comment\n{}', '', '   ', '"just a string"', '{"a": "tab\there"}', '{"k": {"x": 1, "y": 2, "x": 3}}',
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases_read_as_json_c_reads_them(text):
    assert same(rtsched_reads(text), json_c_reads(text)), (rtsched_reads(text), json_c_reads(text))


ALPHABET = "{}[]\"\\':,/*-+.0123456789eEtrufalsnNIux# \t\n\r\f\v\u0663"  # \u0663: an Arabic-Indic 3


@given(st.text(alphabet=ALPHABET, max_size=40))
@settings(max_examples=3000, deadline=None)
def test_generated_text_reads_as_json_c_reads_it(text):
    """Texts that start as rt-app's documents do, with an object (json_object_from_file refuses a number
    or a literal that ends the file, which no rt-app file is)."""
    text = "{" + text
    assert same(rtsched_reads(text), json_c_reads(text)), (rtsched_reads(text), json_c_reads(text))


_RTAPP = os.environ.get("RTSCHED_RTAPP_DIR")


@pytest.mark.skipif(not _RTAPP, reason="set RTSCHED_RTAPP_DIR to an rt-app checkout (scripts/fetch-rtapp)")
def test_rt_app_own_files_read_as_json_c_reads_them():
    files = sorted(Path(_RTAPP, "doc", "examples").rglob("*.json"))
    assert files, f"no doc/examples/**/*.json under {_RTAPP}"
    for path in files:
        text = path.read_text()
        assert same(rtsched_reads(text), json_c_reads(text)), path
