"""Blocking observed per task (rtsched.report.blocking) on traces written here byte by byte,
and the analysis the run compares it with (bounds_for per protocol)."""

from __future__ import annotations

import copy

from rtsched.analysis import bounds_for
from rtsched.model import taskset_from_dict
from rtsched.report.blocking import blocking_by_task
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace as load_trace
from rtsched.trace.events import BlockCause

from test_run_offline import MS, T0, _event, write_trace

US = 1_000


def test_requests_are_counted_by_cause_and_waits_measured(tmp_path):
    t = T0
    events = [
        _event(t, EV.RELEASE, 0, 1, 0, t + 10 * MS),
        _event(t + 10 * US, EV.START, 0, 1),
        # request 1: free at once
        _event(t + 20 * US, EV.LOCK_REQUEST, 0, 1, 0),
        _event(t + 21 * US, EV.LOCK_ACQUIRE, 0, 1, 0),
        _event(t + 30 * US, EV.LOCK_RELEASE, 0, 1, 0),
        # request 2: ceiling, then owner (blocked twice for the owner): 300 us
        _event(t + 100 * US, EV.LOCK_REQUEST, 0, 1, 1),
        _event(t + 101 * US, EV.LOCK_BLOCKED, 0, 1, BlockCause.CEILING, 77),
        _event(t + 150 * US, EV.LOCK_BLOCKED, 0, 1, BlockCause.OWNER, 77),
        _event(t + 200 * US, EV.LOCK_BLOCKED, 0, 1, BlockCause.OWNER, 77),
        _event(t + 400 * US, EV.LOCK_ACQUIRE, 0, 1, 1),
        _event(t + 450 * US, EV.LOCK_RELEASE, 0, 1, 1),
        _event(t + 500 * US, EV.COMPLETE, 0, 1, 0, 400 * US),
        # job 2: gated at its start for 2 ms (two LOCK_BLOCKED and a BOOST in the wait); rts_job_next
        # records RELEASE after the gate, stamped with the nominal release time
        _event(t + 10 * MS + 5 * US, EV.LOCK_BLOCKED, 0, 2, BlockCause.GATE, 78),
        _event(t + 10 * MS + 6 * US, EV.BOOST, 0, 2, 30, 78),
        _event(t + 11 * MS, EV.LOCK_BLOCKED, 0, 2, BlockCause.GATE, 78),
        _event(t + 10 * MS, EV.RELEASE, 0, 2, 0, t + 20 * MS),
        _event(t + 12 * MS + 5 * US, EV.START, 0, 2),
        _event(t + 12 * MS + 10 * US, EV.LOCK_REQUEST, 0, 2, 0),
        _event(t + 12 * MS + 20 * US, EV.LOCK_ACQUIRE, 0, 2, 0),
        _event(t + 12 * MS + 30 * US, EV.LOCK_RELEASE, 0, 2, 0),
        _event(t + 13 * MS, EV.COMPLETE, 0, 2, 0, 900 * US),
        # job 3: a request still waiting when the run ends: left out
        _event(t + 20 * MS, EV.RELEASE, 0, 3, 0, t + 30 * MS),
        _event(t + 20 * MS + 5 * US, EV.START, 0, 3),
        _event(t + 20 * MS + 10 * US, EV.LOCK_REQUEST, 0, 3, 0),
        _event(t + 20 * MS + 11 * US, EV.LOCK_BLOCKED, 0, 3, BlockCause.OWNER, 77),
    ]
    quiet = [_event(t, EV.RELEASE, 1, 1, 0, t + 10 * MS), _event(t + 1, EV.START, 1, 1),
             _event(t + 2, EV.COMPLETE, 1, 1)]
    trace = load_trace(write_trace(tmp_path / "t.rtst", [("a", 10 * MS, 10 * MS, events),
                                                         ("b", 10 * MS, 10 * MS, quiet)]))
    observed = blocking_by_task(trace)
    a = observed[0]
    assert (a.lock_requests, a.blocked_owner, a.blocked_ceiling, a.blocked_gate) == (3, 1, 1, 1)
    assert a.lock_wait_max_ns == 300 * US
    assert a.gate_wait_max_ns == 2 * MS
    # job 1: 1 + 300 us of lock waits; job 2: 2 ms gate + 10 us
    assert a.job_blocking_max_ns == 2 * MS + 10 * US
    b = observed[1]
    assert (b.lock_requests, b.blocked_gate, b.lock_wait_max_ns, b.job_blocking_max_ns) == (0, 0, None, None)


