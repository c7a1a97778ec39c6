"""Chain bounds (rtsched.analysis.chains, docs/chains.md) on sets whose figures are worked out by hand."""

from __future__ import annotations

from rtsched.analysis import bounds_for
from rtsched.analysis.chains import chain_bounds
from rtsched.model import taskset_from_dict

MS = 1_000_000


def _fp(tasks, chains, scheduler="P-FP", cpus=(0,)):
    return taskset_from_dict({"name": "c", "platform": {"scheduler": scheduler, "cpus": list(cpus)},
                              "tasks": tasks, "chains": chains})


def _task(name, period_ms, compute_ms, priority=None, cpu=0, **extra):
    task = {"name": name, "period": f"{period_ms}ms", "partition": f"cpu{cpu}",
            "body": [{"compute": f"{compute_ms}ms"}], **extra}
    if priority is not None:
        task["priority"] = priority
    return task


def _sensor_and_filter(filter_period_ms: int) -> list[dict]:
    """s (10 ms, 1 ms) activates the event task f (2 ms) at the end of each job."""
    return [{"name": "s", "period": "10ms", "priority": 30, "partition": "cpu0",
             "body": [{"compute": "1ms"}, {"activate": "f"}]},
            {"name": "f", "kind": "event", "period": f"{filter_period_ms}ms", "priority": 20, "partition": "cpu0",
             "body": [{"compute": "2ms"}]}]


def _bounds(ts, **options):
    analysis = bounds_for(ts)
    return analysis, chain_bounds(ts, analysis, **options)


def test_register_chain_on_one_cpu_in_priority_order():
    # RTA: R = 1, 3, 7 ms. Davare: (10+1) + (20+3) + (40+7) = 81. Each task is ahead of the next:
    # reaction 10 + (0 + 20) + (0 + 40) + 7 = 77; data age (10 + 0) + (20 + 0) + 7 = 37.
    ts = _fp([_task("s", 10, 1, 30), _task("f", 20, 2, 20), _task("a", 40, 4, 10)],
             [{"name": "sfa", "tasks": ["s", "f", "a"]}])
    analysis, (bound,) = _bounds(ts)
    assert [analysis.bound(n) for n in "sfa"] == [1 * MS, 3 * MS, 7 * MS]
    assert (bound.links, bound.davare_ns, bound.reaction_ns, bound.data_age_ns) == (
        ("register", "register"), 81 * MS, 77 * MS, 37 * MS)
    # A release jitter of 1 ms delays the point past which the next task waits: +1 ms per link.
    _, (jittered,) = _bounds(ts, release_jitter_ns=MS)
    assert (jittered.reaction_ns, jittered.data_age_ns) == (79 * MS, 39 * MS)


def test_against_priority_order_or_across_cpus_each_link_costs_its_response():
    # a -> f -> s: each writer below its reader, so nothing is saved: Davare's sum for the reaction,
    # the same but the last task's gap for the data age.
    ts = _fp([_task("s", 10, 1, 30), _task("f", 20, 2, 20), _task("a", 40, 4, 10)],
             [{"name": "afs", "tasks": ["a", "f", "s"]}])
    _, (bound,) = _bounds(ts)
    assert bound.reaction_ns == bound.davare_ns == 81 * MS
    assert bound.data_age_ns == (40 + 7) * MS + (20 + 3) * MS + 1 * MS
    two = _fp([_task("s", 10, 1, 30), _task("f", 20, 2, 20, cpu=1)], [{"name": "sf", "tasks": ["s", "f"]}],
              cpus=(0, 1))
    _, (across,) = _bounds(two)
    assert across.reaction_ns == across.davare_ns == (10 + 1 + 20 + 2) * MS
    assert across.data_age_ns == (10 + 1 + 2) * MS


def test_edf_lead_and_lag_follow_the_deadlines():
    # P-EDF, one CPU, implicit deadlines: s (10, 1), f (20, 2), both R = their deadlines' test bounds.
    ts = _fp([_task("s", 10, 1), _task("f", 20, 2)], [{"name": "sf", "tasks": ["s", "f"]}], scheduler="P-EDF")
    analysis, (bound,) = _bounds(ts)
    r_s, r_f = analysis.bound("s"), analysis.bound("f")
    # forward: lead = max(0, 10 - 20) = 0; backward: lag = max(0, R_f - 20 + 10), capped by R_s.
    assert bound.reaction_ns == 10 * MS + 0 + 20 * MS + r_f
    assert bound.data_age_ns == 10 * MS + min(r_s, max(0, r_f - 10 * MS)) + r_f


