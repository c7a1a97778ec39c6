"""Ceiling protocols in the task-set format: validation rules, computed ceilings and levels, runner input."""

import copy

import pytest

from rtsched.model import TaskSetError, taskset_from_dict, taskset_to_dict, to_runner_input, validate_dict
from rtsched.model.ceilings import lock_levels, lock_settings, preemption_levels

ONLINE = (0, 1)
LIMITS = (100_000, 4_194_304_000)


def cs(resource, length="100us"):
    return [{"lock": resource}, {"compute": length}, {"unlock": resource}]


def task(name, priority, partition, body, period="10ms"):
    return {"name": name, "period": period, "priority": priority, "partition": partition,
            "body": [{"compute": "200us"}, *body]}


# Two tasks on cpu0 share a local resource; one task on cpu1 and one on cpu0 share a global one.
PFP = {
    "name": "ceil",
    "duration": "1s",
    "platform": {"scheduler": "P-FP", "cpus": [0, 1]},
    "resources": [{"name": "local", "protocol": "pcp"}, {"name": "glob", "protocol": "mpcp"}],
    "tasks": [
        task("hi", 30, "cpu0", cs("local") + cs("glob")),
        task("lo", 10, "cpu0", cs("local")),
        task("mid", 20, "cpu0", []),
        task("remote", 40, "cpu1", cs("glob")),
    ],
}

PEDF = {
    "name": "srp-edf",
    "duration": "1s",
    "platform": {"scheduler": "P-EDF", "cpus": [0, 1]},
    "resources": [{"name": "r", "protocol": "srp"}],
    "tasks": [
        {"name": "short", "period": "10ms", "deadline": "5ms", "partition": "cpu1", "budget": "1ms",
         "body": [{"compute": "200us"}, *cs("r")]},
        {"name": "long", "period": "20ms", "partition": "cpu1", "budget": "1ms",
         "body": [{"compute": "200us"}, *cs("r")]},
        {"name": "same", "period": "30ms", "deadline": "5ms", "partition": "cpu1", "budget": "1ms",
         "body": [{"compute": "200us"}]},
        {"name": "other", "period": "40ms", "partition": "cpu0", "budget": "1ms", "body": [{"compute": "200us"}]},
    ],
}


def doc(base=PFP, **resource_changes):
    d = copy.deepcopy(base)
    for index, changes in resource_changes.items():
        d["resources"][int(index.removeprefix("r"))].update(changes)
    return d


def assert_error(d, expected):
    errors = validate_dict(d)
    assert any(expected in e for e in errors), errors


def resolve(d):
    return to_runner_input(taskset_from_dict(d), "t.rtst", cpus_online=ONLINE, dl_period_limits=LIMITS)


# -- validation rules ----------------------------------------------------------


def test_the_bases_are_valid():
    assert validate_dict(PFP) == []
    assert validate_dict(PEDF) == []


def test_every_ceiling_protocol_is_accepted_by_name():
    for protocol in ("pcp", "srp", "ipcp"):
        assert validate_dict(doc(r0={"protocol": protocol})) == []
    assert validate_dict(doc(r1={"protocol": "fmlp+"})) == []


def test_local_protocol_across_partitions_names_the_tasks():
    for protocol in ("pcp", "srp", "ipcp"):
        assert_error(doc(r1={"protocol": protocol}),
                     f'resources[1]: "glob" ({protocol}) is local to one CPU but tasks on different partitions '
                     'use it: "hi" (cpu0), "remote" (cpu1); use mpcp or fmlp+')


def test_global_protocols_only_under_pfp_and_srp_also_under_pedf():
    d = copy.deepcopy(PFP)
    d["platform"] = {"scheduler": "G-FP", "cpus": [0, 1]}
    for t in d["tasks"]:
        del t["partition"]
    assert_error(d, 'resources[1].protocol: "mpcp" needs scheduler P-FP, not G-FP')
    assert_error(d, 'resources[0].protocol: "pcp" needs scheduler P-FP, not G-FP (the ceiling protocols work per '
                    "one-CPU partition: pcp, ipcp, mpcp, fmlp+ under P-FP; srp under P-FP or P-EDF")
    for protocol in ("pcp", "ipcp", "mpcp", "fmlp+"):
        assert_error(doc(PEDF, r0={"protocol": protocol}), f'resources[0].protocol: "{protocol}" needs scheduler P-FP, not P-EDF')


