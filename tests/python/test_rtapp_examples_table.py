"""docs/from-rtapp.md's table of rt-app's own files is true of an rt-app checkout (RTSCHED_RTAPP_DIR).

It fails when the table lists a file the checkout lacks, leaves out one it has, or gives another outcome
or reason than `rtsched validate` gives now (tests/python/rtapp_examples_table.py makes the table).
"""

import os
from pathlib import Path

import pytest
from rtapp_examples_table import DOC, RT_APP_REFUSES, doc_table, example_files, rows, table

CHECKOUT = os.environ.get("RTSCHED_RTAPP_DIR")
needs_checkout = pytest.mark.skipif(not CHECKOUT, reason="set RTSCHED_RTAPP_DIR to an rt-app checkout "
                                    "(scripts/fetch-rtapp makes one) to check docs/from-rtapp.md against it")
REMAKE = "RTSCHED_RTAPP_DIR=... PYTHONPATH=python python3 tests/python/rtapp_examples_table.py --write"


def _listed(text: str) -> dict[str, str]:
    """file -> its row, from the doc's table."""
    listed = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            name = line.split("`")[1]
            assert name not in listed, f"{name} is listed twice"
            listed[name] = line
    return listed


def test_the_doc_has_the_table():
    table_text = doc_table(DOC.read_text())
    assert table_text is not None and len(_listed(table_text)) >= 20


@needs_checkout
def test_the_table_lists_exactly_the_checkout_files():
    base = Path(CHECKOUT) / "doc" / "examples"
    have = {p.relative_to(base).as_posix() for p in example_files(Path(CHECKOUT))}
    listed = set(_listed(doc_table(DOC.read_text())))
    assert not listed - have, f"listed but not in the checkout: {sorted(listed - have)}; remake: {REMAKE}"
    assert not have - listed, f"in the checkout but not listed: {sorted(have - listed)}; remake: {REMAKE}"
    assert set(RT_APP_REFUSES) <= have  # rt-app's refusals are recorded for files it has


@needs_checkout
def test_each_row_says_what_rtsched_validate_says_now():
    listed = _listed(doc_table(DOC.read_text()))
    made = _listed(table(Path(CHECKOUT)))
    wrong = [f"doc:  {listed.get(name, '(not listed)')}\nnow:  {made[name]}" for name in made
             if listed.get(name) != made[name]]
    assert not wrong, "\n".join(wrong) + f"\nremake: {REMAKE}"
    assert doc_table(DOC.read_text()) == table(Path(CHECKOUT)), f"the summary differs; remake: {REMAKE}"


@needs_checkout
def test_rt_app_refuses_the_files_json_c_cannot_read():
    """The rt-app column's 'invalid JSON' rows agree with rtsched's reader (json-c's rules, reader.py)."""
    for name, validated, _, _, rt_app in rows(Path(CHECKOUT)):
        assert ("invalid JSON" in validated) == ("invalid JSON" in rt_app), name
