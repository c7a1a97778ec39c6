"""The ``chains`` list of a task set (docs/chains.md): read, its links' kinds, and every error named by its key."""

from __future__ import annotations

import pytest

from rtsched.model import TaskSetError, taskset_from_dict, taskset_to_dict
from rtsched.model.chains import Chain


def _set(chains) -> dict:
    return {
        "name": "chained",
        "platform": {"scheduler": "P-FP", "cpus": [0]},
        "tasks": [
            {"name": "sensor", "period": "10ms", "priority": 30, "partition": "cpu0",
             "body": [{"compute": "1ms"}, {"activate": "filter"}]},
            {"name": "filter", "kind": "event", "period": "5ms", "priority": 20, "partition": "cpu0",
             "body": [{"compute": "1ms"}]},
            {"name": "logger", "period": "20ms", "priority": 10, "partition": "cpu0", "body": [{"compute": "2ms"}]},
        ],
        "chains": chains,
    }


def _errors(chains) -> list[str]:
    with pytest.raises(TaskSetError) as caught:
        taskset_from_dict(_set(chains))
    return caught.value.errors


def test_a_chain_is_read_with_its_links_kinds():
    ts = taskset_from_dict(_set([{"name": "sense", "tasks": ["sensor", "filter", "logger"]}]))
    assert ts.chains == (Chain("sense", ("sensor", "filter", "logger")),)
    assert ts.chain_links(ts.chains[0]) == ("event", "register")
    assert ts.chain_links(Chain("back", ("logger", "sensor"))) == ("register",)


def test_a_set_without_chains_has_none_and_a_dump_keeps_them():
    plain = _set([])
    del plain["chains"]
    assert taskset_from_dict(plain).chains == ()
    periodic = _set([{"name": "sense", "tasks": ["sensor", "logger"]}])
    periodic["tasks"] = [t for t in periodic["tasks"] if t["name"] != "filter"]
    periodic["tasks"][0]["body"] = [{"compute": "1ms"}]
    ts = taskset_from_dict(periodic)
    assert taskset_from_dict(taskset_to_dict(ts)) == ts


@pytest.mark.parametrize("chains, expected", [
    ([{"name": "c", "tasks": ["sensor", "loger"]}],
     'chains[0].tasks[1]: unknown task "loger" (did you mean "logger"?)'),
    ([{"name": "c", "tasks": ["sensor"]}], "chains[0].tasks: a chain has at least two tasks, got 1"),
    ([{"name": "c", "tasks": ["sensor", "logger", "sensor"]}],
     'chains[0].tasks[2]: task "sensor" is in the chain twice (first at chains[0].tasks[0])'),
    ([{"name": "c", "tasks": "sensor"}], 'chains[0].tasks: expected a list, got "sensor"'),
    ([{"name": "c", "tasks": ["sensor", "logger"], "link": "event"}], "chains[0].link: unknown key"),
    ([{"tasks": ["sensor", "logger"]}], 'chains[0]: missing required key "name"'),
    ([{"name": "c", "tasks": ["sensor", "logger"]}, {"name": "c", "tasks": ["filter", "logger"]}],
     'chains[1].name: duplicate chain name "c" (first at chains[0].name)'),
    ({"name": "c"}, "chains: expected a list"),
])
def test_each_error_names_its_key(chains, expected):
    errors = _errors(chains)
    assert any(e.startswith(expected) for e in errors), errors


def test_an_unknown_top_level_key_near_chains_is_refused():
    data = _set([])
    data["chain"] = data.pop("chains")
    with pytest.raises(TaskSetError) as caught:
        taskset_from_dict(data)
    assert any(e.startswith('chain: unknown key (did you mean "chains"?)') for e in caught.value.errors)