def test_pcp_has_no_eager_form_and_edf_has_none():
    assert_error(doc(r0={"variant": "eager"}), "resources[0].variant: pcp has no eager form")
    assert_error(doc(PEDF, r0={"variant": "eager"}), "resources[0].variant: the eager form raises a SCHED_FIFO "
                                                     "priority at lock: not under P-EDF")
    assert_error(doc(r0={"variant": "lazy"}), 'resources[0].variant: expected one of deferred, eager, got "lazy"')


def test_explicit_ceiling_below_a_users_priority_is_refused():
    assert_error(doc(r0={"ceiling": 29}), 'resources[0].ceiling: ceiling 29 is below the priority 30 of task "hi", '
                                          'which locks "local": the ceiling must be at least the highest priority of its users')
    assert_error(doc(r1={"ceiling": 39}), 'resources[1].ceiling: ceiling 39 is below the priority 40 of task "remote"')
    assert_error(doc(PEDF, r0={"ceiling": 2}), 'resources[0].ceiling: ceiling 2 is below the preemption level 3 of task "short"')
    assert_error(doc(r0={"ceiling": 100}), "resources[0].ceiling: must be in 1..99 under P-FP, got 100")
    assert validate_dict(doc(r0={"ceiling": 35})) == []


def test_variant_and_ceiling_only_for_ceiling_protocols():
    assert_error(doc(r0={"protocol": "pip", "ceiling": 5}), 'resources[0].ceiling: only for the ceiling protocols')
    assert_error(doc(r0={"protocol": "none", "variant": "eager"}), 'resources[0].variant: only for the ceiling protocols')
    assert_error(doc(r1={"protocol": "fmlp+", "ceiling": 50}), "resources[1].ceiling: fmlp+ deferred uses no ceiling")


def test_eager_global_boost_must_fit_under_99():
    d = doc(r1={"variant": "eager"})
    d["tasks"][1]["priority"] = 99
    assert_error(d, "resources[1]: eager mpcp: the boost priority 100 (above every base priority, highest 99")
    d = doc(r1={"variant": "eager", "ceiling": 40})
    assert_error(d, "resources[1].ceiling: eager mpcp raises the holder to its ceiling, which must be above every "
                    "base priority of the partitions cpu0, cpu1 (highest 40), got 40")


def test_other_rules_of_ceiling_resources():
    d = doc()
    d["resources"].append({"name": "unused", "protocol": "srp"})
    assert_error(d, 'resources[2]: no task locks "unused"')
    d = doc()
    d["condvars"] = [{"name": "cv", "mutex": "local"}]
    assert_error(d, 'condvars[0].mutex: "local" is a pcp resource: condition variables need a none or pip mutex')
    d = doc()
    d["tasks"].append({"name": "bg", "period": "10ms", "policy": "other", "body": cs("local")})
    assert_error(d, 'tasks[4]: task "bg" (policy other) locks "local" (pcp): ceiling protocols need real-time tasks')
    d = doc()
    d["platform"]["partitions"] = [{"name": "both", "cpus": [0, 1]}]
    for t in d["tasks"]:
        t["partition"] = "both"
    assert_error(d, 'resources[0]: "local" (pcp) is used by task "hi" on partition "both", which has 2 CPUs: '
                    "the ceiling protocols need one-CPU partitions")


# -- computed ceilings and levels -----------------------------------------------


def test_local_ceiling_is_the_highest_user_priority_and_the_cpu_is_theirs():
    setting = lock_settings(taskset_from_dict(PFP))["local"]
    assert (setting.ceiling, setting.partition, setting.cpu, setting.computed) == (30, "cpu0", 0, True)
    assert setting.users == ("hi", "lo")


def test_mpcp_gcs_priority_is_the_highest_priority_of_its_users():
    setting = lock_settings(taskset_from_dict(PFP))["glob"]
    assert (setting.ceiling, setting.partition, setting.cpu) == (40, None, None)


def test_fmlp_deferred_has_no_ceiling():
    assert lock_settings(taskset_from_dict(doc(r1={"protocol": "fmlp+"})))["glob"].ceiling == 0


