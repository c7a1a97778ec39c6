"""Hand-computed schedules of the simulator, per scheduler and per lock protocol
(exact simulated times: a simulation has no noise)."""

from __future__ import annotations

from rtsched.trace import BlockCause
from rtsched.trace import EventType as EV

from sim_helpers import MS, events, first_job, sim_trace, tid_of


def _fp(tasks, resources=(), scheduler="P-FP"):
    data = {"name": "hand", "platform": {"scheduler": scheduler, "cpus": [0]},
            "resources": list(resources), "tasks": []}
    for t in tasks:
        data["tasks"].append({"partition": "cpu0", **t} if scheduler == "P-FP" else t)
    return data


def test_fp_preemption_order(tmp_path):
    # lo runs from 0; hi, released at 1 ms, preempts it for 2 ms; lo ends at 7 ms
    trace, _ = sim_trace(tmp_path, _fp([
        {"name": "lo", "period": "20ms", "priority": 10, "body": [{"compute": "5ms"}]},
        {"name": "hi", "period": "10ms", "offset": "1ms", "priority": 20, "body": [{"compute": "2ms"}]},
    ]), 20 * MS)
    assert first_job(trace, "lo") == {"START": 0, "START_cpu": 0, "COMPLETE": 7 * MS, "COMPLETE_cpu": 0}
    assert first_job(trace, "hi")["START"] == 1 * MS and first_job(trace, "hi")["COMPLETE"] == 3 * MS
    (_, _, _, _, _, cpu_ns), = events(trace, "lo", EV.COMPLETE)
    assert cpu_ns == 5 * MS  # CPU time, not the response


def test_a_job_that_ends_when_a_higher_one_is_released_completes_then(tmp_path):
    # lo (5 ms, every 15 ms) and hi (1 ms, every 6 ms): lo's third job, released at 30 ms with
    # hi, runs [31, 36) and ends exactly when hi is released again at 36 ms. It completes at
    # 36 ms (response 6 ms, fp-rta's bound), not preempted with nothing left to run (found by
    # the property test against fp-rta: the simulator once answered 7 ms).
    trace, _ = sim_trace(tmp_path, _fp([
        {"name": "lo", "period": "15ms", "priority": 10, "body": [{"compute": "5ms"}]},
        {"name": "hi", "period": "6ms", "priority": 20, "body": [{"compute": "1ms"}]},
    ]), 45 * MS)
    completions = [e[1] for e in events(trace, "lo", EV.COMPLETE)]
    assert completions == [6 * MS, 21 * MS, 36 * MS]


def test_a_job_released_while_the_previous_runs_starts_after_it_and_misses(tmp_path):
    trace, _ = sim_trace(tmp_path, _fp([
        {"name": "hog", "period": "10ms", "priority": 20, "body": [{"compute": "4ms"}]},
        {"name": "late", "period": "5ms", "priority": 10, "body": [{"compute": "2ms"}]},
    ]), 10 * MS)
    late = events(trace, "late", EV.RELEASE, EV.START, EV.COMPLETE, EV.DEADLINE_MISS)
    assert late == [
        ("RELEASE", 0, 0, 1, 0, 5 * MS), ("START", 4 * MS, 0, 1, 0, 0), ("COMPLETE", 6 * MS, 0, 1, 0, 2 * MS),
        ("DEADLINE_MISS", 6 * MS, 0, 1, 0, 1 * MS),
        ("RELEASE", 5 * MS, 0, 2, 0, 10 * MS), ("START", 6 * MS, 0, 2, 0, 0), ("COMPLETE", 8 * MS, 0, 2, 0, 2 * MS),
    ]


def test_edf_order_by_absolute_deadline(tmp_path):
    # a (deadline 10 ms) runs from 0; b released at 1 ms with deadline 5 ms preempts it
    data = {"name": "edf", "platform": {"scheduler": "P-EDF", "cpus": [0]}, "tasks": [
        {"name": "a", "period": "10ms", "partition": "cpu0", "body": [{"compute": "3ms"}]},
        {"name": "b", "period": "8ms", "deadline": "4ms", "offset": "1ms", "partition": "cpu0",
         "body": [{"compute": "2ms"}]},
    ]}
    trace, _ = sim_trace(tmp_path, data, 8 * MS)
    assert first_job(trace, "b")["START"] == 1 * MS and first_job(trace, "b")["COMPLETE"] == 3 * MS
    assert first_job(trace, "a")["COMPLETE"] == 5 * MS


