"""A real `rtsched calibrate --quick` (SCHED_FIFO on the last CPU; run the suite under
`flock /tmp/rt.lock`): the profile lands at $RTSCHED_OVERHEADS with every key, positive
figures, max >= p99, sample counts as configured, and its provenance. No time is asserted."""

import json
import os
import subprocess
import sys

import pytest

from rtsched.measure.calibrate import LOCK_KEYS, SCALAR_KEYS, CalibrationConfig, LOCK_SUBJECTS
from rtsched.cpus import format_cpu_list, online_cpus
from rtsched.native import NativeToolMissing, native_tool


def _can_use_fifo() -> bool:
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(90))
    except PermissionError:
        return False
    os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    return True


def _tools_built() -> bool:
    try:
        for tool in ("rtsched-calibrate", "rtsched-latency", "rtsched-lockbench", "rtsched-overhead"):
            native_tool(tool)
    except NativeToolMissing:
        return False
    return True


pytestmark = [
    pytest.mark.skipif(not _tools_built(), reason="the native tools are not built"),
    pytest.mark.skipif(not _can_use_fifo(), reason="SCHED_FIFO is not allowed here"),
]


@pytest.fixture(scope="module")
def quick_profile(tmp_path_factory):
    where = tmp_path_factory.mktemp("calibrate") / "sub" / "overheads.json"
    env = {**os.environ, "RTSCHED_OVERHEADS": str(where)}
    done = subprocess.run([sys.executable, "-m", "rtsched.cli.main", "calibrate", "--quick"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert f"profile written to {where}" in " ".join(done.stdout.split())
    return json.loads(where.read_text()), done.stdout


def test_scalar_overheads_positive_with_max_at_least_p99(quick_profile):
    profile, _ = quick_profile
    assert profile["format"] == "rtsched-overheads/1" and profile["stat"] == "max"
    for key in SCALAR_KEYS:
        assert isinstance(profile[key], int) and profile[key] > 0, key
        assert profile[key] >= profile["p99"][key] > 0, key


def test_sample_counts_are_the_quick_ones(quick_profile):
    profile, _ = quick_profile
    quick = CalibrationConfig.quick(cpu=0)
    samples = profile["samples"]
    for key in ("context_switch_ns", "rpc_call_ns", "rpc_call_client_ns", "trace_event_ns"):
        assert samples[key] == quick.native_samples
    assert samples["release_latency_ns"] == quick.latency_samples  # a late wake-up is a sample too
    assert samples["os_interference"] == quick.windows
    for protocol in samples["lock_ns"]:
        assert samples["lock_ns"][protocol] == quick.lock_iterations


def test_every_protocol_has_lock_and_unlock(quick_profile):
    profile, _ = quick_profile
    assert set(profile["lock_ns"]) == set(LOCK_SUBJECTS.values())
    assert set(profile["unlock_ns"]) == set(profile["lock_ns"])
    assert {"none", "pip"} <= set(profile["contended_lock_ns"])
    for key in LOCK_KEYS:
        assert set(profile["p99"][key]) == set(profile[key]) == set(profile["samples"][key])
        for protocol, value in profile[key].items():
            assert value >= profile["p99"][key][protocol] > 0, (key, protocol)


def test_os_interference(quick_profile):
    profile, _ = quick_profile
    top, p99 = profile["os_interference"], profile["p99"]["os_interference"]
    assert top["window_ns"] == p99["window_ns"] == 10_000_000
    assert top["max_lost_ns"] >= p99["max_lost_ns"] >= 0


def test_provenance(quick_profile):
    profile, _ = quick_profile
    prov = profile["provenance"]
    assert prov["hostname"] == os.uname().nodename
    assert prov["kernel"] == os.uname().release
    assert prov["cpu"] == max(online_cpus())
    assert prov["online_cpus"] == format_cpu_list(online_cpus())
    assert prov["cpu_model"]
    assert prov["date"].endswith("Z") and prov["date"][4] == "-" and prov["date"][10] == "T"
    assert len(prov["load"]["start"]) == len(prov["load"]["end"]) == 3
    assert set(prov["steal_ratio"]) == {str(cpu) for cpu in online_cpus()}
    assert all(0 <= r <= 1 for r in prov["steal_ratio"].values())
    assert prov["command"] == "rtsched calibrate --quick"
    assert prov["rtsched_version"]
    assert prov["duration_s"] > 0
    assert prov["kernel_facts"]["release"] == os.uname().release
    ticks = prov["local_timer_interrupts"]
    assert ticks is None or set(ticks) == {str(prov["cpu"])}


def test_the_analysis_reads_it_with_nothing_missing(quick_profile, tmp_path):
    from rtsched.analysis.overheads import load_overheads

    profile, _ = quick_profile
    path = tmp_path / "p.json"
    path.write_text(json.dumps(profile))
    overheads = load_overheads(path)
    assert overheads.missing == ()
    assert overheads.context_switch_ns == profile["context_switch_ns"]
    assert overheads.release_latency_ns == profile["release_latency_ns"]
    assert overheads.lock_ns == profile["lock_ns"] and overheads.contended_unlock_ns == profile["contended_unlock_ns"]


def test_table_lists_what_was_measured(quick_profile):
    _, text = quick_profile
    for key in (*SCALAR_KEYS, "lock_ns.pip", "contended_unlock_ns.none", "os_interference"):
        assert key in text


def test_os_interference_is_broken_down_by_cause(quick_profile):
    profile, text = quick_profile
    causes = profile["provenance"]["os_interference_causes"]
    assert causes["windows"] == CalibrationConfig.quick(0).windows
    worst = causes["worst_window"]
    assert worst["lost_ns"] == profile["os_interference"]["max_lost_ns"]
    named = (sum(worst["interrupts"].values()) + sum(worst["threads_rt"].values())
             + sum(worst["threads_fair"].values()) + worst["measuring_ns"] + worst["steal_ns"])
    assert worst["unattributed_ns"] == max(0, worst["lost_ns"] - named)
    assert causes["all_windows"]["lost_ns"] >= worst["lost_ns"]
    if os.geteuid() == 0:  # root records the kernel's schedule (tracefs mounted first if need be)
        assert causes["kernel_schedule"], causes.get("why_no_kernel_schedule")
    assert "OS interference by cause" in " ".join(text.split())
