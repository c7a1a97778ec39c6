"""The ceiling protocols through ``rtsched run`` on this machine: 2-second runs, per protocol
family, checked in the trace (order, counts, causes; never absolute times, STYLE 18).

- pcp: two tasks nest two locks in opposite orders; every request is granted (no deadlock),
  the higher one waits only for the lower one (mostly for the ceiling, the lock being free),
  at most once per job, never in its nested request;
- srp, ipcp (deferred and eager), srp under P-EDF: no request ever blocks, neither for an
  owner nor for the ceiling; a job released while the lower one holds waits at its start
  (the gate), before its START;
- mpcp, fmlp+ (deferred and eager) across the two CPUs: mutual exclusion of the global
  resource in the trace, waiters for its owner, and a local higher-priority job released
  while the holder holds is held at its start.
Every set is schedulable with a wide margin: no deadline miss. Priorities 94-97 keep the
jobs above the project's other real-time tests (90); CPU 0 carries at most a few %.
"""

from __future__ import annotations

import copy
import json

import pytest

from rtsched.model import taskset_from_dict
from rtsched.pipeline.run_set import RunOptions, run_taskset
from rtsched.trace import EventType as EV
from rtsched.trace import read_trace
from rtsched.trace.events import BlockCause

from stolen_cpu import skip_if_misses_were_stolen, skip_if_stolen
from test_run_live import _rt_available, no_shield

pytestmark = pytest.mark.skipif(_rt_available() is not None, reason=str(_rt_available()))

RUN_NS = 2_000_000_000


def cs(*body):
    return list(body)


# hi nests a then b; lo nests b then a; hi is released 500us into lo's job, while lo holds b.
NESTED = {
    "name": "ceil-nested",
    "platform": {"scheduler": "P-FP", "cpus": [1]},
    "resources": [{"name": "a", "protocol": "pcp"}, {"name": "b", "protocol": "pcp"}],
    "tasks": [
        {"name": "hi", "period": "10ms", "offset": "500us", "priority": 97, "partition": "cpu1",
         "body": [{"compute": "100us"}, {"lock": "a"}, {"compute": "100us"}, {"lock": "b"},
                  {"compute": "100us"}, {"unlock": "b"}, {"unlock": "a"}]},
        {"name": "mid", "period": "20ms", "offset": "600us", "priority": 96, "partition": "cpu1",
         "body": [{"compute": "300us"}]},
        {"name": "lo", "period": "20ms", "priority": 95, "partition": "cpu1",
         "body": [{"compute": "100us"}, {"lock": "b"}, {"compute": "800us"}, {"lock": "a"},
                  {"compute": "200us"}, {"unlock": "a"}, {"unlock": "b"}]},
    ],
}

NESTED_EDF = {
    "name": "ceil-nested-edf",
    "platform": {"scheduler": "P-EDF", "cpus": [0, 1]},
    "resources": [{"name": "a", "protocol": "srp"}, {"name": "b", "protocol": "srp"}],
    "tasks": [
        {"name": "hi", "period": "10ms", "deadline": "5ms", "offset": "500us", "partition": "cpu1",
         "budget": "1ms", "body": NESTED["tasks"][0]["body"]},
        {"name": "mid", "period": "20ms", "deadline": "8ms", "offset": "600us", "partition": "cpu1",
         "budget": "1ms", "body": NESTED["tasks"][1]["body"]},
        {"name": "lo", "period": "20ms", "partition": "cpu1", "budget": "2ms",
         "body": NESTED["tasks"][2]["body"]},
    ],
}