def test_eager_global_boosts_are_above_every_local_base_priority():
    d = doc(r1={"variant": "eager"})
    d["resources"].append({"name": "g2", "protocol": "mpcp", "variant": "eager"})
    d["resources"].append({"name": "f", "protocol": "fmlp+", "variant": "eager"})
    d["tasks"][1]["body"] += cs("g2") + cs("f")  # lo (10) on cpu0
    d["tasks"][3]["body"] += cs("g2") + cs("f")  # remote (40) on cpu1
    d["tasks"][2]["priority"] = 45              # mid: not a user, but a base priority on cpu0
    settings = lock_settings(taskset_from_dict(d))
    # H = 45; gcs priorities: glob max(30, 40) = 40, g2 max(10, 40) = 40: one rank
    assert settings["glob"].ceiling == 46 and settings["g2"].ceiling == 46
    assert settings["f"].ceiling == 46


def test_eager_mpcp_ranks_follow_gcs_priorities():
    d = doc(r1={"variant": "eager"})
    d["resources"].append({"name": "g2", "protocol": "mpcp", "variant": "eager"})
    d["tasks"].append(task("r2", 15, "cpu1", cs("g2")))
    d["tasks"][1]["body"] += cs("g2")  # lo (10) on cpu0: g2's users are 15 and 10
    settings = lock_settings(taskset_from_dict(d))
    # H = 40 (remote); g2 (gcs 15) ranks 1, glob (gcs 40) ranks 2
    assert (settings["g2"].ceiling, settings["glob"].ceiling) == (41, 42)


def test_srp_levels_under_edf_rank_relative_deadlines():
    ts = taskset_from_dict(PEDF)
    assert preemption_levels(ts) == {"short": 3, "same": 3, "long": 2, "other": 1}
    assert lock_levels(ts) == preemption_levels(ts)
    setting = lock_settings(ts)["r"]
    assert (setting.ceiling, setting.cpu) == (3, 1)


def test_explicit_ceiling_replaces_the_computed_one():
    setting = lock_settings(taskset_from_dict(doc(r0={"ceiling": 50})))["local"]
    assert (setting.ceiling, setting.computed) == (50, False)


def test_dump_round_trip_keeps_variant_and_ceiling():
    ts = taskset_from_dict(doc(r0={"ceiling": 50, "protocol": "ipcp", "variant": "eager"}))
    again = taskset_from_dict(taskset_to_dict(ts))
    assert again == ts
    assert (again.resources[0].variant, again.resources[0].ceiling) == ("eager", 50)
    assert again.resources[1].variant == "deferred" and again.resources[1].ceiling is None


# -- runner input ------------------------------------------------------------------


def test_runner_input_carries_protocol_variant_ceiling_and_cpu():
    d = doc(r0={"protocol": "ipcp", "variant": "eager"})
    d["resources"].append({"name": "plain", "protocol": "pip"})
    runner = resolve(d)
    assert runner["format"] == "rtsched-runner/14"
    assert runner["resources"] == [
        {"name": "local", "protocol": "ipcp", "variant": "eager", "ceiling": 30, "partition_cpu": 0},
        {"name": "glob", "protocol": "mpcp", "variant": "deferred", "ceiling": 40, "partition_cpu": None},
        {"name": "plain", "protocol": "pip", "variant": "deferred", "ceiling": 0, "partition_cpu": None},
    ]
    # under FP the level is the thread's priority, which the library reads itself
    assert [t["lock_level"] for t in runner["tasks"]] == [0, 0, 0, 0]


def test_runner_input_declares_srp_levels_under_edf():
    runner = resolve(PEDF)
    assert runner["resources"] == [
        {"name": "r", "protocol": "srp", "variant": "deferred", "ceiling": 3, "partition_cpu": 1}]
    assert {t["name"]: t["lock_level"] for t in runner["tasks"]} == {"short": 3, "long": 2, "same": 3, "other": 1}


def test_edf_without_ceiling_resources_declares_no_level():
    d = copy.deepcopy(PEDF)
    d["resources"][0]["protocol"] = "pip"
    assert [t["lock_level"] for t in resolve(d)["tasks"]] == [0, 0, 0, 0]


def test_errors_come_all_at_once_with_the_source():
    d = doc(r0={"variant": "eager"}, r1={"protocol": "srp"})
    with pytest.raises(TaskSetError) as info:
        taskset_from_dict(d, source="set.yaml")
    text = str(info.value)
    assert "set.yaml: resources[0].variant: pcp has no eager form" in text
    assert 'set.yaml: resources[1]: "glob" (srp) is local to one CPU' in text
