"""The rt-app reader accepts json-c's non-strict syntax, keeps repeated keys and gives positions."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model.rtapp.reader import JObject, RtAppSyntaxError, read_rtapp_json


def keys(obj: JObject) -> list[str]:
    return [m.key for m in obj]


def test_block_and_line_comments_anywhere_blank_space_may_be():
    text = """/* head */ { // line
      "a" /* before colon */ : /* before value */ 1, // after
      /* multi
         line */ "b": [1, /* in array */ 2]
    } // tail"""
    doc = read_rtapp_json(text)
    assert doc.to_plain() == {"a": 1, "b": [1, 2]}


def test_trailing_commas_single_quotes_and_literal_case():
    doc = read_rtapp_json("{'a': 'x', \"b\": [1, 2,], \"c\": TRUE, \"d\": False, \"e\": NULL,}")
    assert doc.to_plain() == {"a": "x", "b": [1, 2], "c": True, "d": False, "e": None}


def test_numbers_ints_stay_ints():
    doc = read_rtapp_json('{"i": -12, "f": 1.5, "e": 2e3, "n": NaN, "inf": -Infinity}')
    plain = doc.to_plain()
    assert plain["i"] == -12 and isinstance(plain["i"], int)
    assert plain["f"] == 1.5 and plain["e"] == 2000.0
    assert math.isnan(plain["n"]) and plain["inf"] == -math.inf


def test_repeated_keys_are_kept_in_order_with_positions():
    doc = read_rtapp_json('{\n  "run": 1,\n  "sleep": 2,\n  "run": 3\n}')
    assert keys(doc) == ["run", "sleep", "run"]
    assert [(m.value, m.line, m.column) for m in doc] == [(1, 2, 3), (2, 3, 3), (3, 4, 3)]
    assert doc.get("run").value == 3  # a lookup sees the last value, as json-c keeps it


def test_string_escapes():
    doc = read_rtapp_json(r'{"s": "a\"b\\c\/d\n\u00e9", "q": ' + "'it\\'s'}")
    assert doc.to_plain() == {"s": 'a"b\\c/d\né', "q": "it's"}


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', 3, 3, 'expected "," or "}" after the value of "a"'),
        ('{"a": }', 1, 7, "unexpected '}' where a value was expected"),
        ("{a: 1}", 1, 2, "expected a quoted key"),
        ('{"a": [1, 2}', 1, 12, 'expected "," or "]" in the array opened at 1:7'),
        ('{"a": "x}', 1, 7, "string not closed"),
        ('{"a": 1} /* open', 1, 10, "comment /* ... not closed"),
        ('{"a": 1} x', 1, 10, "unexpected 'x' after the end of the document"),
        ('{"a": yes}', 1, 7, "unexpected word 'yes'"),
        ('{"a": 1', 1, 8, "expected"),
    ],
)
def test_syntax_errors_have_line_and_column(text, line, column, message):
    with pytest.raises(RtAppSyntaxError) as info:
        read_rtapp_json(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert message in info.value.message


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**62), 2**62) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
@settings(max_examples=200, deadline=None)
def test_any_strict_json_reads_as_python_json_reads_it(value):
    text = json.dumps({"v": value})
    assert read_rtapp_json(text).to_plain() == json.loads(text)


@given(json_values)
@settings(max_examples=100, deadline=None)
def test_comments_and_indentation_change_nothing(value):
    text = json.dumps({"v": value}, indent=1).replace("\n", " /* c */\n// line\n")
    assert read_rtapp_json(text).to_plain() == {"v": value}


ALPHABET = "{}[]\"\\':,/*-+.0123456789eEtrufalsnNI \n"


def test_nesting_is_limited_as_json_c_limits_it():
    read_rtapp_json("[" * 32 + "]" * 32)  # 32 levels are fine
    with pytest.raises(RtAppSyntaxError) as info:
        read_rtapp_json("[" * 33 + "]" * 33)
    assert (info.value.line, info.value.column) == (1, 33)
    assert "nested deeper than 32" in info.value.message


@given(st.text(alphabet=ALPHABET, max_size=40))
@settings(max_examples=500, deadline=None)
def test_any_text_reads_or_gives_a_syntax_error(text):
    try:
        read_rtapp_json(text)
    except RtAppSyntaxError as e:
        assert e.line >= 1 and e.column >= 1