# -- which test the run compares with ----------------------------------------------

BASE = {
    "name": "choice",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "resources": [{"name": "r", "protocol": "pcp"}],
    "tasks": [
        {"name": "hi", "period": "10ms", "priority": 30, "partition": "cpu0",
         "body": [{"compute": "500us"}, {"lock": "r"}, {"compute": "100us"}, {"unlock": "r"}]},
        {"name": "mid", "period": "20ms", "priority": 20, "partition": "cpu0", "body": [{"compute": "1ms"}]},
        {"name": "lo", "period": "40ms", "priority": 10, "partition": "cpu0",
         "body": [{"compute": "500us"}, {"lock": "r"}, {"compute": "2ms"}, {"unlock": "r"}]},
        {"name": "far", "period": "40ms", "priority": 10, "partition": "cpu1",
         "body": [{"compute": "500us"}]},
    ],
}


def with_protocol(protocol, **resource):
    d = copy.deepcopy(BASE)
    d["resources"][0].update(protocol=protocol, **resource)
    return taskset_from_dict(d)


def test_local_protocols_get_fp_rta_with_one_lower_section_of_blocking():
    for protocol in ("pcp", "srp", "ipcp"):
        result = bounds_for(with_protocol(protocol))
        assert result.test == "fp-rta" and result.schedulable, result
        assert result.task("hi").blocking_ns == 2 * MS   # lo's section
        assert result.task("mid").blocking_ns == 2 * MS  # the ceiling (30) is above mid's priority
        assert result.task("lo").blocking_ns == 0


def test_a_ceiling_given_by_hand_blocks_the_tasks_under_it():
    d = copy.deepcopy(BASE)
    d["tasks"][0]["body"] = [{"compute": "500us"}]  # hi (30) does not lock: the computed ceiling is lo's 10
    assert bounds_for(taskset_from_dict(d)).task("hi").blocking_ns == 0
    d["resources"][0]["ceiling"] = 35
    assert bounds_for(taskset_from_dict(d)).task("hi").blocking_ns == 2 * MS


def test_global_protocols_get_their_partitioned_test_even_on_one_partition():
    assert bounds_for(with_protocol("mpcp")).test == "p-fp-mpcp"
    assert bounds_for(with_protocol("fmlp+")).test == "p-fp-fmlp+"
    d = copy.deepcopy(BASE)
    d["resources"][0]["protocol"] = "mpcp"
    d["tasks"][3]["body"] += [{"lock": "r"}, {"compute": "100us"}, {"unlock": "r"}]
    result = bounds_for(taskset_from_dict(d))
    assert result.test == "p-fp-mpcp" and result.task("far").blocking_ns > 0
    # a boosted lower-priority holder delays mid, which never locks
    assert bounds_for(with_protocol("mpcp")).task("mid").blocking_ns >= 2 * MS


def test_srp_under_pedf_gets_the_edf_test():
    d = {
        "name": "edf",
        "platform": {"scheduler": "P-EDF", "cpus": [0, 1]},
        "resources": [{"name": "r", "protocol": "srp"}],
        "tasks": [
            {"name": "a", "period": "10ms", "partition": "cpu1", "budget": "2ms",
             "body": [{"compute": "500us"}, {"lock": "r"}, {"compute": "100us"}, {"unlock": "r"}]},
            {"name": "b", "period": "20ms", "partition": "cpu1", "budget": "3ms",
             "body": [{"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}]},
        ],
    }
    result = bounds_for(taskset_from_dict(d))
    assert result.test == "p-edf" and result.schedulable, result
