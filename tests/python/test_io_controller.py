"""The reservation controller: one flow on the bus at a time, only while its
server has budget, rate monotonic among the servers; a hand-computed schedule
and a property test over generated flows."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model.io_load import load_io_system
from rtsched.model.io_system import Flow, IoServer, IoSystem, Peripheral
from rtsched.sim.io import simulate_controller
from rtsched.sim.sporadic_server import SporadicServer

MS = 1_000_000
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_table_4_1_schedule_by_hand():
    run = simulate_controller(load_io_system(EXAMPLES / "io/table-4-1.yaml"))
    first = [(s.flow, s.start_ns, s.end_ns) for s in run.segments[:7]]
    assert first == [
        ("engine-0", 0, 3_800_000),           # highest priority (6 ms)
        ("ml555", 3_800_000, 6_000_000),      # preempted by engine-0's second chunk
        ("engine-0", 6_000_000, 9_800_000),
        ("ml555", 9_800_000, 11_400_000),     # its 3.8 ms done at 11.4
        ("engine-1", 11_400_000, 12_000_000),
        ("engine-0", 12_000_000, 15_800_000),
        ("engine-1", 15_800_000, 18_000_000),
    ]


def test_a_flow_without_budget_waits_for_its_refill():
    # One flow needs 6 ms per 20 ms through a 4/10 ms server: 0..4, then the budget
    # consumed at 0 comes back at 10 and the last 2 ms run 10..12.
    system = IoSystem("one", Fraction(10**12), (Peripheral("p"),),
                      (Flow("f", "p", 6_000, 6 * MS, 20 * MS, 20 * MS, 0, "s"),), (IoServer("s", 4 * MS, 10 * MS),))
    run = simulate_controller(system)
    assert [(s.start_ns, s.end_ns) for s in run.segments] == [(0, 4 * MS), (10 * MS, 12 * MS)]
    assert run.chunks[0].finish_ns == 12 * MS


def test_a_peripheral_server_serves_its_flows_oldest_chunk_first():
    # One 4/10 ms server for two flows of one peripheral: a (3 ms, released 0) runs
    # 0..3; b (3 ms, released 1) runs 3..4 and is out of budget; the budget used
    # since the activation at 0 is back at 10, b runs 10..12.
    system = IoSystem("shared", Fraction(10**12), (Peripheral("p"),), (
        Flow("a", "p", 3_000, 3 * MS, 20 * MS, 20 * MS, 0, "s"),
        Flow("b", "p", 3_000, 3 * MS, 20 * MS, 20 * MS, 1 * MS, "s"),
    ), (IoServer("s", 4 * MS, 10 * MS),), horizon_ns=20 * MS)
    run = simulate_controller(system)
    assert [(s.flow, s.start_ns, s.end_ns) for s in run.segments] == [
        ("a", 0, 3 * MS), ("b", 3 * MS, 4 * MS), ("b", 10 * MS, 12 * MS)]
    assert [(c.flow, c.finish_ns) for c in run.chunks] == [("a", 3 * MS), ("b", 12 * MS)]


flow_params = st.tuples(st.integers(1, 8), st.integers(1, 6), st.integers(2, 12), st.integers(0, 5), st.booleans())


@settings(max_examples=120, deadline=None)
@given(params=st.lists(flow_params, min_size=1, max_size=4))
def test_no_flow_transfers_without_budget(params):
    # Flows (transfer, budget, period in ms, offset, shares the previous flow's server)
    # with random overload: replay each server's runs on a fresh SporadicServer, which
    # refuses a run without budget.
    flows, servers = [], []
    for i, (transfer, budget, period, offset, shared) in enumerate(params):
        if not (shared and servers):
            servers.append(IoServer(f"s{i}", min(budget, period) * MS, period * MS))
        flows.append(Flow(f"f{i}", "p", transfer * 1000, transfer * MS, period * MS, period * MS, offset * MS,
                          servers[-1].name))
    servers.sort(key=lambda s: s.period_ns)
    system = IoSystem("gen", Fraction(10**12), (Peripheral("p"),), tuple(flows), tuple(servers),
                      horizon_ns=60 * MS)
    run = simulate_controller(system)
    segments = sorted(run.segments, key=lambda s: s.start_ns)
    for a, b in zip(segments, segments[1:]):
        assert a.end_ns <= b.start_ns, "two flows on the bus at once"
    by_flow = {f.name: f for f in flows}
    for server in servers:
        replay = SporadicServer(server.budget_ns, server.period_ns)
        mine = [s for s in segments if by_flow[s.flow].server == server.name]
        chunks = sorted((c for c in run.chunks if by_flow[c.flow].server == server.name), key=lambda c: c.release_ns)
        for seg in mine:
            ends = {c.finish_ns for c in chunks if seg.start_ns < c.finish_ns < seg.end_ns}
            cuts = sorted({seg.start_ns, seg.end_ns} | ends)
            for begin, finish in zip(cuts, cuts[1:]):
                pending = [c for c in chunks if c.release_ns <= begin < c.finish_ns]
                assert pending, f"{seg.flow} on the bus at {begin} ns with no data ready"
                if not replay.active:
                    replay.activate(min(c.release_ns for c in pending))
                start = begin
                while start < finish:       # split at refill times, as the controller does
                    assert replay.available_ns(start) > 0, f"{seg.flow} on the bus at {start} ns without budget"
                    end = min(finish, replay.run_limit_ns(start))
                    replay.start(start)
                    replay.stop(end)
                    start = end
                if not any(c.release_ns < finish < c.finish_ns for c in chunks):
                    replay.deactivate(finish)
    total = sum(f.transfer_ns * len(run.chunks_of(f.name)) for f in flows)
    assert sum(s.end_ns - s.start_ns for s in segments) == total
