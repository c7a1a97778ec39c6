"""Reading the reservation scheduler's overhead from rtsched-run's output
(rtsched.run.reservation_overhead; docs/reservations.md, "Overhead"): the format of
tools/run/main.c's ``print_reservation_overhead``, exact to the microsecond it prints."""

from __future__ import annotations

import pytest

from rtsched.run.reservation_overhead import (RunnerOutputError, overhead_line,
                                              parse_reservation_overhead)

RUNNER_STDOUT = """\
task                     jobs   misses overruns  max resp (us)  max tard (us) max rel lat (us)
tick                       50        0        0          512.3            0.0           20.1
reservations on CPU 0: 6786 decisions, 2.996 ms (0.0150% of the run); controller: 148 runs, 0.421 ms (0.0021%)
reservations on CPU 1: 12 decisions, 0.004 ms (0.0000% of the run); controller: 0 runs, 0.000 ms (0.0000%)
"""


def test_each_cpus_line_is_read_to_the_microsecond():
    cpu0, cpu1 = parse_reservation_overhead(RUNNER_STDOUT, run_ns=20_000_000_000)
    assert (cpu0.cpu, cpu0.decisions, cpu0.decision_ns, cpu0.controls, cpu0.control_ns) == (
        0, 6786, 2_996_000, 148, 421_000)
    assert (cpu1.cpu, cpu1.decisions, cpu1.decision_ns, cpu1.controls, cpu1.control_ns) == (1, 12, 4_000, 0, 0)
    assert cpu0.decision_share == pytest.approx(2_996_000 / 20e9)
    assert cpu0.as_dict()["control_share"] == pytest.approx(421_000 / 20e9)
    assert overhead_line(cpu0.as_dict()) == ("reservation overhead on CPU 0: 6786 decisions, 2.996 ms (0.0150% of the run); "
                                   "controller: 148 runs, 0.421 ms (0.0021%)")


def test_a_run_without_reservations_has_no_overhead_lines():
    assert parse_reservation_overhead(RUNNER_STDOUT.splitlines()[0] + "\n", run_ns=10) == ()


def test_a_line_in_another_format_is_an_error_that_quotes_it():
    with pytest.raises(RunnerOutputError, match="reservations on CPU 0: 12 decisions in 3 ms"):
        parse_reservation_overhead("reservations on CPU 0: 12 decisions in 3 ms\n", run_ns=10)