# ctl (CPU 0) asks for bus while sensor (CPU 1) holds it, then holds it while io (CPU 0,
# above ctl) is released.
GLOBAL = {
    "name": "ceil-global",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "resources": [{"name": "bus", "protocol": "mpcp"}],
    "tasks": [
        # sensor holds bus over [50us, 1050us]; ctl asks at 150us and holds it over about
        # [1050us, 2050us]; io is released at 1500us, in the middle: margins of 0.5-1 ms
        # against release jitter, so the overlaps happen in every period.
        {"name": "ctl", "period": "10ms", "priority": 95, "partition": "cpu0",
         "body": [{"compute": "150us"}, {"lock": "bus"}, {"compute": "1ms"}, {"unlock": "bus"}]},
        {"name": "io", "period": "20ms", "offset": "1500us", "priority": 97, "partition": "cpu0",
         "body": [{"compute": "200us"}]},
        {"name": "sensor", "period": "10ms", "priority": 96, "partition": "cpu1",
         "body": [{"compute": "50us"}, {"lock": "bus"}, {"compute": "1ms"}, {"unlock": "bus"}]},
        {"name": "logger", "period": "20ms", "priority": 94, "partition": "cpu1",
         "body": [{"compute": "500us"}]},
    ],
}


def run(base, tmp_path, **resource):
    doc = copy.deepcopy(base)
    for r in doc["resources"]:
        r.update(resource)
    taskset = taskset_from_dict(doc)
    for _attempt in range(3):
        result = run_taskset(taskset, RunOptions(duration_ns=RUN_NS, out_dir=tmp_path, plots=False,
                                                 progress=False))
        assert result.summary["completed"], result.production.messages
        # On this shared VM other real-time work (or the RT throttling it causes) can take
        # the CPU away for tens of ms: a run with misses gets another chance, as in test_run_live.
        if result.summary["deadline_misses"] == 0:
            break
    return result


class Streams:
    def __init__(self, result):
        self.trace = read_trace(result.files["trace.rtst"])
        self.by_name = {t.name: t for t in result.table.tasks}  # stream and TID of each task
        self.stats = {s.task: s for s in result.stats}
        self.summary = result.summary

    def events(self, task):
        return self.trace.events_of(self.by_name[task].stream)

    def tid(self, task):
        return self.by_name[task].tid

    def names_of(self, tids):
        """TIDs as task names (for messages), unknown ones as numbers."""
        by_tid = {t.tid: name for name, t in self.by_name.items()}
        return {by_tid.get(int(tid), int(tid)) for tid in tids}

    def blocked(self, task, cause):
        ev = self.events(task)
        return ev[(ev["type"] == EV.LOCK_BLOCKED) & (ev["arg0"] == cause)]

    def count(self, task, kind):
        return int((self.events(task)["type"] == kind).sum())


def assert_healthy(s: Streams):
    """Every job ran, none missed its deadline (checked last in each test, after the
    behaviour, which the machine's load cannot change)."""
    assert s.summary["lost_events"] == 0
    for name, st in s.stats.items():
        assert st.jobs >= 50, (name, st.jobs)
    skip_if_misses_were_stolen(s.summary, RUN_NS)
    misses = {name: st.deadline_misses for name, st in s.stats.items() if st.deadline_misses}
    assert not misses, f"deadline misses {misses} in every attempt (a loaded machine, or a protocol that stalls)"


def assert_every_request_granted(s: Streams, task):
    # a job cut by the end of the run may leave its last request pending
    assert 0 <= s.count(task, EV.LOCK_REQUEST) - s.count(task, EV.LOCK_ACQUIRE) <= 1
    # Progress: as many jobs as the run's periods allow, unless the host stole the time.
    skip_if_misses_were_stolen(s.summary, RUN_NS)
    assert s.count(task, EV.LOCK_ACQUIRE) >= 2 * 50


def assert_gate_waits_come_before_start(s: Streams, task):
    """Every gate LOCK_BLOCKED of ``task`` is followed, in its stream, by the START of a job
    (with only more gate events, boosts and the RELEASE between)."""
    ev = s.events(task)
    waiting = False
    gated = 0
    for kind, arg0 in zip(ev["type"].tolist(), ev["arg0"].tolist()):
        if kind == EV.LOCK_BLOCKED:
            assert arg0 == BlockCause.GATE, "a started job blocked on a lock"
            gated += not waiting
            waiting = True
        elif kind in (EV.BOOST, EV.UNBOOST, EV.RELEASE):
            continue
        else:
            assert not waiting or kind == EV.START, f"gate wait ended by event {kind}, not START"
            waiting = False
    return gated


