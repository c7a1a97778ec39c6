"""protocol: fifo (the FIFO mutex, docs/fifo-mutex.md) in the task-set format: accepted under
every scheduler, with condition variables, no ceiling keys, the same after a dump, and mapped
to the runner's "fifo"."""

import pytest

from rtsched.model import TaskSetError, taskset_from_dict, taskset_to_dict, to_runner_input
from rtsched.model.model import PROTOCOLS

ONLINE = (0, 1)
LIMITS = (100_000, 4_194_304_000)


def doc(scheduler: str, **resource) -> dict:
    fp = scheduler.endswith("FP")
    partitioned = scheduler.startswith("P-")

    def task(name, priority, body):
        t = {"name": name, "period": "10ms", "body": [{"compute": "200us"}, *body]}
        if fp:
            t["priority"] = priority
        if partitioned:
            t["partition"] = "cpu1"
        return t

    return {
        "name": "fifo", "duration": "1s", "platform": {"scheduler": scheduler, "cpus": [0, 1]},
        "resources": [{"name": "m", "protocol": "fifo", **resource}],
        "condvars": [{"name": "c", "mutex": "m"}],
        "tasks": [
            task("producer", 20, [{"lock": "m"}, {"signal": "c"}, {"unlock": "m"}]),
            task("consumer", 10, [{"lock": "m"}, {"wait": "c"}, {"unlock": "m"}]),
        ],
    }


@pytest.mark.parametrize("scheduler", ["P-FP", "G-FP", "P-EDF", "G-EDF"])
def test_fifo_is_accepted_under_every_scheduler_and_survives_a_dump(scheduler):
    ts = taskset_from_dict(doc(scheduler))
    assert [(r.name, r.protocol, r.variant, r.ceiling) for r in ts.resources] == [("m", "fifo", None, None)]
    dumped = taskset_to_dict(ts)
    assert dumped["resources"] == [{"name": "m", "protocol": "fifo"}]
    assert taskset_from_dict(dumped) == ts
    runner = to_runner_input(ts, "t.rtst", cpus_online=ONLINE, dl_period_limits=LIMITS)
    assert [r["protocol"] for r in runner["resources"]] == ["fifo"]


@pytest.mark.parametrize("key, value", [("variant", "eager"), ("ceiling", 30)])
def test_fifo_takes_no_ceiling_keys(key, value):
    with pytest.raises(TaskSetError) as err:
        taskset_from_dict(doc("P-FP", **{key: value}))
    assert f'resources[0].{key}: only for the ceiling protocols' in str(err.value)
    assert 'not "fifo"' in str(err.value)


def test_an_unknown_protocol_lists_fifo_among_the_choices():
    data = doc("P-FP")
    data["resources"][0]["protocol"] = "fifo-ish"
    with pytest.raises(TaskSetError) as err:
        taskset_from_dict(data)
    assert "fifo" in PROTOCOLS
    assert (f'resources[0].protocol: expected one of {", ".join(PROTOCOLS)}, got "fifo-ish" '
            '(did you mean "fifo"?)') in str(err.value)