def test_fp_runs_the_higher_priority_where_edf_runs_the_earlier_deadline(tmp_path):
    # the same two jobs: under FP the long-deadline one has the higher priority
    fp = _fp([
        {"name": "a", "period": "10ms", "priority": 20, "body": [{"compute": "3ms"}]},
        {"name": "b", "period": "8ms", "deadline": "4ms", "offset": "1ms", "priority": 10,
         "body": [{"compute": "2ms"}]},
    ])
    trace, _ = sim_trace(tmp_path, fp, 8 * MS)
    assert first_job(trace, "b")["START"] == 3 * MS and first_job(trace, "b")["COMPLETE"] == 5 * MS


def test_gedf_on_two_cpus_migrates_a_preempted_job(tmp_path):
    # 0: b (d 9, the earliest) takes CPU 0, a (d 10) CPU 1; 2 ms: c (d 6) preempts a (the latest
    # deadline); 3 ms: b completes and a resumes on CPU 0 (it migrated); c ends at 4 ms, a at 7 ms
    data = {"name": "gedf", "platform": {"scheduler": "G-EDF", "cpus": [0, 1]}, "tasks": [
        {"name": "a", "period": "20ms", "deadline": "10ms", "body": [{"compute": "6ms"}]},
        {"name": "b", "period": "20ms", "deadline": "9ms", "body": [{"compute": "3ms"}]},
        {"name": "c", "period": "20ms", "deadline": "4ms", "offset": "2ms", "body": [{"compute": "2ms"}]},
    ]}
    trace, _ = sim_trace(tmp_path, data, 20 * MS, cpus=(0, 1))
    assert first_job(trace, "a") == {"START": 0, "START_cpu": 1, "COMPLETE": 7 * MS, "COMPLETE_cpu": 0}
    assert first_job(trace, "b") == {"START": 0, "START_cpu": 0, "COMPLETE": 3 * MS, "COMPLETE_cpu": 0}
    assert first_job(trace, "c") == {"START": 2 * MS, "START_cpu": 1, "COMPLETE": 4 * MS, "COMPLETE_cpu": 1}


def test_gfp_runs_the_two_highest_priorities(tmp_path):
    data = {"name": "gfp", "platform": {"scheduler": "G-FP", "cpus": [0, 1]}, "tasks": [
        {"name": "lo", "period": "20ms", "priority": 5, "body": [{"compute": "4ms"}]},
        {"name": "mid", "period": "20ms", "priority": 10, "body": [{"compute": "4ms"}]},
        {"name": "hi", "period": "20ms", "priority": 20, "offset": "1ms", "body": [{"compute": "2ms"}]},
    ]}
    trace, _ = sim_trace(tmp_path, data, 20 * MS, cpus=(0, 1))
    assert first_job(trace, "mid")["COMPLETE"] == 4 * MS
    assert first_job(trace, "lo")["COMPLETE"] == 6 * MS  # preempted by hi from 1 to 3 ms
    assert first_job(trace, "hi")["START_cpu"] == first_job(trace, "lo")["START_cpu"]


