"""``platform: {backend: ult}``: validation, the ult form per scheduler, the runner's input
(docs/taskset.md "Backend", docs/runner-input.md), and the runner's own refusals."""

from __future__ import annotations

import json
import subprocess

import pytest

from rtsched.model import TaskSetError, loads_taskset, taskset_to_dict, to_runner_input
from rtsched.model.validate import validate_dict
from rtsched.native import NativeToolMissing, native_tool

ONLINE = (0, 1, 2, 3)
LIMITS = (100_000, 4_194_304_000)
NOT_YET = "not under the ult backend yet"


def load(text: str):
    return loads_taskset("name: s\n" + text, "yaml")


def errors(text: str) -> list[str]:
    import yaml

    return validate_dict(yaml.safe_load("name: s\n" + text))


def resolve(text: str, online=ONLINE):
    return to_runner_input(load(text), "out/t.rtst", duration_ns=10**9, cpus_online=online,
                           dl_period_limits=LIMITS)


FP_TASK = "{name: a, priority: 5, period: 10ms, body: [{compute: 1ms}]"


def test_the_default_backend_is_threads_and_is_not_dumped():
    ts = load(f"platform: {{scheduler: G-FP}}\ntasks: [{FP_TASK}}}]")
    assert ts.platform.backend == "threads"
    assert "backend" not in taskset_to_dict(ts)["platform"]
    assert resolve(f"platform: {{scheduler: G-FP}}\ntasks: [{FP_TASK}}}]")["backend"] == "threads"


def test_ult_round_trips_through_dump():
    ts = load(f"platform: {{scheduler: G-FP, backend: ult}}\ntasks: [{FP_TASK}}}]")
    assert ts.platform.backend == "ult"
    assert taskset_to_dict(ts)["platform"]["backend"] == "ult"


def test_an_unknown_backend_is_an_error_with_its_path_and_a_suggestion():
    found = errors(f"platform: {{scheduler: G-FP, backend: ulz}}\ntasks: [{FP_TASK}}}]")
    assert len(found) == 1
    assert found[0].startswith("platform.backend:") and '"ult"' in found[0]


@pytest.mark.parametrize(
    "platform, partition, form",
    [
        ("{scheduler: G-FP, backend: ult}", "", "ult:gfp"),
        ("{scheduler: G-EDF, backend: ult}", "", "ult:gedf"),
        ("{scheduler: P-FP, backend: ult}", ", partition: cpu1", "ult:pfp"),
        ("{scheduler: P-EDF, backend: ult}", ", partition: cpu1", "ult:pedf"),
        ("{scheduler: C-FP, backend: ult, partitions: [{name: x, cpus: [0, 1]}, {name: y, cpus: [2, 3]}]}",
         ", partition: y", "ult:cfp:2"),
        ("{scheduler: C-EDF, backend: ult, partitions: [{name: x, cpus: [2, 3]}]}", ", partition: x",
         "ult:cedf:2"),
    ],
)
def test_each_scheduler_maps_to_its_ult_form(platform, partition, form):
    policy = "priority: 5, " if "FP" in platform else ""
    runner = resolve(f"platform: {platform}\ntasks: [{{name: a, {policy}period: 10ms, "
                     f"body: [{{compute: 1ms}}]{partition}}}]")
    assert runner["backend"] == form
    assert runner["cpusets"] == []  # the library schedules: no SCHED_DEADLINE root domains
    assert all(t["cpuset"] is None for t in runner["tasks"])
    # a budget is monitored as under the threads backend: EDF's runtime (here the wcet), FP's none
    assert [t["budget_ns"] for t in runner["tasks"]] == [0 if "FP" in platform else 1_000_000]


def test_ult_cpus_are_the_clusters_cpus_and_tasks_keep_their_partitions():
    runner = resolve("platform: {scheduler: C-EDF, backend: ult, partitions: [{name: x, cpus: [2, 3]}]}\n"
                     "tasks: [{name: a, period: 10ms, body: [{compute: 1ms}], partition: x}]")
    assert runner["cpus"] == [2, 3]
    assert runner["tasks"][0]["cpus"] == [2, 3]


