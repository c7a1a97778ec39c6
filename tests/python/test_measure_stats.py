"""Histogram statistics and parsers of rtsched.measure against known input."""

import pytest

from rtsched.measure.cyclictest import cyclictest_command, parse_cyclictest_histogram
from rtsched.measure.histogram import Histogram, ratio
from rtsched.measure.irqs import device_irq_counts, parse_interrupts
from rtsched.measure.loads import _parse_size, thrasher_mib


def test_percentiles_interpolate_inside_1us_buckets():
    # 10 samples in [2, 3) us, 10 in [3, 4) us.
    h = Histogram(buckets=[0, 0, 10, 10])
    assert h.samples == 20
    assert h.percentile(50) == pytest.approx(3.0)  # rank 10: end of bucket 2
    assert h.percentile(25) == pytest.approx(2.5)  # rank 5: middle of bucket 2
    assert h.percentile(75) == pytest.approx(3.5)
    assert h.percentile(100) == pytest.approx(4.0)


def test_percentile_of_a_single_bucket():
    h = Histogram(buckets=[0] * 7 + [100])
    assert h.percentile(1) == pytest.approx(7.01)
    assert h.percentile(99) == pytest.approx(7.99)
    assert h.observed_min_us == 7 and h.observed_max_us == 8


def test_percentile_among_overflows_is_unknown_not_invented():
    h = Histogram(buckets=[98], overflows=2)
    assert h.samples == 100
    assert h.percentile(98) == pytest.approx(1.0)
    assert h.percentile(99) is None
    assert h.observed_max_us is None  # beyond the histogram
    assert h.avg_us is None


def test_exact_extremes_and_sum_win_over_buckets():
    h = Histogram(buckets=[0, 3], min_us=1.2, max_us=1.9, sum_us=4.5)
    assert h.observed_min_us == 1.2 and h.observed_max_us == 1.9 and h.avg_us == 1.5


def test_average_from_bucket_midpoints():
    assert Histogram(buckets=[2, 0, 2]).avg_us == pytest.approx(1.5)


def test_empty_histogram_and_bad_percentile():
    h = Histogram(buckets=[])
    assert h.percentile(50) is None and h.summary()["samples"] == 0
    with pytest.raises(ValueError):
        h.percentile(0)
    with pytest.raises(ValueError):
        h.percentile(101)


def test_merge_adds_buckets_overflows_and_keeps_extremes():
    a = Histogram(buckets=[1, 2], overflows=1, min_us=0.5, max_us=30.0, sum_us=35.0)
    b = Histogram(buckets=[0, 0, 4], min_us=2.1, max_us=2.9, sum_us=10.0)
    m = a.merged(b)
    assert m.buckets == [1, 2, 4] and m.overflows == 1 and m.samples == 8
    assert m.min_us == 0.5 and m.max_us == 30.0 and m.sum_us == 45.0


def test_ratio():
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(None, 2.0) is None and ratio(1.0, 0) is None


def test_summary_fields():
    s = Histogram(buckets=[0, 10]).summary()
    assert set(s) == {"samples", "overflows", "min_us", "avg_us", "p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"}


CYCLICTEST_OUTPUT = """# /dev/cpu_dma_latency set to 0us
# Histogram
000000 000000\t000000
000001 000002\t000000
000002 000005\t000001
000003 000000\t000003
# Total: 000000007 000000004
# Min Latencies: 00001 00002
# Avg Latencies: 00003 00004
# Max Latencies: 00009 00120
# Histogram Overflows: 00001 00002
# Histogram Overflow at cycle number:
# Thread 0: 00038
# Thread 1: 00017 00021
"""


def test_cyclictest_histogram_parser():
    a, b = parse_cyclictest_histogram(CYCLICTEST_OUTPUT, [0, 1])
    assert a.buckets == [0, 2, 5] and a.overflows == 1 and a.samples == 8
    assert b.buckets == [0, 0, 1, 3] and b.overflows == 2 and b.samples == 6
    assert a.min_us == 1 and a.max_us == 9 and b.max_us == 120
    assert a.extra["reported_total"] == 7
    assert a.avg_us == pytest.approx(3.0)


def test_cyclictest_command_has_the_same_parameters():
    command = cyclictest_command([0, 1], 1000, 3000, "fifo", 99, 20000)
    assert command[:3] == ["cyclictest", "-m", "-q"]
    joined = " ".join(command)
    for part in ("-a 0-1", "-t 2", "-i 1000", "-d 0", "-l 3000", "-h 20000", "-p 99"):
        assert part in joined


PROC_INTERRUPTS = """           CPU0       CPU1
 24:          1          0  IO-APIC   5-edge      ACPI:Ged
 36:          0      36415 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0
 41:       1850          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx
NMI:          0          0   Non-maskable interrupts
LOC:      23427      27317   Local timer interrupts
ERR:          0
"""


def test_interrupt_parser_counts_device_lines_only():
    cpus, lines = parse_interrupts(PROC_INTERRUPTS)
    assert cpus == [0, 1]
    assert [line.irq for line in lines if line.is_device] == ["24", "36", "41"]
    assert device_irq_counts(PROC_INTERRUPTS) == {0: 1851, 1: 36415}


def test_cache_sizes():
    assert _parse_size("36608K") == 36608 * 1024 and _parse_size("1M") == 1 << 20 and _parse_size("512") == 512
    assert thrasher_mib(36608 * 1024) == 71  # twice the LLC
    assert thrasher_mib(1 << 20) == 32 and thrasher_mib(None) == 64
