"""Reading the reservation scheduler's overhead from ``rtsched-run --json``
(rtsched.run.reservation_overhead; docs/reservations.md, "Overhead"): the object
tools/run/main.c's ``print_figures_json`` prints, read exactly, in ns."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from rtsched.run.reservation_overhead import ReservationOverhead, overhead_line, reservation_overhead
from rtsched.run.runner import RunnerOutcome, RunnerOutputError

RUNNER_STDOUT = (
    '{"tasks":[{"name":"tick","jobs_completed":50,"deadline_misses":0,"budget_overruns":0,'
    '"max_response_ns":512300,"max_tardiness_ns":0,"max_release_latency_ns":20100}],'
    '"reservation_overhead":[{"cpu":0,"decisions":6786,"decision_ns":2996123,"controls":148,"control_ns":421007},'
    '{"cpu":1,"decisions":12,"decision_ns":4000,"controls":0,"control_ns":0}]}\n'
)


def _figures(stdout: str) -> dict:
    return RunnerOutcome(returncode=0, stdout=stdout, stderr="").figures


def test_each_cpus_figures_are_read_to_the_nanosecond():
    cpu0, cpu1 = reservation_overhead(_figures(RUNNER_STDOUT), run_ns=20_000_000_000)
    assert (cpu0.cpu, cpu0.decisions, cpu0.decision_ns, cpu0.controls, cpu0.control_ns) == (
        0, 6786, 2_996_123, 148, 421_007)
    assert (cpu1.cpu, cpu1.decisions, cpu1.decision_ns, cpu1.controls, cpu1.control_ns) == (1, 12, 4_000, 0, 0)
    assert cpu0.decision_share == pytest.approx(2_996_123 / 20e9)
    assert cpu0.as_dict()["control_share"] == pytest.approx(421_007 / 20e9)
    assert overhead_line(cpu0.as_dict()) == ("reservation overhead on CPU 0: 6786 decisions, 2.996 ms (0.0150% of the run); "
                                   "controller: 148 runs, 0.421 ms (0.0021%)")


def test_a_run_without_reservations_has_no_overhead():
    assert reservation_overhead(_figures('{"tasks":[],"reservation_overhead":[]}\n'), run_ns=10) == ()


def test_a_runner_stopped_before_its_figures_has_none():
    assert _figures("") == {}
    assert reservation_overhead(_figures(""), run_ns=10) == ()


def test_output_that_is_not_the_figures_is_an_error_that_quotes_it():
    with pytest.raises(RunnerOutputError, match="reservations on CPU 0: 12 decisions in 3 ms"):
        _figures("reservations on CPU 0: 12 decisions in 3 ms\n")
    with pytest.raises(RunnerOutputError, match="lack 'control_ns'"):
        reservation_overhead(_figures('{"reservation_overhead":[{"cpu":0,"decisions":1,"decision_ns":2,'
                                      '"controls":0}]}'), run_ns=10)


def test_the_figures_read_are_the_ones_the_runner_writes():
    """The keys are a vocabulary shared by C and Python: every one read here is one that
    tools/run/main.c's print_figures_json writes (a rename on either side fails here)."""
    source = (Path(__file__).resolve().parents[2] / "tools" / "run" / "main.c").read_text()
    body = source[source.index("static void print_figures_json"):]
    written = set(re.findall(r'jw_key\(&w, "(\w+)"\)', body[:body.index("\n}\n")]))
    read = {f.name for f in fields(ReservationOverhead)} - {"run_ns"}  # the run's length is Python's
    assert read | {"reservation_overhead", "tasks"} <= written, sorted(read - written)