def test_gedf_on_part_of_the_cpus_is_allowed_under_ult_only():
    text = "platform: {{scheduler: G-EDF, cpus: [1]{b}}}\ntasks: [{{name: a, period: 10ms, body: [{{compute: 1ms}}]}}]"
    assert resolve(text.format(b=", backend: ult"))["cpus"] == [1]
    with pytest.raises(TaskSetError, match="G-EDF with SCHED_DEADLINE needs every online CPU"):
        resolve(text.format(b=""))


def test_clusters_of_different_sizes_are_refused():
    found = errors("platform: {scheduler: C-FP, backend: ult, partitions: [{name: x, cpus: [0]}, "
                   "{name: y, cpus: [1, 2]}]}\n"
                   f"tasks: [{FP_TASK}, partition: y}}]")
    assert len(found) == 1
    assert found[0].startswith("platform.partitions:") and "one size" in found[0]
    assert '"x" 1' in found[0] and '"y" 2' in found[0]


def test_clusters_must_be_runs_of_consecutive_cpus():
    found = errors("platform: {scheduler: C-FP, backend: ult, partitions: [{name: x, cpus: [0, 2]}, "
                   "{name: y, cpus: [1, 3]}]}\n"
                   f"tasks: [{FP_TASK}, partition: y}}]")
    assert [e.split(":")[0] for e in found] == ["platform.partitions[0].cpus", "platform.partitions[1].cpus"]
    assert "[0, 1], [2, 3]" in found[0]


@pytest.mark.parametrize(
    "extra, task, path, feature",
    [
        ("", "policy: other, body: [{compute: 1ms}]", "tasks[0].policy", "background tasks"),
    ],
)
def test_features_the_ult_backend_lacks_are_refused_by_name(extra, task, path, feature):
    scheduler = "G-EDF" if "policy: other" in task else "G-FP"
    text = f"platform: {{scheduler: {scheduler}, backend: ult}}\n{extra}tasks: [{{name: a, period: 10ms, {task}}}]"
    found = [e for e in errors(text) if e.startswith(path + ":")]
    assert found, errors(text)
    assert feature in found[0] and NOT_YET in found[0]
    # the same set under the threads backend has no such error
    assert not [e for e in errors(text.replace(", backend: ult", "")) if NOT_YET in e]


def _runner():
    try:
        return native_tool("rtsched-run")
    except NativeToolMissing as missing:
        pytest.skip(str(missing))


def _resolved_servers():
    """The runner's servers of a small set with one RPC server (resolved under the threads backend)."""
    return resolve("platform: {scheduler: G-FP}\nservers: [{name: srv, priority: 9, duration: 1ms}]\n"
                   "tasks: [{name: a, period: 10ms, priority: 5, body: [{compute: 1ms}, {call: srv}]}]",
                   online=(0, 1))["servers"]


@pytest.mark.parametrize("scheduler", ["G-FP", "P-FP"])
def test_rpc_servers_run_under_the_fp_forms(scheduler):
    """A server is a service task of the set: under ult a ULT its clients lend their priority to."""
    partition = ", partition: cpu0" if scheduler == "P-FP" else ""
    text = (f"platform: {{scheduler: {scheduler}, backend: ult, cpus: [0]}}\n"
            f"servers: [{{name: srv, priority: 9, duration: 1ms{partition}}}]\n"
            f"tasks: [{{name: a, period: 10ms, priority: 5{partition}, body: [{{compute: 1ms}}, {{call: srv}}]}}]")
    assert errors(text) == []


@pytest.mark.parametrize("form", ["ult", "ult:gedf", "ult:pedf", "ult:cedf:1"])
def test_the_runner_refuses_servers_under_the_edf_forms(tmp_path, form):
    """An input error (exit 2) before anything runs: a service task has no deadline for EDF to order
    it by (the model refuses servers under EDF schedulers the same way)."""
    runner = _runner()
    spec = resolve(f"platform: {{scheduler: G-FP, backend: ult}}\ntasks: [{FP_TASK}}}]", online=(0, 1))
    spec.update(servers=_resolved_servers(), backend=form)
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done.stderr
    assert f"$.servers: RPC servers need a fixed-priority ult form (ult:gfp, ult:pfp, ult:cfp:C), got {form}" \
        in done.stderr