def _inversion(protocol: str) -> dict:
    # lo locks r at 0 for 4 ms; mid (no lock) arrives at 1 ms; hi asks for r at 2 ms
    return _fp([
        {"name": "lo", "period": "50ms", "priority": 10,
         "body": [{"lock": "r"}, {"compute": "4ms"}, {"unlock": "r"}]},
        {"name": "mid", "period": "50ms", "offset": "1ms", "priority": 15, "body": [{"compute": "3ms"}]},
        {"name": "hi", "period": "50ms", "offset": "2ms", "priority": 20,
         "body": [{"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}]},
    ], resources=[{"name": "r", "protocol": protocol}])


def test_pip_lends_the_owner_the_waiters_priority(tmp_path):
    trace, _ = sim_trace(tmp_path, _inversion("pip"), 50 * MS)
    hi = events(trace, "hi", EV.LOCK_REQUEST, EV.LOCK_BLOCKED, EV.LOCK_ACQUIRE, EV.LOCK_RELEASE, EV.COMPLETE)
    assert hi == [  # no LOCK_BLOCKED: as the runner, a pip mutex waits in the kernel unrecorded
        ("LOCK_REQUEST", 2 * MS, 0, 1, 0, 0),
        ("LOCK_ACQUIRE", 5 * MS, 0, 1, 0, 0),  # lo ran 2..5 ms at hi's priority, mid waited
        ("LOCK_RELEASE", 6 * MS, 0, 1, 0, 0),
        ("COMPLETE", 6 * MS, 0, 1, 0, 1 * MS),
    ]
    assert first_job(trace, "lo")["COMPLETE"] == 5 * MS and first_job(trace, "mid")["COMPLETE"] == 8 * MS


def test_without_inheritance_the_middle_task_delays_the_high_one(tmp_path):
    trace, _ = sim_trace(tmp_path, _inversion("none"), 50 * MS)
    assert first_job(trace, "mid")["COMPLETE"] == 4 * MS
    assert first_job(trace, "lo")["COMPLETE"] == 7 * MS
    assert first_job(trace, "hi")["COMPLETE"] == 8 * MS


def _ceiling(protocol: str) -> dict:
    # lo holds r1 (ceiling 20: hi uses it) from 0 to 3 ms; mid (15) arrives at 1 ms and wants r2
    return _fp([
        {"name": "lo", "period": "100ms", "priority": 10,
         "body": [{"lock": "r1"}, {"compute": "3ms"}, {"unlock": "r1"}]},
        {"name": "mid", "period": "100ms", "offset": "1ms", "priority": 15,
         "body": [{"lock": "r2"}, {"compute": "1ms"}, {"unlock": "r2"}]},
        {"name": "hi", "period": "100ms", "offset": "50ms", "priority": 20,
         "body": [{"lock": "r1"}, {"compute": "1ms"}, {"unlock": "r1"}]},
    ], resources=[{"name": "r1", "protocol": protocol}, {"name": "r2", "protocol": protocol}])


def test_pcp_blocks_a_free_lock_on_the_system_ceiling(tmp_path):
    trace, _ = sim_trace(tmp_path, _ceiling("pcp"), 10 * MS)
    mid = events(trace, "mid")
    assert [e[:2] for e in mid] == [
        ("RELEASE", 1 * MS), ("START", 1 * MS), ("LOCK_REQUEST", 1 * MS), ("LOCK_BLOCKED", 1 * MS),
        ("LOCK_ACQUIRE", 3 * MS), ("LOCK_RELEASE", 4 * MS), ("COMPLETE", 4 * MS),
    ]
    blocked = mid[3]
    assert (blocked[4], blocked[5]) == (BlockCause.CEILING, tid_of(trace, "lo"))
    assert first_job(trace, "lo")["COMPLETE"] == 3 * MS


def test_srp_holds_back_the_job_start(tmp_path):
    trace, _ = sim_trace(tmp_path, _ceiling("srp"), 10 * MS)
    mid = events(trace, "mid")
    assert [e[:2] for e in mid] == [
        ("LOCK_BLOCKED", 1 * MS), ("RELEASE", 1 * MS), ("START", 3 * MS),
        ("LOCK_REQUEST", 3 * MS), ("LOCK_ACQUIRE", 3 * MS), ("LOCK_RELEASE", 4 * MS), ("COMPLETE", 4 * MS),
    ]
    gate = mid[0]
    assert (gate[3], gate[4], gate[5]) == (1, BlockCause.GATE, tid_of(trace, "lo"))


def test_ipcp_gates_like_srp_under_fixed_priority(tmp_path):
    trace, _ = sim_trace(tmp_path, _ceiling("ipcp"), 10 * MS)
    assert first_job(trace, "mid") == {"START": 3 * MS, "START_cpu": 0, "COMPLETE": 4 * MS, "COMPLETE_cpu": 0}


def test_a_job_above_the_ceiling_is_not_held_back(tmp_path):
    data = _ceiling("srp")
    data["tasks"].append({"name": "top", "period": "100ms", "offset": "1ms", "priority": 30, "partition": "cpu0",
                          "body": [{"compute": "1ms"}]})
    trace, _ = sim_trace(tmp_path, data, 10 * MS)
    assert first_job(trace, "top")["START"] == 1 * MS and first_job(trace, "top")["COMPLETE"] == 2 * MS
    assert first_job(trace, "mid")["START"] == 4 * MS  # gated until lo unlocks at 4 ms


def test_sleep_gives_the_cpu_away(tmp_path):
    trace, _ = sim_trace(tmp_path, _fp([
        {"name": "sleeper", "period": "20ms", "priority": 20,
         "body": [{"compute": "1ms"}, {"sleep": "3ms"}, {"compute": "1ms"}]},
        {"name": "filler", "period": "20ms", "priority": 10, "body": [{"compute": "2ms"}]},
    ]), 20 * MS)
    assert first_job(trace, "filler")["COMPLETE"] == 3 * MS
    assert first_job(trace, "sleeper")["COMPLETE"] == 5 * MS
    assert ("SLEEP", 1 * MS, 0, 1, 0, 3 * MS) in events(trace, "sleeper", EV.SLEEP)


def test_sporadic_releases_follow_the_runners_generator(tmp_path):
    data = _fp([{"name": "s", "kind": "sporadic", "period": "10ms", "priority": 10,
                 "sporadic": {"max_extra": "5ms", "seed": 7}, "body": [{"compute": "1ms"}]}])
    trace, _ = sim_trace(tmp_path, data, 200 * MS)
    releases = [e[1] for e in events(trace, "s", EV.RELEASE)]
    gaps = [b - a for a, b in zip(releases, releases[1:])]
    assert all(10 * MS <= g <= 15 * MS for g in gaps) and len(set(gaps)) > 3
    again, _ = sim_trace(tmp_path, data, 200 * MS)
    assert [e[1] for e in events(again, "s", EV.RELEASE)] == releases  # deterministic


def test_context_switch_overhead_is_charged_to_the_incoming_thread(tmp_path):
    from rtsched.sim import SimOverheads

    trace, _ = sim_trace(tmp_path, _fp([
        {"name": "lo", "period": "20ms", "priority": 10, "body": [{"compute": "5ms"}]},
        {"name": "hi", "period": "10ms", "offset": "1ms", "priority": 20, "body": [{"compute": "2ms"}]},
    ]), 20 * MS, overheads=SimOverheads(context_switch_ns=10_000, release_latency_ns=5_000))
    # hi: ready 5 us after its release, 10 us switch; lo: switched to twice (start, after hi)
    assert first_job(trace, "hi")["START"] == 1 * MS + 15_000
    assert first_job(trace, "hi")["COMPLETE"] == 3 * MS + 15_000
    assert first_job(trace, "lo")["COMPLETE"] == 7 * MS + 15_000 + 2 * 10_000


def _three_cpus(protocol: str) -> dict:
    # holder (CPU 0) holds g from 0 to 3 ms; low (CPU 1) asks at 1 ms, high (CPU 2) at 2 ms
    def task(name, cpu, priority, before, hold):
        return {"name": name, "period": "50ms", "priority": priority, "partition": f"cpu{cpu}",
                "body": [{"compute": before}, {"lock": "g"}, {"compute": hold}, {"unlock": "g"}]}
    return {"name": "global", "platform": {"scheduler": "P-FP", "cpus": [0, 1, 2]},
            "resources": [{"name": "g", "protocol": protocol}],
            "tasks": [task("holder", 0, 10, "1us", "3ms"), task("low", 1, 20, "1ms", "1ms"),
                      task("high", 2, 30, "2ms", "1ms")]}


def _acquired(trace, task):
    return next(e[1] for e in events(trace, task, EV.LOCK_ACQUIRE))


def test_fmlp_plus_serves_requests_in_fifo_order(tmp_path):
    trace, _ = sim_trace(tmp_path, _three_cpus("fmlp+"), 20 * MS, cpus=(0, 1, 2))
    assert _acquired(trace, "low") == 3 * MS + 1000 and _acquired(trace, "high") == 4 * MS + 1000
    blocked = events(trace, "high", EV.LOCK_BLOCKED)
    assert [(e[1], e[4], e[5]) for e in blocked] == [(2 * MS, BlockCause.OWNER, tid_of(trace, "holder"))]


def test_mpcp_serves_the_highest_priority_remote_waiter_first(tmp_path):
    trace, _ = sim_trace(tmp_path, _three_cpus("mpcp"), 20 * MS, cpus=(0, 1, 2))
    assert _acquired(trace, "high") == 3 * MS + 1000 and _acquired(trace, "low") == 4 * MS + 1000
    # low waits for the holder first, then (no new record) for high, which got it
    assert [(e[1], e[5]) for e in events(trace, "low", EV.LOCK_BLOCKED)] == [(1 * MS, tid_of(trace, "holder"))]


def test_a_global_lock_holder_gates_local_job_starts(tmp_path):
    data = _three_cpus("mpcp")
    data["tasks"].append({"name": "local", "period": "50ms", "offset": "2ms", "priority": 90, "partition": "cpu0",
                          "body": [{"compute": "1ms"}]})
    trace, _ = sim_trace(tmp_path, data, 20 * MS, cpus=(0, 1, 2))
    local = events(trace, "local")
    assert [e[:2] for e in local[:3]] == [("LOCK_BLOCKED", 2 * MS), ("RELEASE", 2 * MS), ("START", 3 * MS + 1000)]
    assert (local[0][4], local[0][5]) == (BlockCause.GATE, tid_of(trace, "holder"))
    assert first_job(trace, "local")["COMPLETE"] == 4 * MS + 1000


def test_a_signal_wakes_the_waiter_which_takes_the_mutex_at_the_signallers_unlock(tmp_path):
    data = {"name": "cv", "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
            "resources": [{"name": "m", "protocol": "pip"}], "condvars": [{"name": "c", "mutex": "m"}],
            "tasks": [
                {"name": "consumer", "period": "50ms", "priority": 20, "partition": "cpu1",
                 "body": [{"lock": "m"}, {"wait": "c"}, {"compute": "1ms"}, {"unlock": "m"}]},
                {"name": "producer", "period": "50ms", "offset": "1ms", "priority": 10, "partition": "cpu0",
                 "body": [{"lock": "m"}, {"compute": "1ms"}, {"signal": "c"}, {"compute": "1ms"}, {"unlock": "m"}]},
            ]}
    trace, _ = sim_trace(tmp_path, data, 20 * MS, cpus=(0, 1))
    assert [e[:2] for e in events(trace, "consumer")] == [
        ("RELEASE", 0), ("START", 0), ("LOCK_REQUEST", 0), ("LOCK_ACQUIRE", 0), ("COND_WAIT", 0),
        ("COND_WAKE", 3 * MS), ("LOCK_RELEASE", 4 * MS), ("COMPLETE", 4 * MS),
    ]
    assert ("COND_SIGNAL", 2 * MS) in [e[:2] for e in events(trace, "producer")]


def _two_waiters(wake: str) -> dict:
    waiter = [{"lock": "m"}, {"wait": "c"}, {"compute": "1ms"}, {"unlock": "m"}]
    return _fp([
        {"name": "w1", "period": "50ms", "priority": 20, "body": waiter},
        {"name": "w2", "period": "50ms", "priority": 10, "body": waiter},
        {"name": "b", "period": "50ms", "offset": "1ms", "priority": 5, "wcet": "1us",
         "body": [{"lock": "m"}, {wake: "c"}, {"unlock": "m"}]},
    ], resources=[{"name": "m", "protocol": "pip"}]) | {"condvars": [{"name": "c", "mutex": "m"}]}


def test_broadcast_wakes_every_waiter_in_priority_order(tmp_path):
    trace, _ = sim_trace(tmp_path, _two_waiters("broadcast"), 20 * MS)
    assert [e[1] for e in events(trace, "w1", EV.COND_WAKE, EV.COMPLETE)] == [1 * MS, 2 * MS]
    assert [e[1] for e in events(trace, "w2", EV.COND_WAKE, EV.COMPLETE)] == [2 * MS, 3 * MS]


def test_signal_wakes_one_waiter_and_the_other_keeps_waiting(tmp_path):
    trace, _ = sim_trace(tmp_path, _two_waiters("signal"), 20 * MS)
    assert [e[1] for e in events(trace, "w1", EV.COND_WAKE, EV.COMPLETE)] == [1 * MS, 2 * MS]
    assert events(trace, "w2", EV.COND_WAKE, EV.COMPLETE) == []


def _picv_example(tmp_path, picv: bool, overheads=None):
    from rtsched.model import load_taskset
    from rtsched.sim import SimOptions, simulate
    from rtsched.trace import read_trace

    from test_sim_report import EXAMPLES

    options = SimOptions(duration_ns=100 * MS, picv=picv)
    if overheads is not None:
        options = SimOptions(duration_ns=100 * MS, picv=picv, overheads=overheads)
    run = simulate(load_taskset(EXAMPLES / "picv-rpc.yaml"), options, tmp_path / "picv.rtst")
    return read_trace(run.trace_path)


def test_rpc_call_is_served_at_the_callers_priority_with_picv(tmp_path):
    # Client1 (90) calls the server (50) at 10 ms; lent 90, the server serves it before
    # Client2 (80) and Annoyer (70) run: the reply comes at 14.5 ms
    trace = _picv_example(tmp_path, picv=True)
    service = 4_500_000
    assert events(trace, "Client1", EV.RPC_CALL, EV.RPC_REPLY, EV.COMPLETE)[:3] == [
        ("RPC_CALL", 10 * MS, 1, 1, 0, service), ("RPC_REPLY", 14 * MS + 500_000, 1, 1, 0, 0),
        ("COMPLETE", 14 * MS + 500_000, 1, 1, 0, 10 * MS)]
    assert events(trace, "Server", EV.RPC_SERVE_START, EV.RPC_SERVE_END)[:2] == [
        ("RPC_SERVE_START", 10 * MS, 1, 1, 0, service), ("RPC_SERVE_END", 14 * MS + 500_000, 1, 1, 0, service)]
    # the server has its own priority at t0, Client1's while it serves it, its own again at the reply
    client1 = tid_of(trace, "Client1")
    assert events(trace, "Server", EV.PRIORITY)[:3] == [
        ("PRIORITY", 0, 0xFFFF, 0, 50, 0), ("PRIORITY", 10 * MS, 0xFFFF, 0, 90, client1),
        ("PRIORITY", 14 * MS + 500_000, 1, 0, 50, 0)]
    assert next(s["task_id"] for s in trace.streams if s["name"] == "Server") == -1


def test_without_picv_middle_priorities_delay_the_call(tmp_path):
    # the server keeps its own priority 50: Client2 (10..20 ms) and Annoyer (20..30 ms) run first
    trace = _picv_example(tmp_path, picv=False)
    assert first_job(trace, "Client1")["COMPLETE"] == 34 * MS + 500_000
    assert events(trace, "Server", EV.PRIORITY) == [("PRIORITY", 0, 0xFFFF, 0, 50, 0)]


def test_srp_under_pedf_gates_by_preemption_level(tmp_path):
    # levels by relative deadline: hi (5 ms) > mid (10 ms) > lo (20 ms); r's ceiling is hi's level.
    # mid (absolute deadline 11 ms, earlier than lo's 20 ms) would preempt lo at 1 ms; SRP holds its
    # start back until lo unlocks r at 3 ms
    data = {"name": "srp-edf", "platform": {"scheduler": "P-EDF", "cpus": [0]},
            "resources": [{"name": "r", "protocol": "srp"}], "tasks": [
                {"name": "lo", "period": "20ms", "partition": "cpu0",
                 "body": [{"lock": "r"}, {"compute": "3ms"}, {"unlock": "r"}]},
                {"name": "mid", "period": "10ms", "offset": "1ms", "partition": "cpu0", "body": [{"compute": "1ms"}]},
                {"name": "hi", "period": "100ms", "deadline": "5ms", "offset": "50ms", "partition": "cpu0",
                 "body": [{"lock": "r"}, {"compute": "1ms"}, {"unlock": "r"}]}]}
    trace, _ = sim_trace(tmp_path, data, 10 * MS)
    assert [e[:2] for e in events(trace, "mid")[:3]] == [("LOCK_BLOCKED", 1 * MS), ("RELEASE", 1 * MS),
                                                        ("START", 3 * MS)]


def test_a_pedf_partition_of_two_cpus_is_gedf_inside(tmp_path):
    data = {"name": "cluster", "platform": {"scheduler": "P-EDF", "cpus": [0, 1],
                                            "partitions": [{"name": "both", "cpus": [0, 1]}]}, "tasks": [
        {"name": n, "period": "10ms", "deadline": d, "partition": "both", "body": [{"compute": "4ms"}]}
        for n, d in (("a", "10ms"), ("b", "9ms"), ("c", "8ms"))]}
    trace, _ = sim_trace(tmp_path, data, 10 * MS, cpus=(0, 1))
    assert first_job(trace, "c")["COMPLETE"] == 4 * MS and first_job(trace, "b")["COMPLETE"] == 4 * MS
    assert first_job(trace, "a") == {"START": 4 * MS, "START_cpu": first_job(trace, "c")["COMPLETE_cpu"],
                                     "COMPLETE": 8 * MS, "COMPLETE_cpu": first_job(trace, "c")["COMPLETE_cpu"]}
