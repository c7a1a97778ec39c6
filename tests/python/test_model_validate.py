"""Validation: every kind of error is reported with its path, all at once."""

import copy

import pytest

from rtsched.model import (
    Compute,
    Lock,
    Signal,
    TaskSetError,
    Unlock,
    Wait,
    taskset_from_dict,
    validate_dict,
)

BASE = {
    "name": "base",
    "duration": "1s",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "resources": [{"name": "r1", "protocol": "pip"}, {"name": "r2", "protocol": "none"}],
    "condvars": [{"name": "cv1", "mutex": "r1"}],
    "tasks": [
        {
            "name": "t1",
            "period": "10ms",
            "priority": 10,
            "partition": "cpu0",
            "body": [{"compute": "1ms"}, {"lock": "r1"}, {"signal": "cv1"}, {"unlock": "r1"}],
        },
        {
            "name": "t2",
            "period": "20ms",
            "priority": 5,
            "partition": "cpu1",
            "body": [{"lock": "r1"}, {"wait": "cv1"}, {"compute": "2ms"}, {"unlock": "r1"}],
        },
    ],
}


def base(**changes):
    doc = copy.deepcopy(BASE)
    doc.update(changes)
    return doc


def errors_of(doc):
    return validate_dict(doc)


def assert_error(doc, expected):
    errors = errors_of(doc)
    assert any(e.startswith(expected) or expected in e for e in errors), errors


def test_base_is_valid_and_builds_the_model():
    ts = taskset_from_dict(base())
    assert ts.scheduler == "P-FP"
    t1 = ts.task("t1")
    assert t1.period_ns == 10_000_000 and t1.deadline_ns == 10_000_000
    assert t1.offset_ns == 0 and t1.wcet_ns == 1_000_000  # default wcet: the body's compute
    assert t1.policy == "fifo" and t1.priority == 10 and t1.budget_ns is None
    assert t1.body == (Compute(1_000_000), Lock("r1"), Signal("cv1"), Unlock("r1"))
    assert ts.task("t2").body[1] == Wait("cv1")
    assert [p.name for p in ts.platform.partitions] == ["cpu0", "cpu1"]


def test_duration_error_has_its_path():
    doc = base()
    doc["tasks"][1]["period"] = "ten"
    assert 'tasks[1].period: expected a duration, got "ten"' in "\n".join(errors_of(doc))


def test_unknown_key_with_suggestion():
    doc = base()
    doc["tasks"][0]["perod"] = "10ms"
    assert 'tasks[0].perod: unknown key (did you mean "period"?)' in errors_of(doc)


@pytest.mark.parametrize(
    "where, key, expected",
    [
        ((), "nmae", 'nmae: unknown key (did you mean "name"?)'),
        (("platform",), "cpu", 'platform.cpu: unknown key (did you mean "cpus"?)'),
        (("resources", 0), "protcol", 'resources[0].protcol: unknown key (did you mean "protocol"?)'),
        (("condvars", 0), "mutx", 'condvars[0].mutx: unknown key (did you mean "mutex"?)'),
        (("tasks", 0), "zzz", "tasks[0].zzz: unknown key"),
    ],
)
def test_unknown_keys_everywhere(where, key, expected):
    doc = base()
    target = doc
    for step in where:
        target = target[step]
    target[key] = 1
    assert expected in errors_of(doc)


def test_every_error_is_reported_not_only_the_first():
    doc = base()
    doc["tasks"][0]["period"] = "ten"
    doc["tasks"][1]["priority"] = 100
    doc["tasks"][1]["perod"] = "1ms"
    doc["resources"][1]["protocol"] = "bogus"
    with pytest.raises(TaskSetError) as info:
        taskset_from_dict(doc, source="f.yaml")
    errors = info.value.errors
    assert len(errors) == 4, errors
    text = str(info.value)
    assert text.count("f.yaml: ") == 4
    assert "tasks[1].priority: must be in 1..99, got 100" in text


def test_missing_required_keys():
    doc = base()
    del doc["name"]
    del doc["tasks"][0]["period"]
    errors = errors_of(doc)
    assert '(top level): missing required key "name"' in errors
    assert 'tasks[0]: missing required key "period"' in errors


