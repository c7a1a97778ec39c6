"""Time at each priority (rtsched.report.priorities) from PRIORITY events, and seed 000's
RTSim study of PI-CV (Cucinotta, OSPERT 2013, §V) reproduced in the simulator."""

from __future__ import annotations

import sys
from pathlib import Path

from rtsched.model import taskset_from_dict
from rtsched.report.priorities import priority_time
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace

from test_report_from_trace import TASKSET
from test_run_offline import MS, T0, _event, job, write_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "sim"))
from picv_rtsim import responses_ms, simulate_variants  # noqa: E402


def test_time_at_each_priority_counts_from_t0_to_the_end_of_the_trace(tmp_path):
    # a (base 20) is lent 30 from 10 ms to 12 ms and 40 from 12 ms to 15 ms; a change after the
    # end (100 ms) counts nothing; b records no change and keeps its base 10 the whole run
    changes = [_event(T0 + 10 * MS, EV.PRIORITY, 0, 1, 30, 4242), _event(T0 + 12 * MS, EV.PRIORITY, 0, 1, 40, 4243),
               _event(T0 + 15 * MS, EV.PRIORITY, 0, 1, 20, 0), _event(T0 + 150 * MS, EV.PRIORITY, 0, 9, 40, 1)]
    a = job(0, 0, 1, 0, 2 * MS, extra=changes)
    b = job(0, 0, 1, 1, 3 * MS)
    path = write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, a), ("b", 20 * MS, 10 * MS, b)],
                       duration=100 * MS)
    rows = {p.thread: p for p in priority_time(read_trace(path), taskset_from_dict(TASKSET))}
    assert rows["a"].ns_at_priority == ((40, 3 * MS), (30, 2 * MS), (20, 95 * MS))
    assert rows["b"].ns_at_priority == ((10, 100 * MS),)
    assert rows["a"].total_ns == rows["b"].total_ns == 100 * MS
    assert rows["a"].as_dict() == {"thread": "a", "base_priority": 20,
                                   "ns_at_priority": {"40": 3 * MS, "30": 2 * MS, "20": 95 * MS}}


def test_a_trace_without_priority_events_has_no_such_table(tmp_path):
    path = write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, job(0, 0, 1, 0, 2 * MS))])
    assert priority_time(read_trace(path), taskset_from_dict(TASKSET)) == ()


def test_rtsim_study_pi_cv_helps_the_highest_client_at_the_lowest_ones_expense():
    # the paper's Fig. 7 (a): Client1's mean and maximum response fall with PI-CV, Client3's
    # mean rises; about 300 activations of each client, as in the paper
    results = simulate_variants()
    with_picv, without = results["PI-CV"][0], results["no PI-CV"][0]
    c1, c1_no = responses_ms(with_picv, "Client1"), responses_ms(without, "Client1")
    c3, c3_no = responses_ms(with_picv, "Client3"), responses_ms(without, "Client3")
    assert 280 <= len(c1) <= 300 and len(c1) == len(c1_no)
    assert c1.mean() < c1_no.mean() and c1.max() < c1_no.max()
    assert c3.mean() > c3_no.mean() and c3.max() >= c3_no.max()


def test_rtsim_study_the_server_spends_time_at_each_clients_priority_only_with_pi_cv():
    # the paper's Fig. 8: the lowest-priority server is lent every client's priority while it
    # serves it; without PI-CV it keeps its own; the clients are never lent anything (rtsched's
    # call has no mutex around the server's queue, unlike the paper's RTSim code: see docs)
    results = simulate_variants()
    for variant, lent in (("PI-CV", {40, 30, 20}), ("no PI-CV", set())):
        rows = {p.thread: p for p in results[variant][1]}
        server = rows["Server"]
        assert {level for level, _ns in server.ns_at_priority} - {10} == lent
        assert server.total_ns == 2_000 * MS
        for client in ("Client1", "Client2", "Client3"):
            assert len(rows[client].ns_at_priority) == 1