def test_event_link_costs_the_activators_response_when_no_activation_is_lost():
    tasks = [
        *_sensor_and_filter(8),
        _task("a", 40, 4, 10),
    ]
    ts = _fp(tasks, [{"name": "sfa", "tasks": ["s", "f", "a"]}])
    analysis, (bound,) = _bounds(ts)
    r = {n: analysis.bound(n) for n in "sfa"}
    assert bound.links == ("event", "register")
    assert bound.davare_ns is None
    assert bound.reaction_ns == 10 * MS + r["s"] + (0 + 40 * MS) + r["a"]
    # f's releases are at most s's gap and response apart (M_f = 10 + 1), and f is ahead of a.
    assert bound.data_age_ns == r["s"] + (10 * MS + r["s"] + 0) + r["a"]


def test_what_has_no_bound_says_why():
    tasks = [
        *_sensor_and_filter(10),
        _task("a", 40, 4, 10),
    ]
    ts = _fp(tasks, [{"name": "sfa", "tasks": ["s", "f", "a"]}, {"name": "fa", "tasks": ["f", "a"]},
                     {"name": "af", "tasks": ["a", "f"]}])
    _, (sfa, fa, af) = _bounds(ts)
    assert sfa.reaction_ns is None and sfa.data_age_ns is None
    assert "may come 9 ms apart" in sfa.reaction_reason and "less than f's period 10 ms" in sfa.reaction_reason
    assert fa.reaction_ns is None and "may come 9 ms apart" in fa.reaction_reason
    assert fa.data_age_ns is None and "may come 9 ms apart" in fa.data_age_reason
    assert af.reaction_ns is None and af.data_age_ns is None
    alone = _fp([_task("a", 40, 4, 10), {"name": "f", "kind": "event", "period": "10ms", "priority": 20,
                 "partition": "cpu0", "body": [{"compute": "2ms"}]}], [{"name": "fa", "tasks": ["f", "a"]}])
    _, (unactivated,) = _bounds(alone)
    assert "f is an event task activated by no task" in unactivated.reaction_reason
    assert "f is an event task activated by no task" in unactivated.data_age_reason
    overloaded = _fp([_task("s", 10, 6, 30), _task("f", 10, 6, 20)], [{"name": "sf", "tasks": ["s", "f"]}])
    _, (none,) = _bounds(overloaded)
    assert none.reaction_ns is None and none.reaction_reason.startswith("f has no response-time bound")


def test_an_event_task_that_may_not_start_before_its_next_activation_needs_a_queue_beyond_it():
    # f's bound (0.5 + 1.5 = 2 ms) reaches its least gap (2 ms): one earlier job may still be unstarted
    # when the next activation comes; a queue of 1 may then be full (the library keeps fewer than the
    # queue unstarted), a queue of 2 is not.
    def chained(queue):
        return _fp([{"name": "s", "period": "10ms", "priority": 30, "partition": "cpu0",
                     "body": [{"compute": "1500us"}, {"activate": "f"}]},
                    {"name": "f", "kind": "event", "period": "2ms", "priority": 20, "partition": "cpu0",
                     "activation_queue": queue, "body": [{"compute": "500us"}]}],
                   [{"name": "sf", "tasks": ["s", "f"]}])
    analysis, (short,) = _bounds(chained(1))
    assert analysis.bound("f") == 2 * MS
    assert short.reaction_ns is None and "may have 1 activations not started" in short.reaction_reason
    _, (enough,) = _bounds(chained(2))
    assert enough.reaction_ns is not None


def test_rtsched_analyze_shows_each_chains_bounds_and_why_one_has_none(tmp_path):
    """The command prints the bounds `rtsched run` holds its chains against (the same analysis'),
    and says why a chain has none; --json lists them under "chains"."""
    import json
    import subprocess
    import sys

    import yaml

    tasks = [
        *_sensor_and_filter(10),
        _task("a", 40, 4, 10),
        _task("b", 20, 2, 25),
    ]
    chains = [{"name": "sfa", "tasks": ["s", "f", "a"]}, {"name": "ba", "tasks": ["b", "a"]}]
    path = tmp_path / "chains.yaml"
    path.write_text(yaml.safe_dump({"name": "c", "platform": {"scheduler": "P-FP", "cpus": [0]}, "tasks": tasks,
                                    "chains": chains}))
    _, (sfa, ba) = _bounds(_fp(tasks, chains))
    env = {k: v for k, v in __import__("os").environ.items() if k != "COLUMNS"} | {"COLUMNS": "200"}

    def analyze(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "rtsched.cli.main", "analyze", str(path), "--ideal",
                               *extra], capture_output=True, text=True, env=env, timeout=120)

    shown = analyze()
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if line.strip("│ ").startswith("ba "))
    assert f"{ba.reaction_ns / MS:.3f}" in row and f"{ba.data_age_ns / MS:.3f}" in row
    assert f"chain sfa: no reaction-time bound: {sfa.reaction_reason}" in " ".join(shown.stdout.split())
    listed = json.loads(analyze("--json").stdout)["chains"]
    assert [c["name"] for c in listed] == ["sfa", "ba"]
    assert listed[1]["reaction_bound_ns"] == ba.reaction_ns and listed[0]["reaction_bound_ns"] is None