def test_types():
    doc = base(platform=[1])
    assert "platform: expected a mapping, got a list" in errors_of(doc)
    doc = base(tasks={"t": 1})
    assert "tasks: expected a list, got a mapping" in errors_of(doc)


def test_unique_names():
    doc = base()
    doc["tasks"][1]["name"] = "t1"
    doc["resources"][1]["name"] = "r1"
    errors = errors_of(doc)
    assert 'tasks[1].name: duplicate task name "t1" (first at tasks[0].name)' in errors
    assert 'resources[1].name: duplicate resource name "r1" (first at resources[0].name)' in errors


def test_bad_names():
    doc = base(name="two words")
    assert_error(doc, 'name: "two words" is not a valid name')
    doc = base()
    doc["tasks"][0]["name"] = "x" * 32
    assert_error(doc, "tasks[0].name: \"" + "x" * 32 + '" is longer than 31 characters')


def test_references_must_exist():
    doc = base()
    doc["tasks"][0]["body"][1] = {"lock": "r9"}
    doc["tasks"][0]["partition"] = "cpu7"
    doc["condvars"][0]["mutex"] = "nope"
    errors = errors_of(doc)
    assert_error(doc, 'tasks[0].body[1].lock: unknown resource "r9"')
    assert_error(doc, 'tasks[0].partition: unknown partition "cpu7"')
    assert_error(doc, 'condvars[0].mutex: unknown resource "nope"')
    # a condvar whose declaration is wrong is reported once, not again at each use
    assert not any("unknown condvar" in e for e in errors), errors


def test_priority_range_and_requirement():
    doc = base()
    doc["tasks"][0]["priority"] = 0
    del doc["tasks"][1]["priority"]
    assert_error(doc, "tasks[0].priority: must be in 1..99, got 0")
    assert_error(doc, 'tasks[1]: missing required key "priority"')


def test_priority_and_partition_rejected_under_edf():
    doc = base(platform={"scheduler": "G-EDF"})
    errors = errors_of(doc)
    assert_error(doc, "tasks[0].priority: not used under G-EDF")
    assert_error(doc, "tasks[0].partition: not used under G-EDF")
    assert len([e for e in errors if e.startswith("tasks[1]")]) == 2


def test_partition_required_under_partitioned():
    doc = base()
    del doc["tasks"][0]["partition"]
    assert_error(doc, 'tasks[0]: missing required key "partition" (required under P-FP)')


def test_durations_positive_offset_non_negative():
    doc = base()
    doc["tasks"][0].update(period="0ms", deadline="0us", offset="-1ms", wcet="0s", budget="0ms")
    errors = "\n".join(errors_of(doc))
    for key in ("period", "deadline", "wcet", "budget"):
        assert f"tasks[0].{key}: must be > 0" in errors
    assert "tasks[0].offset: expected a non-negative duration" in errors
    doc = base()
    doc["tasks"][0]["offset"] = "0ms"
    assert taskset_from_dict(doc).tasks[0].offset_ns == 0


def test_arbitrary_deadlines_are_allowed_under_fp():
    doc = base()
    doc["tasks"][0]["deadline"] = "25ms"
    assert taskset_from_dict(doc).tasks[0].deadline_ns == 25_000_000


def test_body_actions():
    doc = base()
    doc["tasks"][0]["body"] = [
        {"compute": "0ms"},
        {"comptue": "1ms"},
        {"compute": "1ms", "sleep": "1ms"},
        "compute",
        {"call": "server"},
        {"prem": {"mem": "1ms"}},
        {"sleep": "1ms"},
    ]
    errors = errors_of(doc)
    assert 'tasks[0].body[0].compute: must be > 0, got "0ms"' in errors
    assert_error(doc, 'tasks[0].body[1].comptue: unknown action (did you mean "compute"?)')
    assert_error(doc, "tasks[0].body[2]: an action is a mapping with one key")
    assert_error(doc, "tasks[0].body[3]: an action is a mapping with one key")
    assert 'tasks[0].body[4].call: unknown server "server" (known: none are declared)' in errors
    assert "tasks[0].body[5].prem.mem: unknown key (keys: access, buffers, compute, length)" in errors


