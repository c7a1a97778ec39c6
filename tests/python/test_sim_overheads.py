"""The simulator's overheads beyond switches, release latency and locks: trace events, RPC calls and
OS interference (exact simulated times: a simulation has no noise)."""

from __future__ import annotations

from rtsched.analysis.overheads import Overheads
from rtsched.pipeline.sim_overheads import sim_overheads
from rtsched.sim import SimOverheads
from rtsched.trace import EventType as EV

from sim_helpers import MS, events, first_job, sim_trace
from test_sim_schedules import _picv_example


def _one_cpu(tasks, resources=(), scheduler="P-FP"):
    cpus = [0] if scheduler == "P-FP" else [0, 1]
    data = {"name": "ovh", "platform": {"scheduler": scheduler, "cpus": cpus}, "resources": list(resources),
            "tasks": [{"partition": "cpu0", **t} if scheduler == "P-FP" else t for t in tasks]}
    return data


def test_each_job_pays_for_the_trace_events_its_body_records():
    # plain: RELEASE, START, COMPLETE = 3 events; a section adds LOCK_REQUEST, LOCK_ACQUIRE, LOCK_RELEASE
    from rtsched.sim.threads import OP_COMPUTE, OP_LOCK, OP_UNLOCK, events_per_job
    assert events_per_job(((OP_COMPUTE, 1),)) == 3
    assert events_per_job(((OP_LOCK, 0), (OP_COMPUTE, 1), (OP_UNLOCK, 0))) == 6


def test_trace_event_cost_lengthens_each_job_by_its_events(tmp_path):
    data = _one_cpu([
        {"name": "plain", "period": "10ms", "priority": 20, "body": [{"compute": "2ms"}]},
        {"name": "locker", "period": "20ms", "priority": 10,
         "body": [{"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}]},
    ], resources=[{"name": "r", "protocol": "pip"}])
    trace, _ = sim_trace(tmp_path, data, 20 * MS, overheads=SimOverheads(trace_event_ns=1_000))
    assert first_job(trace, "plain")["COMPLETE"] == 2 * MS + 3_000
    # locker starts after plain's job; its 6 events are charged at its start, before the lock
    assert first_job(trace, "locker")["START"] == 2 * MS + 3_000
    assert events(trace, "locker", EV.LOCK_ACQUIRE)[0][1] == 2 * MS + 3_000 + 6_000
    assert first_job(trace, "locker")["COMPLETE"] == 3 * MS + 9_000
    # the second job of plain pays again
    completes = [e[1] for e in events(trace, "plain", EV.COMPLETE)]
    assert completes[1] == 12 * MS + 3_000


def test_rpc_call_overhead_and_the_servers_events_are_served_with_the_request(tmp_path):
    # as test_rpc_call_is_served_at_the_callers_priority_with_picv: reply at 14.5 ms without overheads
    ov = SimOverheads(rpc_call_ns=20_000)
    trace = _picv_example(tmp_path, picv=True, overheads=ov)
    assert events(trace, "Client1", EV.RPC_REPLY)[0][1] == 14 * MS + 520_000
    ov = SimOverheads(rpc_call_ns=20_000, trace_event_ns=100)
    trace = _picv_example(tmp_path, picv=True, overheads=ov)
    # Client1 (compute, call): its 5 events charged at its start, the call 0.5 us later
    serve = events(trace, "Server", EV.RPC_SERVE_START)[0][1]
    assert serve == 10 * MS + 500
    assert events(trace, "Client1", EV.RPC_REPLY)[0][1] == serve + 4_500_000 + 20_000 + 2 * 100


def test_os_interference_takes_every_cpu_once_at_the_critical_instant(tmp_path):
    data = _one_cpu([
        {"name": "hi", "period": "10ms", "priority": 20, "body": [{"compute": "2ms"}]},
        {"name": "lo", "period": "20ms", "priority": 10, "body": [{"compute": "3ms"}]},
    ])
    trace, _ = sim_trace(tmp_path, data, 40 * MS, overheads=SimOverheads(interference_ns=100_000))
    assert first_job(trace, "hi")["START"] == 100_000
    assert first_job(trace, "lo")["COMPLETE"] == 5 * MS + 100_000
    # once: the later windows are not charged
    assert [e[1] for e in events(trace, "hi", EV.START)][1:] == [10 * MS, 20 * MS, 30 * MS]
    names = {s["name"] for s in trace.streams}
    assert names == {"hi", "lo"}  # the interference is not a task of the trace


def test_os_interference_delays_both_cpus_of_a_global_domain(tmp_path):
    data = _one_cpu([
        {"name": "a", "period": "10ms", "deadline": "5ms", "body": [{"compute": "1ms"}]},
        {"name": "b", "period": "10ms", "deadline": "6ms", "body": [{"compute": "1ms"}]},
        {"name": "c", "period": "10ms", "deadline": "7ms", "body": [{"compute": "1ms"}]},
    ], scheduler="G-EDF")
    ov = SimOverheads(interference_ns=50_000, context_switch_ns=1_000)
    trace, _ = sim_trace(tmp_path, data, 10 * MS, cpus=(0, 1), overheads=ov)
    # a and b start after the window and a switch each (not one for the window); c after a completes
    assert first_job(trace, "a")["START"] == 51_000 and first_job(trace, "b")["START"] == 51_000
    assert first_job(trace, "a")["COMPLETE"] == 1 * MS + 51_000
    assert first_job(trace, "c")["COMPLETE"] == 2 * MS + 52_000


def test_sim_overheads_take_the_profiles_new_keys():
    ov = sim_overheads(Overheads(rpc_call_ns=7, trace_event_ns=3, interference_window_ns=1000,
                                 interference_max_lost_ns=40))
    assert (ov.rpc_call_ns, ov.trace_event_ns, ov.interference_ns) == (7, 3, 40)
    # at most the window; nothing measured is nothing charged
    assert sim_overheads(Overheads(interference_window_ns=10, interference_max_lost_ns=40)).interference_ns == 10
    assert sim_overheads(Overheads()) == sim_overheads(None) == SimOverheads()