def test_the_runner_refuses_an_older_format(tmp_path):
    runner = _runner()
    spec = resolve(f"platform: {{scheduler: G-FP}}\ntasks: [{FP_TASK}}}]", online=(0, 1))
    spec["format"] = "rtsched-runner/3"
    del spec["backend"]
    path = tmp_path / "runner.json"
    path.write_text(json.dumps(spec))
    done = subprocess.run([str(runner), str(path), "--quiet"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "is not rtsched-runner/14" in done.stderr


def test_compare_backends_refuses_what_ult_lacks_before_running_anything(tmp_path):
    """examples/prem-pfp.yaml has PREM tasks (threads backend only): refused, nothing run, no output folder."""
    import sys
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", str(examples / "prem-pfp.yaml"),
                           "--compare-backends", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2  # an invalid input
    assert "PREM (prem actions, peripheral tasks) needs scheduler P-FP with the threads backend" in done.stderr
    assert "--compare-backends" in done.stderr
    assert not (tmp_path / "out").exists()
    both = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "run", str(examples / "picv-rpc.yaml"),
                           "--compare-picv", "--compare-backends"], capture_output=True, text=True, timeout=60)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_a_sleep_runs_under_ult():
    """A sleep blocks only its ULT (rts_task_sleep_until), so the ult backend takes it."""
    text = ("platform: {scheduler: G-FP, backend: ult}\n"
            "tasks: [{name: a, period: 10ms, priority: 5, body: [{compute: 1ms}, {sleep: 1ms}]}]")
    assert errors(text) == []


@pytest.mark.parametrize("protocol", ["none", "pip", "pcp", "srp", "ipcp", "mpcp", "fmlp+", "fifo"])
def test_locks_and_condvars_run_under_ult(protocol):
    """The user-level scheduler applies inheritance and ceilings itself (docs/ult.md): every
    protocol, the FIFO mutex too, and condition variables, validate under backend: ult."""
    cond = "condvars: [{name: c, mutex: r}]\n" if protocol in ("none", "pip", "fifo") else ""
    text = (f"platform: {{scheduler: P-FP, backend: ult}}\nresources: [{{name: r, protocol: {protocol}}}]\n{cond}"
            "tasks: [{name: a, partition: cpu0, period: 10ms, priority: 5, body: [{lock: r}, {compute: 1ms}, "
            "{unlock: r}]}, {name: b, partition: cpu0, period: 10ms, priority: 6, body: [{lock: r}, {compute: 1ms}, "
            "{unlock: r}]}]")
    assert errors(text) == []


@pytest.mark.parametrize("scheduler", ["G-FP", "P-FP", "C-FP"])
def test_background_tasks_run_under_the_fp_forms(scheduler):
    """Under an FP form a task of policy other is a background ULT, below every priority (docs/ult.md)."""
    partition = ", partition: cpu0" if scheduler == "P-FP" else ""
    platform = (f"{{scheduler: {scheduler}, backend: ult, partitions: [{{name: c0, cpus: [0]}}]}}"
                if scheduler == "C-FP" else f"{{scheduler: {scheduler}, backend: ult}}")
    if scheduler == "C-FP":
        partition = ", partition: c0"
    text = (f"platform: {platform}\ntasks: [{{name: bg, period: 10ms, policy: other, body: [{{compute: 1ms}}]"
            f"{partition}}}, {{name: rt, period: 10ms, priority: 5, body: [{{compute: 1ms}}]{partition}}}]")
    assert errors(text) == []
    runner = resolve(text)
    assert [(t["name"], t["policy"], t["priority"]) for t in runner["tasks"]] == [("bg", "other", 0),
                                                                                   ("rt", "fifo", 5)]