def test_empty_body():
    doc = base()
    doc["tasks"][0]["body"] = []
    assert "tasks[0].body: must not be empty" in errors_of(doc)


def test_lock_discipline():
    doc = base()
    doc["tasks"][0]["body"] = [
        {"lock": "r1"},
        {"lock": "r2"},
        {"lock": "r1"},
        {"unlock": "r1"},
        {"unlock": "r2"},
        {"unlock": "r2"},
        {"lock": "r2"},
        {"compute": "1ms"},
    ]
    errors = errors_of(doc)
    assert_error(doc, 'tasks[0].body[2].lock: "r1" is already held (locked at tasks[0].body[0]): no relock')
    assert_error(doc, 'tasks[0].body[3].unlock: unlock of "r1" out of order: "r2"')
    assert_error(doc, 'tasks[0].body[5].unlock: unlock of "r2", which is not held')
    assert_error(doc, 'tasks[0].body: "r2" (locked at tasks[0].body[6]) is still held at the end of the job')
    assert len(errors) == 4, errors


def test_condvar_needs_its_mutex():
    doc = base()
    doc["tasks"][0]["body"] = [{"compute": "1ms"}, {"signal": "cv1"}, {"broadcast": "cv1"}]
    doc["tasks"][1]["body"] = [{"lock": "r1"}, {"lock": "r2"}, {"wait": "cv1"}, {"unlock": "r2"},
                               {"unlock": "r1"}, {"wait": "cv1"}, {"compute": "1ms"}]
    errors = errors_of(doc)
    assert_error(doc, 'tasks[0].body[1].signal: signal on "cv1" without holding its mutex "r1"')
    assert_error(doc, 'tasks[0].body[2].broadcast: broadcast on "cv1" without holding its mutex "r1"')
    assert_error(doc, 'tasks[1].body[2].wait: wait on "cv1" releases "r1" while "r2"')
    assert_error(doc, 'tasks[1].body[5].wait: wait on "cv1" without holding its mutex "r1"')
    assert len(errors) == 4, errors


def test_default_wcet_needs_compute():
    doc = base()
    doc["tasks"][0]["body"] = [{"sleep": "1ms"}]
    assert_error(doc, "tasks[0].wcet: the body has no compute")
    doc["tasks"][0]["wcet"] = "1ms"
    assert taskset_from_dict(doc).tasks[0].wcet_ns == 1_000_000


def test_sporadic():
    doc = base()
    doc["tasks"][0]["sporadic"] = {"max_extra": "1ms"}
    assert "tasks[0].sporadic: only for kind: sporadic" in errors_of(doc)
    doc["tasks"][0]["kind"] = "sporadic"
    doc["tasks"][0]["sporadic"] = {"max_extra": "1ms", "sed": 3}
    assert_error(doc, 'tasks[0].sporadic.sed: unknown key (did you mean "seed"?)')
    doc["tasks"][0]["sporadic"] = {"max_extra": "1ms", "seed": 3}
    task = taskset_from_dict(doc).tasks[0]
    assert (task.kind, task.sporadic.max_extra_ns, task.sporadic.seed) == ("sporadic", 1_000_000, 3)
    del doc["tasks"][0]["sporadic"]
    assert taskset_from_dict(doc).tasks[0].sporadic.seed == 1  # default: index + 1
    doc["tasks"][0]["kind"] = "aperiodic"
    assert_error(doc, 'tasks[0].kind: expected one of periodic, sporadic, self-paced, event, got "aperiodic"')


def test_scheduler_and_platform():
    doc = base(platform={"scheduler": "PFP"})
    assert_error(doc, 'platform.scheduler: expected one of P-FP, G-FP, G-EDF, P-EDF, C-FP, C-EDF, got "PFP" '
                      '(did you mean "P-FP"?)')
    doc = base(platform={"scheduler": "C-EDF", "clusters": [[0, 1]]})
    assert_error(doc, "platform.clusters: write the clusters as partitions: a partition of several CPUs is a cluster")
    doc = base(platform={"scheduler": "P-FP", "cpus": [0, 0]})
    assert_error(doc, "platform.cpus[1]: CPU 0 is listed twice")
    doc = base(platform={"scheduler": "P-FP", "cpus": [-1]})
    assert_error(doc, "platform.cpus[0]: must be >= 0, got -1")


