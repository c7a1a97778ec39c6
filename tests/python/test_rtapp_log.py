"""rt-app's per-thread logs (rtsched.trace.rtapp_log), on log text written from rt-app's documented
format (doc/tutorial.txt, "Log and gnuplot": the header, then one row per loop of a phase)."""

from __future__ import annotations

import pytest

from rtsched.trace.rtapp_log import LOG_COLUMNS, RtAppLogError, parse_rtapp_log, read_rtapp_logs, rtapp_log_files

HEADER = "#idx     perf      run   period           start             end          rel_st      slack c_duration   c_period     wu_lat"
LOG = f"""{HEADER}
   0    92164    19935    98965    504549567051    504549666016            2443      78701      20000     100000        266
   0    92164    19408    99952    504549666063    504549766015          101455      80217      20000     100000        265
   0    92164    21001   100953    504549766062    504549867015          201454      -1001      20000     100000          0
"""


def test_rows_are_read_column_by_column_in_microseconds():
    rows = parse_rtapp_log(LOG)
    assert len(rows) == 3
    first = rows[0]
    assert (first.run_us, first.period_us, first.start_us, first.end_us) == (19935, 98965, 504549567051, 504549666016)
    assert (first.slack_us, first.c_duration_us, first.c_period_us, first.wakeup_latency_us) == (78701, 20000, 100000, 266)
    assert rows[2].slack_us == -1001  # a timer that had already expired: negative slack
    assert [r.rel_start_us for r in rows] == [2443, 101455, 201454]


def test_a_log_of_no_loop_has_no_rows():
    assert parse_rtapp_log(HEADER + "\n") == ()


@pytest.mark.parametrize("text, words", [
    ("0 1 2 3 4 5 6 7 8 9 10\n", "a row before rt-app's header"),
    ("", "no rt-app header"),
    (HEADER + "\n 0 1 2 3\n", "expected 11 columns"),
    (HEADER + "\n 0 1 2 3 4 5 6 7 8 9 x\n", "expected integers"),
    ("#idx perf run period start end rel_st slack c_duration c_period\n", "not rt-app's header"),
])
def test_text_that_is_not_rt_apps_log_is_refused_with_the_line(text, words):
    with pytest.raises(RtAppLogError) as info:
        parse_rtapp_log(text, "x.log")
    assert words in str(info.value) and str(info.value).startswith("x.log")


def test_the_header_is_rt_apps_columns():
    assert tuple(HEADER.split()) == ("#idx", *LOG_COLUMNS[1:])


def test_log_files_are_found_per_thread_instances_first_then_forks(tmp_path):
    # rt-app's names: <basename>-<thread>-<index>[-<fork:04d>].log, the index counted over every thread
    for name in ("a-0", "a-1", "a-1-2", "a-1-3", "a-5-0001", "a-4-0000", "b-2", "other-9"):
        (tmp_path / f"rtapp-{name}.log").write_text(LOG)
    files = rtapp_log_files(tmp_path, "rtapp", ["a", "a-1", "b"])
    assert [p.name for p in files["a"]] == ["rtapp-a-0.log", "rtapp-a-1.log", "rtapp-a-4-0000.log",
                                            "rtapp-a-5-0001.log"]
    assert [p.name for p in files["a-1"]] == ["rtapp-a-1-2.log", "rtapp-a-1-3.log"]
    logs = read_rtapp_logs(tmp_path, "rtapp", ["b"])
    assert [(log.name, len(log.rows)) for log in logs["b"]] == [("b-2", 3)]


def test_a_row_cut_by_the_end_of_the_run_is_left_out():
    # rt-app cancels its threads at the end: one was cancelled while writing its row
    assert len(parse_rtapp_log(LOG + "   1       1")) == 3
    with pytest.raises(RtAppLogError):  # not at the end of the text: not rt-app's
        parse_rtapp_log(LOG + "   1       1\n" + LOG.splitlines()[1] + "\n")
