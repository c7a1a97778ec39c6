"""rtsched.cpufreq: the machine's CPU frequency scaling, read from sysfs."""

from __future__ import annotations

from pathlib import Path

from rtsched.cpufreq import CPUFREQ_ROOT, describe_cpufreq, read_cpufreq


def _policy(root: Path, name: str, files: dict[str, str]) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    for file, text in files.items():
        (folder / file).write_text(text + "\n")


def test_policies_are_read_with_their_cpus_governor_and_range(tmp_path):
    _policy(tmp_path, "policy0", {"related_cpus": "0 1 2 3", "scaling_governor": "schedutil",
                                  "scaling_available_governors": "performance schedutil",
                                  "cpuinfo_min_freq": "400000", "cpuinfo_max_freq": "2400000",
                                  "scaling_cur_freq": "1200000"})
    _policy(tmp_path, "policy4", {"related_cpus": "4 5", "scaling_governor": "performance",
                                  "scaling_available_governors": "performance powersave"})
    status = read_cpufreq(tmp_path)
    assert status.present
    first, second = status.policies
    assert (first.name, first.cpus, first.governor, first.min_khz, first.max_khz, first.cur_khz) == (
        "policy0", (0, 1, 2, 3), "schedutil", 400_000, 2_400_000, 1_200_000)
    assert (second.cpus, second.min_khz, second.governors) == ((4, 5), None, ("performance", "powersave"))
    assert describe_cpufreq(status).splitlines() == [
        "cpufreq: policy0: CPUs 0-3, governor schedutil, 400-2400 MHz, now 1200 MHz",
        "cpufreq: policy4: CPUs 4-5, governor performance, range unknown (no schedutil governor)",
    ]


def test_a_missing_or_empty_folder_means_no_frequency_scaling(tmp_path):
    missing = read_cpufreq(tmp_path / "absent")
    assert not missing.present
    assert "does not exist" in describe_cpufreq(missing) and "simulated only" in describe_cpufreq(missing)
    empty = read_cpufreq(tmp_path)
    assert not empty.present and "has no policy" in describe_cpufreq(empty)


def test_live_read_on_this_machine():
    status = read_cpufreq()
    assert status.root == CPUFREQ_ROOT
    text = describe_cpufreq(status)
    assert text.startswith("cpufreq: ")
    if not status.present:  # this project's VM: the host owns the clock
        assert "simulated only" in text
    for policy in status.policies:
        assert policy.cpus, policy