def test_protocols_refused():
    doc = base()
    doc["resources"][0]["protocol"] = "ceiling"
    assert ('resources[0].protocol: "ceiling": write "ipcp" (immediate ceiling, the semantics of '
            "PTHREAD_PRIO_PROTECT)") in errors_of(doc)


def test_partitions():
    doc = base(
        platform={
            "scheduler": "P-FP",
            "cpus": [0, 1],
            "partitions": [
                {"name": "a", "cpus": [0]},
                {"name": "b", "cpus": [0, 2]},
                {"name": "a", "cpus": [1]},
            ],
        }
    )
    errors = errors_of(doc)
    assert_error(doc, 'platform.partitions[1].cpus: CPU 0 is already in partition "a": partitions are disjoint')
    assert_error(doc, "platform.partitions[1].cpus: CPU 2 is not in platform.cpus [0, 1]")
    assert_error(doc, 'platform.partitions[2].name: duplicate partition name "a"')
    # the tasks' cpu0/cpu1 are not among the explicit partitions
    assert_error(doc, 'tasks[0].partition: unknown partition "cpu0"')
    assert errors


def test_partitions_refused_under_global():
    doc = base(platform={"scheduler": "G-FP", "partitions": [{"name": "a", "cpus": [0]}]})
    assert_error(doc, "platform.partitions: only for partitioned schedulers (P-FP, P-EDF), not G-FP")


def test_default_partitions_without_cpus_are_cpu_names():
    doc = base(platform={"scheduler": "P-FP"})
    ts = taskset_from_dict(doc)
    assert ts.platform.cpus is None and ts.platform.partitions is None
    doc["tasks"][0]["partition"] = "left"
    assert_error(doc, 'tasks[0].partition: unknown partition "left" (platform.partitions is not given')


def test_sched_deadline_parameters_must_fit():
    doc = base(platform={"scheduler": "P-EDF", "cpus": [0, 1]})
    for t in doc["tasks"]:
        del t["priority"]
    doc["tasks"][0].update(deadline="12ms")  # > period 10ms
    doc["tasks"][1].update(budget="6ms", deadline="5ms")  # runtime > deadline
    errors = errors_of(doc)
    assert_error(doc, 'tasks[0]: task "t1": SCHED_DEADLINE needs runtime <= deadline <= period, got runtime 1ms, '
                      "deadline 12ms, period 10ms: make the deadline at most the period (10ms)")
    assert_error(doc, 'tasks[1]: task "t2": SCHED_DEADLINE needs runtime <= deadline <= period, got runtime 6ms, '
                      "deadline 5ms, period 20ms: make the budget at most the deadline (5ms)")
    assert len(errors) == 2
    doc["tasks"][0].update(deadline="10ms", wcet="500ns")
    assert_error(doc, "SCHED_DEADLINE needs a runtime of at least 1024ns")


def test_policy():
    doc = base()
    doc["tasks"][0]["policy"] = "deadline"
    assert_error(doc, 'tasks[0].policy: "deadline" does not go with scheduler P-FP')
    doc["tasks"][0]["policy"] = "other"
    assert_error(doc, 'tasks[0].priority: not used for policy "other"')
    del doc["tasks"][0]["priority"]
    del doc["tasks"][0]["partition"]
    ts = taskset_from_dict(doc)
    assert ts.tasks[0].is_background and ts.tasks[0].priority is None
    assert ts.rt_tasks == (ts.tasks[1],)


def test_max_jobs():
    doc = base()
    doc["tasks"][0]["max_jobs"] = 0
    assert "tasks[0].max_jobs: must be in 1..4294967295, got 0" in errors_of(doc)
    doc["tasks"][0]["max_jobs"] = "3"
    assert 'tasks[0].max_jobs: expected an integer, got "3"' in errors_of(doc)


def test_not_a_mapping_at_all():
    assert validate_dict([1, 2]) == ["(top level): expected a mapping, got a list"]
    assert validate_dict(None) == ["(top level): expected a mapping, got null"]
