"""The kernel facts every measurement carries (issue 21 item 3): each parser against sample
files of kernels this VM is not (PREEMPT_RT, PREEMPT_DYNAMIC with nohz_full), absent files,
and a live read of this machine."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from rtsched.cpus import online_cpus
from rtsched.measure import kernel_facts as kf
from rtsched.measure.irqs import LocalTimerWindow, local_timer_counts
from rtsched.measure.overhead import VARIANTS, plan_variant

SAMPLES = Path(__file__).parent / "kernel_samples"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text()


def files(**texts: str | None) -> kf.KernelFiles:
    base = kf.KernelFiles(release="6.12.0", version="#1 SMP", nr_cpus=4)
    return replace(base, **texts)


# ---------------------------------------------------------------- one parser per file


def test_config_keeps_set_options_only():
    config = kf.parse_config(sample("config-preempt-rt"))
    assert config["CONFIG_PREEMPT_RT"] == "y" and config["CONFIG_HZ"] == "1000"
    assert config["CONFIG_LOCALVERSION"] == "-rt"
    assert "CONFIG_PREEMPT" not in config and "CONFIG_PREEMPT_NONE" not in config


def test_cmdline_values_bare_words_quotes_and_init_arguments():
    params = kf.parse_cmdline(sample("cmdline-ranges"))
    assert params["nohz_full"] == "1-N"          # the one after "--" goes to init
    assert params["rcu_nocbs"] is None            # bare parameter
    assert params["console"] == "ttyS0,115200 n8"
    assert "single" not in params


@pytest.mark.parametrize("version, flags", [
    ("#1 SMP PREEMPT_RT Tue Nov 4 10:00:00 UTC 2026", {"PREEMPT_RT"}),
    ("#1 SMP PREEMPT_DYNAMIC @0", {"PREEMPT_DYNAMIC"}),
    ("#1 SMP PREEMPT_{RT,DYNAMIC} Thu", {"PREEMPT_RT", "PREEMPT_DYNAMIC"}),
    ("#5 SMP PREEMPT Mon", {"PREEMPT"}),
    ("#5 SMP Mon", set()),
])
def test_uname_preemption_words(version, flags):
    assert kf.parse_uname_flags(version) == flags


def test_debugfs_preempt_mode_is_the_word_in_parentheses():
    assert kf.parse_debugfs_preempt(sample("debugfs-preempt-full")) == ("full", ("none", "voluntary", "full", "lazy"))
    assert kf.parse_debugfs_preempt(sample("debugfs-preempt-voluntary"))[0] == "voluntary"
    with pytest.raises(kf.KernelFactError, match="none voluntary full"):
        kf.parse_debugfs_preempt(sample("debugfs-preempt-broken"))


@pytest.mark.parametrize("text, cpus", [
    ("2-3\n", (2, 3)), ("0,2-3", (0, 2, 3)), ("", ()), (" (null)\n", ()), ("all", (0, 1, 2, 3)),
    ("N", (3,)), ("1-N", (1, 2, 3)),
])
def test_kernel_cpu_lists(text, cpus):
    assert kf.parse_kernel_cpu_list(text, nr_cpus=4) == cpus


def test_a_cpu_list_that_does_not_parse_is_named():
    with pytest.raises(kf.KernelFactError, match="'3-1'"):
        kf.parse_kernel_cpu_list("3-1", nr_cpus=4)


def test_isolcpus_flags_and_list():
    assert kf.parse_isolcpus("nohz,domain,managed_irq,2-3", 4) == (("nohz", "domain", "managed_irq"), (2, 3))
    assert kf.parse_isolcpus("4,6-7", 8) == (("domain",), (4, 6, 7))  # no flag: domain


# ---------------------------------------------------------------- the facts put together


def test_preempt_rt_kernel_with_isolated_cpus():
    facts = kf.kernel_facts(files(
        version="#1 SMP PREEMPT_RT Tue Nov 4", realtime="1\n", config=sample("config-preempt-rt"),
        cmdline=sample("cmdline-isolated"), nohz_full=sample("sys-nohz_full-2-3"),
        isolated=sample("sys-isolated-2-3"),
    ))
    assert facts.preemption.rt and facts.preemption.dynamic is False
    assert facts.preemption.mode == "full" and facts.preemption.mode_source == "the build configuration"
    assert facts.hz == 1000
    assert facts.nohz_full.cpus == (2, 3) and facts.nohz_full.source == "sysfs nohz_full"
    assert facts.isolcpus.cpus == (2, 3) and facts.isolcpus.flags == ("nohz", "domain", "managed_irq")
    assert facts.rcu_nocbs.cpus == (1, 2, 3)  # rcu_nocbs=1-3 and the nohz_full CPUs
    assert facts.nohz_full.covers(2) and not facts.nohz_full.covers(0)


def test_realtime_flag_alone_says_preempt_rt():
    facts = kf.kernel_facts(files(realtime="1\n"))
    assert facts.preemption.rt and facts.preemption.mode == "full" and facts.preemption.mode_source == "uname -v"


def test_preempt_dynamic_current_mode_from_debugfs():
    facts = kf.kernel_facts(files(
        version="#1 SMP PREEMPT_DYNAMIC", config=sample("config-preempt-dynamic"),
        debugfs_preempt=sample("debugfs-preempt-full"), cmdline=sample("cmdline-plain"),
    ))
    p = facts.preemption
    assert (p.rt, p.dynamic, p.mode) == (False, True, "full")
    assert p.mode_source == "debugfs sched/preempt" and p.modes_offered == ("none", "voluntary", "full", "lazy")


def test_preempt_dynamic_without_debugfs_takes_the_boot_parameter_then_the_build_default():
    booted = kf.kernel_facts(files(config=sample("config-preempt-dynamic"), cmdline=sample("cmdline-ranges")))
    assert booted.preemption.mode == "voluntary" and "preempt=" in booted.preemption.mode_source
    default = kf.kernel_facts(files(config=sample("config-preempt-dynamic"), cmdline=sample("cmdline-plain")))
    assert default.preemption.mode == "voluntary"
    assert "build configuration" in default.preemption.mode_source and "at boot" in default.preemption.mode_source


def test_nohz_full_ranges_from_the_command_line_when_sysfs_is_unreadable():
    facts = kf.kernel_facts(replace(files(config=sample("config-preempt-dynamic"), cmdline=sample("cmdline-ranges")),
                                    nr_cpus=8))
    assert facts.nohz_full.cpus == (1, 2, 3, 4, 5, 6, 7)
    assert facts.isolcpus.cpus == (4, 6, 7) and facts.isolcpus.flags == ("domain",)
    assert facts.rcu_nocbs.cpus == facts.nohz_full.cpus  # a bare rcu_nocbs adds none at boot
    assert "bare rcu_nocbs" in facts.rcu_nocbs.source


def test_nohz_full_on_a_kernel_without_it_is_ignored():
    facts = kf.kernel_facts(files(config=sample("config-nohz-idle"), cmdline=sample("cmdline-isolated"),
                                  isolated=sample("sys-isolated-empty")))
    assert facts.nohz_full.cpus == () and "ignored" in facts.nohz_full.source
    assert facts.rcu_nocbs.cpus == () and "CONFIG_RCU_NOCB_CPU" in facts.rcu_nocbs.source
    assert facts.isolcpus.cpus == ()  # sysfs wins over the boot parameter
    assert facts.preemption.mode == "full" and "preempt=" in facts.preemption.mode_source  # boot beats build
    assert facts.hz == 100


def test_sysfs_null_nohz_full_and_every_cpu_offloaded_by_the_build():
    facts = kf.kernel_facts(files(config=sample("config-nocb-all"), nohz_full=sample("sys-nohz_full-null")))
    assert facts.nohz_full.cpus == ()
    assert facts.rcu_nocbs.cpus == (0, 1, 2, 3) and facts.rcu_nocbs.source == "CONFIG_RCU_NOCB_CPU_DEFAULT_ALL"
    assert facts.preemption.mode == "full"


def test_every_file_absent_gives_unknowns_not_guesses():
    facts = kf.kernel_facts(files())
    assert facts.preemption.mode is None and facts.preemption.dynamic is None and not facts.preemption.rt
    assert facts.hz is None
    assert facts.isolcpus.cpus is None
    assert facts.nohz_full.cpus == () and "CONFIG_NO_HZ_FULL" in facts.nohz_full.source
    document = facts.as_dict()
    assert document["isolcpus"]["cpus"] is None and document["preemption"]["mode"] is None
    json.dumps(document)


# ---------------------------------------------------------------- the local timer


def test_local_timer_line_on_x86_and_arm64():
    assert local_timer_counts(sample("interrupts-x86")) == {0: 6305296, 1: 8623573, 2: 1024, 3: 1031}
    assert local_timer_counts(sample("interrupts-arm64")) == {0: 423117, 1: 398215}
    assert local_timer_counts(sample("interrupts-no-timer")) is None


# ---------------------------------------------------------------- this machine


def test_live_read_of_this_machine():
    facts = kf.read_kernel_facts()
    assert facts.release == os.uname().release
    possible = set(range(kf.possible_cpu_count()))
    assert set(online_cpus()) <= possible
    for fact in (facts.nohz_full, facts.isolcpus, facts.rcu_nocbs):
        assert fact.cpus is None or set(fact.cpus) <= possible
    assert (facts.nohz_full.cpus != ()) <= kf.SYS_NOHZ_FULL.exists()  # tickless CPUs only where sysfs shows them
    assert facts.preemption.mode in (*kf.PREEMPT_MODES, None)
    if kf.PROC_CONFIG_GZ.exists():
        assert facts.config_source == str(kf.PROC_CONFIG_GZ) and facts.hz is not None
    json.dumps(facts.as_dict())
    assert len(facts.describe()) == 5 + len(facts.notes)


def test_live_local_timer_counts_on_a_busy_cpu():
    cpu = max(online_cpus())
    facts = kf.read_kernel_facts()
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        with LocalTimerWindow([cpu]) as ticks:
            spin_until = os.times().elapsed + 0.2
            while os.times().elapsed < spin_until:
                pass
    finally:
        os.sched_setaffinity(0, before)
    if ticks.counts is None:
        pytest.skip("/proc/interrupts has no local timer line here")
    assert set(ticks.counts) == {cpu}
    if not facts.nohz_full.covers(cpu):
        assert ticks.counts[cpu] >= 1  # a CPU busy for 0.2 s with its tick on takes at least one


# ---------------------------------------------------------------- rtsched overhead's A_off variant


TICKLESS = kf.CpuFact((2, 3), "sysfs nohz_full")
NO_TICKLESS = kf.CpuFact((), "the kernel is built without CONFIG_NO_HZ_FULL")


def test_a_off_runs_shielded_on_a_nohz_full_cpu():
    plan = plan_variant("fifo-tickless", busiest=1, quietest=0, shield_cpu=None, online=[0, 1, 2, 3],
                        nohz_full=TICKLESS)
    assert (plan.cpu, plan.policy, plan.shielded, plan.skipped) == (2, "fifo", True, None)
    quiet_and_tickless = plan_variant("fifo-tickless", 1, 3, None, [0, 1, 2, 3], TICKLESS)
    assert quiet_and_tickless.cpu == 3
    chosen = plan_variant("fifo-tickless", 1, 0, 3, [0, 1, 2, 3], TICKLESS)
    assert chosen.cpu == 3


def test_a_off_is_skipped_saying_why():
    absent = plan_variant("fifo-tickless", 1, 0, None, [0, 1], NO_TICKLESS)
    assert absent.cpu is None and "nohz_full" in absent.skipped and "CONFIG_NO_HZ_FULL" in absent.skipped
    wrong_cpu = plan_variant("fifo-tickless", 1, 0, 1, [0, 1, 2, 3], TICKLESS)
    assert wrong_cpu.cpu is None and "--shield-cpu 1 is not one" in wrong_cpu.skipped
    assert "--shield-cpu 2" in wrong_cpu.skipped
    offline = plan_variant("fifo-tickless", 1, 0, None, [0, 1], TICKLESS)  # CPUs 2-3 offline
    assert offline.cpu is None


def test_the_other_variants_keep_their_cpus():
    plans = {v: plan_variant(v, 1, 0, None, [0, 1], NO_TICKLESS) for v in VARIANTS if v != "fifo-tickless"}
    assert {v: (p.cpu, p.policy, p.shielded) for v, p in plans.items()} == {
        "other": (0, "other", False), "fifo-irq": (1, "fifo", False), "fifo-quiet": (0, "fifo", False),
        "fifo-shielded": (0, "fifo", True)}


def test_a_file_that_reads_wrong_leaves_its_facts_unknown_and_says_so():
    facts = kf.kernel_facts(files(config=sample("config-preempt-dynamic"),
                                  debugfs_preempt=sample("debugfs-preempt-broken"), nohz_full="3-1\n"))
    assert facts.preemption.mode is None and facts.nohz_full.cpus is None
    assert facts.rcu_nocbs.cpus is None  # the nohz_full CPUs are offloaded too: unknown with them
    assert facts.hz == 250  # the config still reads
    assert any("none voluntary full" in note for note in facts.notes) and any("'3-1'" in n for n in facts.notes)
