"""The TLB model (rtsched.tlb): hand-computed hit/miss sequences for every replacement
rule, locked entries never evicted, and the lackey parser against a committed sample."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.tlb.lackey import LackeyError, parse_lackey, read_lackey_file
from rtsched.tlb.pages import PageTrace
from rtsched.tlb.replacement import RULES
from rtsched.tlb.tlb import Tlb, TlbGeometry

SAMPLE = Path(__file__).resolve().parents[1] / "tlb" / "lackey_sample.log"


def pattern(tlb: Tlb, pages: list[int]) -> str:
    return "".join("H" if tlb.access(p) else "M" for p in pages)


def full(entries: int, rule: str, seed: int = 0) -> Tlb:
    return Tlb(TlbGeometry(entries=entries, rule=rule, seed=seed))


SEQUENCE = [1, 2, 3, 1, 4, 2, 5, 1]


def test_lru_evicts_the_least_recently_used():
    # 1 2 3 fill; 1 hits (2 now oldest); 4 evicts 2; 2 evicts 3; 5 evicts 1 (used at t3); 1 evicts 4
    assert pattern(full(3, "lru"), SEQUENCE) == "MMMHMMMM"


def test_fifo_evicts_the_first_filled_even_when_it_was_just_used():
    # 1 2 3 fill; 1 hits (no refresh); 4 evicts 1; 2 hits; 5 evicts 2; 1 evicts 3
    assert pattern(full(3, "fifo"), SEQUENCE) == "MMMHMHMM"


def test_urc_fills_the_slot_its_access_counter_points_at():
    # counter before each access 0..7; misses fill slot counter mod 3:
    # 1→0, 2→1, 3→2, (1 hits), 4→slot 4%3=1 (evicts 2), 2→slot 2 (evicts 3), 5→slot 0 (evicts 1), 1→slot 1
    tlb = full(3, "urc")
    assert pattern(tlb, SEQUENCE) == "MMMHMMMM"
    assert tlb.valid_pages() == {5, 1, 2}


def test_urc_ignores_an_empty_slot():
    # 2 entries: 1 fills slot 0 (counter 0); its second access hits (counter 1 → 2);
    # 2 misses at counter 2 → slot 0, evicting 1 although slot 1 is empty; 1 misses again (slot 1)
    assert pattern(full(2, "urc"), [1, 1, 2, 1]) == "MHMM"
    assert pattern(full(2, "lru"), [1, 1, 2, 1]) == "MHMH"


def test_a_run_counts_as_its_accesses():
    tlb = full(2, "urc")
    assert tlb.access(1, count=2) is False      # counter 0 → 2
    assert tlb.access(2) is False               # slot 2 % 2 = 0: evicts 1
    assert not tlb.holds(1) and tlb.holds(2)


def test_random_fills_empty_slots_first_then_a_seeded_victim():
    outcomes = set()
    for seed in range(20):
        tlb = full(2, "random", seed)
        assert pattern(tlb, [1, 2, 3, 3]) == "MMMH"
        kept = tlb.valid_pages() - {3}
        assert len(kept) == 1
        outcomes |= kept
        again = full(2, "random", seed)
        pattern(again, [1, 2, 3])
        assert again.valid_pages() == tlb.valid_pages()   # same seed, same victim
    assert outcomes == {1, 2}


@pytest.mark.parametrize("rule", RULES)
def test_with_one_of_two_entries_locked_every_other_page_misses(rule):
    tlb = full(2, rule)
    tlb.lock(9)
    assert pattern(tlb, [1, 2, 1, 2, 9]) == "MMMMH"


def test_set_associative_pages_compete_only_in_their_set():
    tlb = Tlb(TlbGeometry(entries=4, ways=2, rule="lru"))   # 2 sets: even pages in set 0, odd in set 1
    # 0 2 fill set 0; 4 evicts 0; 0 evicts 2; 1 3 fill set 1 (set 0 untouched): 4 and 1 hit
    assert pattern(tlb, [0, 2, 4, 0, 1, 3, 4, 1]) == "MMMMMMHH"
    assert tlb.valid_pages() == {4, 0, 1, 3}


def test_unlocked_entries_stay_valid_and_become_replaceable():
    tlb = full(2, "lru")
    tlb.lock(7)
    tlb.access(1)
    tlb.unlock(7)
    assert tlb.holds(7) and tlb.locked_pages() == set()
    assert pattern(tlb, [2]) == "M" and not tlb.holds(7)   # 7 was the least recently used


def test_locking_every_way_of_a_set_is_refused():
    tlb = full(1, "lru")
    tlb.lock(1)
    with pytest.raises(ValueError, match="every one of the 1 ways"):
        tlb.lock(2)
    assert tlb.access(3) is False and tlb.access(3) is False   # nowhere to cache it


def test_save_and_restore_bring_back_every_entry():
    tlb = full(4, "fifo")
    pattern(tlb, [1, 2, 3])
    saved = tlb.save()
    tlb.flush()
    tlb.lock(8)
    tlb.restore(saved)
    assert tlb.valid_pages() == {1, 2, 3} and tlb.locked_pages() == set()


@pytest.mark.parametrize("geometry, message", [
    (dict(entries=0), "at least 1"), (dict(entries=6, ways=4, rule="lru"), "do not divide"),
    (dict(rule="clock"), "expected one of"), (dict(entries=4, ways=2, rule="urc"), "fully associative"),
    (dict(page_bytes=3000), "power of two"),
])
def test_bad_geometry_says_what(geometry, message):
    with pytest.raises(ValueError, match=message):
        TlbGeometry(**geometry)


@settings(max_examples=200, deadline=None)
@given(rule=st.sampled_from(RULES), entries=st.sampled_from([2, 4, 8]), ways_log=st.integers(0, 3),
       locked=st.sets(st.integers(0, 40), max_size=3), seed=st.integers(0, 100),
       accesses=st.lists(st.tuples(st.integers(0, 40), st.integers(1, 3)), max_size=200))
def test_locked_entries_are_never_evicted(rule, entries, ways_log, locked, seed, accesses):
    ways = entries if rule == "urc" else max(1, entries >> ways_log)
    tlb = Tlb(TlbGeometry(entries=entries, ways=ways, rule=rule, seed=seed))
    placed: set[int] = set()
    for page in sorted(locked):
        try:
            tlb.lock(page)
            placed.add(page)
        except ValueError:
            pass   # its set is full of locked entries
    for page, count in accesses:
        hit = tlb.access(page, count)
        if page in placed:
            assert hit
        assert placed <= tlb.valid_pages() and tlb.locked_pages() == placed


def test_lackey_sample_is_parsed_into_page_runs():
    trace = read_lackey_file(SAMPLE)
    # the M access (2 accesses) and the I fetch at 0x401bffe cross a 4 KiB boundary: both pages count
    assert list(trace.runs()) == [(0x401a, 2), (0x1fff000, 1), (0x401b, 1), (0x1fff000, 1), (0x401b, 1),
                                  (0x1fff000, 2), (0x1fff001, 2), (0x401b, 1), (0x401c, 1), (0x1fff000, 1)]
    assert trace.accesses == 13 and trace.distinct_pages() == 5
    assert trace.accesses_per_page() == {0x401a: 2, 0x1fff000: 5, 0x401b: 3, 0x1fff001: 2, 0x401c: 1}
    assert read_lackey_file(SAMPLE, max_accesses=3).accesses == 3


def test_lackey_page_size_changes_the_pages():
    trace = read_lackey_file(SAMPLE, page_bytes=1 << 16)
    assert {p for p, _ in trace.runs()} == {0x401, 0x1fff00}


def test_lackey_bad_line_names_the_line():
    with pytest.raises(LackeyError, match=r"log:2: not a lackey access"):
        parse_lackey(["I  0401ab70,3\n", "X 12,4\n"], source="log")
    with pytest.raises(LackeyError, match=r":1:"):
        parse_lackey(["I  zz,3\n"])


def test_page_trace_merges_adjacent_runs():
    trace = PageTrace.of([(1, 2), (1, 3), (2, 1)])
    assert list(trace.runs()) == [(1, 5), (2, 1)] and trace.accesses == 6