def assert_mutual_exclusion(s: Streams, resource: int, tasks):
    spans = []
    for task in tasks:
        ev = s.events(task)
        ev = ev[((ev["type"] == EV.LOCK_ACQUIRE) | (ev["type"] == EV.LOCK_RELEASE)) & (ev["arg0"] == resource)]
        acquired = ev[ev["type"] == EV.LOCK_ACQUIRE]["time_ns"]
        released = ev[ev["type"] == EV.LOCK_RELEASE]["time_ns"]
        n = min(len(acquired), len(released))
        spans += list(zip(acquired[:n].tolist(), released[:n].tolist(), [task] * n))
    spans.sort()
    assert len(spans) >= 100
    for (a0, r0, t0), (a1, r1, t1) in zip(spans, spans[1:]):
        assert a1 >= r0, f"{t1} acquired the resource at {a1} while {t0} held it until {r0}"


# -- pcp ---------------------------------------------------------------------------------


def test_pcp_nested_opposite_orders_complete_and_hi_waits_only_for_lo(tmp_path):
    s = Streams(run(NESTED, tmp_path))
    for task in ("hi", "lo"):
        assert_every_request_granted(s, task)
    # lo, the lowest, never waits; hi waits only for lo's one critical section: for the ceiling
    # of b (a free), or, when lo's job ran late and holds a as well, for a's owner
    assert len(s.events("lo")[s.events("lo")["type"] == EV.LOCK_BLOCKED]) == 0
    ceiling = s.blocked("hi", BlockCause.CEILING)
    assert len(ceiling) >= 10  # hi is released while lo holds b: about once per lo job
    waits = s.events("hi")[s.events("hi")["type"] == EV.LOCK_BLOCKED]
    assert s.names_of(waits["arg1"]) == {"lo"}
    assert set(waits["arg0"].tolist()) <= {BlockCause.CEILING, BlockCause.OWNER}
    # at most one wait per job: the first request (a) may wait, the nested one (b) never does
    assert_nested_requests_never_wait(s, "hi", inner=1)
    assert s.stats["hi"].blocked_ceiling >= 10
    assert s.stats["hi"].blocking_term_ns == 1_000_000  # lo's outermost section (800 + 200 us)
    assert_healthy(s)


def assert_nested_requests_never_wait(s: Streams, task, inner: int):
    """No LOCK_BLOCKED between a request of resource ``inner`` and its ACQUIRE."""
    in_inner = False
    for kind, arg0 in zip(s.events(task)["type"].tolist(), s.events(task)["arg0"].tolist()):
        if kind == EV.LOCK_REQUEST:
            in_inner = arg0 == inner
        elif kind == EV.LOCK_ACQUIRE:
            in_inner = False
        elif kind == EV.LOCK_BLOCKED:
            assert not in_inner, f"{task} waited in its nested request of resource {inner}"


# -- srp, ipcp -----------------------------------------------------------------------------


@pytest.mark.parametrize("protocol,variant", [("srp", "deferred"), ("ipcp", "deferred"),
                                              ("srp", "eager"), ("ipcp", "eager")])
