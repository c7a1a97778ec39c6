"""rt-app's per-phase ``cpus`` in a loop of phases (rt-app's tutorial/example8.json): each phase starts with
an affinity action to its own cpus or the thread's, as rt-app's set_thread_affinity does at each phase start;
what stays refused, with where and why."""

from rtapp_helpers import errors, imported, pos, text_of

from rtsched.model import Affinity, Compute

EXAMPLE8 = {"tasks": {"thread0": {"cpus": [2], "phases": {
    "phase1": {"cpus": [0], "loop": 1, "run": 1500},
    "phase2": {"cpus": [1], "loop": 1, "run": 1500},
    "phase3": {"loop": 1, "run": 1500}}}},
    "global": {"duration": 2, "default_policy": "SCHED_OTHER"}}


def test_each_phase_starts_on_its_cpus_else_the_threads():
    ts, data, _ = imported(EXAMPLE8)
    (task,) = ts.tasks
    assert (task.kind, task.policy, task.partition, task.period_ns) == ("self-paced", "other", "cpu2", 4_500_000)
    assert task.body == (Affinity((0,)), Compute(1_500_000), Affinity((1,)), Compute(1_500_000),
                         Affinity((2,)), Compute(1_500_000))
    assert data["tasks"][0]["body"][0] == {"affinity": [0]}


def test_a_phase_repeated_moves_once_at_its_start():
    doc = {"tasks": {"t": {"cpus": [1], "loop": 2, "phases": {
        "a": {"cpus": [0], "loop": 2, "run": 100, "sleep": 400},
        "b": {"run": 300, "sleep": 200}}}}, "global": {"default_policy": "SCHED_OTHER"}}
    ts, _, _ = imported(doc)
    (task,) = ts.tasks
    assert [a for a in task.body if isinstance(a, Affinity)] == [Affinity((0,)), Affinity((1,))]
    assert task.body[0] == Affinity((0,)) and task.max_jobs == 2


def test_a_phase_without_cpus_in_a_thread_without_them_is_refused_at_the_phase():
    doc = {"tasks": {"t": {"phases": {"a": {"cpus": [0], "run": 100}, "b": {"run": 300}}}},
           "global": {"default_policy": "SCHED_OTHER"}}
    text = text_of(doc)
    assert errors(text) == [
        f"{pos(text, 'b')}: tasks.t.phases.b: no cpus, after a phase that gives its own, in a thread without cpus: "
        "rt-app moves the thread back to the CPUs it started on, which an rtsched affinity names; give the thread "
        "cpus"]


def test_a_phase_of_bad_cpus_is_refused_at_its_key():
    doc = {"tasks": {"t": {"cpus": [1], "phases": {"a": {"cpus": "0", "run": 100}, "b": {"run": 300}}}},
           "global": {"default_policy": "SCHED_OTHER"}}
    text = text_of(doc)
    assert errors(text) == [f'{pos(text, "cpus", 1)}: tasks.t.phases.a.cpus: expected a list of CPU numbers, '
                            'got "0"']


def test_a_phase_s_cpus_and_policy_in_one_loop_are_both_set_at_its_start():
    doc = {"tasks": {"t": {"cpus": [1], "phases": {"a": {"cpus": [0], "policy": "SCHED_FIFO", "run": 100},
                                                   "b": {"run": 300}}}}}
    ts, _, _ = imported(text_of(doc))
    assert [a.op for a in ts.tasks[0].body][:3] == ["affinity", "sched", "compute"]
