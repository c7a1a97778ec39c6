"""The rt-app reader accepts json-c's non-strict syntax, keeps what json-c keeps and gives positions."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model.rtapp.reader import JObject, RtAppSyntaxError, read_rtapp, read_rtapp_json


def keys(obj: JObject) -> list[str]:
    return [m.key for m in obj]


def test_block_and_line_comments_anywhere_blank_space_may_be():
    text = """/* head */ { // line
      "a" /* before colon */ : /* before value */ 1, // after
      /* multi
         line */ "b": [1, /* in array */ 2]
    } // tail
    """
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


def test_a_repeated_key_keeps_its_first_place_and_its_last_value():
    """json-c's json_object_object_add replaces the value of a key already there, in place."""
    doc = read_rtapp_json('{\n  "run": 1,\n  "sleep": 2,\n  "run": 3\n}')
    assert keys(doc) == ["run", "sleep"]
    assert [(m.value, m.line, m.column) for m in doc] == [(3, 4, 3), (2, 3, 3)]  # the position of the kept value
    assert [(m.value, m.line, m.column) for m in doc.replaced] == [(1, 2, 3)]


def test_a_key_repeated_three_times_keeps_the_last():
    doc = read_rtapp_json('{"a": 1, "b": {"x": 1, "x": 2}, "a": 2, "a": 3}')
    assert doc.to_plain() == {"a": 3, "b": {"x": 2}}
    assert [m.value for m in doc.replaced] == [1, 2]
    assert [m.value for m in doc.get("b").value.replaced] == [1]


def test_string_escapes():
    doc = read_rtapp_json(r'{"s": "a\"b\\c\/d\n\u00e9\ud800"}')
    assert doc.to_plain() == {"s": 'a"b\\c/d\né\ufffd'}  # a lone surrogate half: U+FFFD, as json-c


@pytest.mark.parametrize("text", [r"{'q': 'it\'s'}", r'{"q": "it\'s"}'])
def test_an_escaped_single_quote_is_refused_as_json_c_refuses_it(text):
    with pytest.raises(RtAppSyntaxError, match="unknown escape"):
        read_rtapp_json(text)


@pytest.mark.parametrize(("text", "value"), [('{"v": 1.5e}', 1.5), ('{"v": 1e+}', 1), ('{"v": 2E-}', 2)])
def test_an_exponent_without_digits_is_dropped_as_json_c_drops_it(text, value):
    assert read_rtapp_json(text).to_plain() == {"v": value}


@pytest.mark.parametrize(("text", "where"), [
    ('{"a": 1} x', (1, 10)), ('{"a": 1} x /* open', (1, 10)), ('{"a": 1}}', (1, 9)),
    ('{"a": 1} // c\n{"b": 2}', (2, 1)),
])
def test_text_after_the_document_is_ignored_as_json_c_ignores_it(text, where):
    read = read_rtapp(text)
    assert read.root.to_plain() == {"a": 1}
    assert read.ignored_from == where


def test_blank_space_and_comments_after_the_document_are_not_text():
    assert read_rtapp('{"a": 1} /* c */ // d\n  ').ignored_from is None


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', 3, 3, 'expected "," or "}" after the value of "a"'),
        ('{"a": }', 1, 7, "unexpected '}' where a value was expected"),
        ("{a: 1}", 1, 2, "expected a quoted key"),
        ('{"a": [1, 2}', 1, 12, 'expected "," or "]" in the array opened at 1:7'),
        ('{"a": "x}', 1, 7, "string not closed"),
        ('{"a": 1, /* open', 1, 10, "comment /* ... not closed"),
        ('{"a": 1} /x', 1, 10, "'/' after the document starts no comment"),
        ('{"a": 1}\n/* open', 2, 1, "comment /* ... not closed by */ at the end of the file"),
        ('{"a": 1} // c', 1, 10, "a // comment ends the file without a newline"),
        ('\ufeff{"a": 1}', 1, 1, "the file starts with a byte-order mark"),
        ('{"a": "x\x00"}', 1, 9, "a NUL character in a string"),
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
    read_rtapp_json('{"a":' * 31 + "1" + "}" * 31)  # so are 31 objects around a number, the 32nd value
    with pytest.raises(RtAppSyntaxError) as info:
        read_rtapp_json("[" * 33 + "]" * 33)
    assert (info.value.line, info.value.column) == (1, 33)
    assert "nested deeper than 32" in info.value.message
    with pytest.raises(RtAppSyntaxError, match="nested deeper than 32"):
        read_rtapp_json('{"a":' * 32 + "1" + "}" * 32)


@given(st.text(alphabet=ALPHABET, max_size=40))
@settings(max_examples=500, deadline=None)
def test_any_text_reads_or_gives_a_syntax_error(text):
    try:
        read_rtapp_json(text)
    except RtAppSyntaxError as e:
        assert e.line >= 1 and e.column >= 1
