"""Whatever an rt-app file holds, the importer answers with a model or with errors, never a crash."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rtsched.model import TaskSetError, taskset_from_dict
from rtsched.model.rtapp import loads_rtapp

KEYS = [
    "run", "run1", "runtime", "sleep", "timer", "lock", "unlock", "wait", "signal", "broad", "sync", "suspend",
    "resume", "barrier", "yield", "mem", "iorun", "fork", "loop", "instance", "delay", "policy", "priority",
    "dl-runtime", "dl-period", "dl-deadline", "cpus", "taskgroup", "util_min", "period", "deadline", "bogus",
]
scalars = (st.integers(-3, 40_000) | st.sampled_from(["m", "c", "", "unique", "SCHED_FIFO", "SCHED_DEADLINE",
                                                      "SCHED_OTHER", "SCHED_RR", "/tg"]) | st.booleans() | st.none())
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["ref", "mutex", "period", "mode"]), inner, max_size=3),
    max_leaves=6,
)
thread = st.lists(st.tuples(st.sampled_from(KEYS), values), max_size=8)


def render(pairs, with_timer: bool) -> str:
    pairs = list(pairs) + ([("timer", {"ref": "unique", "period": 1000})] if with_timer else [])
    return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), thread), min_size=1, max_size=3),
       st.sampled_from(["SCHED_FIFO", "SCHED_OTHER", "SCHED_DEADLINE"]), st.booleans(), st.booleans(),
       st.sampled_from([1, 2, -1]))
@settings(max_examples=400, deadline=None)
def test_never_crashes(threads, default_policy, with_phases, with_timer, thread_loop):
    if with_phases:
        body = ", ".join(f'"{n}": {{"loop": {thread_loop}, "phases": {{"p": {render(t, with_timer)}, '
                         f'"q": {render(t, with_timer)}}}}}' for n, t in threads)
    else:
        body = ", ".join(f'"{n}": {render(t, with_timer)}' for n, t in threads)
    text = f'{{"global": {{"default_policy": "{default_policy}"}}, "tasks": {{{body}}}}}'
    try:
        doc, _ = loads_rtapp(text)
    except TaskSetError as e:
        assert e.errors and all(isinstance(err, str) and err for err in e.errors)
        return
    taskset_from_dict(doc)  # what is returned validates