def test_srp_and_ipcp_never_block_a_started_job(tmp_path, protocol, variant):
    s = Streams(run(NESTED, tmp_path, protocol=protocol, variant=variant))
    for task in ("hi", "mid", "lo"):
        assert len(s.blocked(task, BlockCause.OWNER)) == 0
        assert len(s.blocked(task, BlockCause.CEILING)) == 0
        assert_gate_waits_come_before_start(s, task)
    for task in ("hi", "lo"):
        assert_every_request_granted(s, task)
    if variant == "deferred":
        # hi (and mid) released while lo holds b start only once lo has released it
        assert assert_gate_waits_come_before_start(s, "hi") >= 10
        assert s.names_of(s.blocked("hi", BlockCause.GATE)["arg1"]) == {"lo"}
        assert s.stats["hi"].blocked_gate >= 10
    else:
        # eager: lo runs at the ceiling while it holds: the library records its boosts
        assert s.count("lo", EV.BOOST) >= 50
    assert_healthy(s)


@no_shield
def test_srp_under_pedf_uses_deadline_levels_and_never_blocks_a_started_job(tmp_path):
    result = run(NESTED_EDF, tmp_path)
    runner_input = json.loads(result.files["runner.json"].read_text())
    assert {t["name"]: t["lock_level"] for t in runner_input["tasks"]} == {"hi": 3, "mid": 2, "lo": 1}
    s = Streams(result)
    skip_if_stolen(s.summary, RUN_NS, "SCHED_DEADLINE jobs throttled mid-way resume without a job start")
    for task in ("hi", "mid", "lo"):
        assert len(s.blocked(task, BlockCause.OWNER)) == 0
        assert len(s.blocked(task, BlockCause.CEILING)) == 0
    # the first job declares its level after rts_job_next's gate and passes the gate again in
    # its body: only that job may wait after its START
    late = s.blocked("hi", BlockCause.GATE)
    assert len(late[late["job"] > 1]) >= 5  # hi released while lo holds b
    for task in ("hi", "mid"):
        assert_gate_waits_come_before_start_after_first_job(s, task)
    for task in ("hi", "lo"):
        assert_every_request_granted(s, task)
    assert_healthy(s)


def assert_gate_waits_come_before_start_after_first_job(s: Streams, task):
    ev = s.events(task)
    starts = {int(j): int(t) for j, t in zip(ev["job"][ev["type"] == EV.START], ev["time_ns"][ev["type"] == EV.START])}
    gates = ev[(ev["type"] == EV.LOCK_BLOCKED) & (ev["job"] > 1)]
    for job, time in zip(gates["job"].tolist(), gates["time_ns"].tolist()):
        assert job not in starts or time <= starts[job]


# -- mpcp, fmlp+ ---------------------------------------------------------------------------


@pytest.mark.parametrize("protocol,variant", [("mpcp", "deferred"), ("fmlp+", "deferred"),
                                              ("mpcp", "eager"), ("fmlp+", "eager")])
def test_global_protocols_exclude_across_cpus_and_hold_local_jobs_at_their_start(tmp_path, protocol, variant):
    result = run(GLOBAL, tmp_path, protocol=protocol, variant=variant)
    if variant == "eager":
        assert json.loads(result.files["runner.json"].read_text())["resources"][0]["ceiling"] == 98  # above io's 97 on CPU 0
    s = Streams(result)
    assert_mutual_exclusion(s, 0, ("ctl", "sensor"))
    for task in ("ctl", "sensor"):
        assert_every_request_granted(s, task)
        assert len(s.blocked(task, BlockCause.CEILING)) == 0
    # ctl asks while sensor holds: it waits for the owner, sensor's thread
    owner = s.blocked("ctl", BlockCause.OWNER)
    assert len(owner) >= 10
    assert s.names_of(owner["arg1"]) == {"sensor"}
    for task in ("io", "logger"):
        assert s.count(task, EV.LOCK_REQUEST) == 0
        assert_gate_waits_come_before_start(s, task)
    if variant == "deferred":
        # io, above ctl, released while ctl holds bus, starts only once ctl released it
        gated = s.blocked("io", BlockCause.GATE)
        assert len(gated) >= 5
        assert s.names_of(gated["arg1"]) == {"ctl"}
    assert result.analysis.test == ("p-fp-mpcp" if protocol == "mpcp" else "p-fp-fmlp+")
    assert_healthy(s)
