"""`rtsched run` on a machine with no overhead profile measures one first, unless it may not
(--ideal, --overheads, RTSCHED_AUTO_CALIBRATE=0, SCHED_FIFO refused): then it says why its bounds
count no overheads. The measurement itself is in test_first_profile_live.py."""

import argparse

import pytest

from rtsched.cli import first_profile
from rtsched.cli.overhead_profile import add_overhead_options, overheads_from_args
from rtsched.measure.calibrate import CalibrationError


class Screen:
    def __init__(self):
        self.lines = []

    def print(self, text):
        self.lines.append(text)


def _args(*argv):
    parser = argparse.ArgumentParser()
    add_overhead_options(parser)
    return parser.parse_args(list(argv))


def _refuse(priority):
    raise CalibrationError(f"SCHED_FIFO priority {priority} refused: calibration needs CAP_SYS_NICE")


def _never(*_args, **_kwargs):
    raise AssertionError("measured although it should not have been")


def test_sched_fifo_refused_says_why_no_overheads_are_counted(monkeypatch, tmp_path):
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(tmp_path / "overheads.json"))
    monkeypatch.setenv("RTSCHED_AUTO_CALIBRATE", "1")
    monkeypatch.setattr(first_profile, "check_realtime_allowed", _refuse)
    monkeypatch.setattr(first_profile, "calibrate", _never)
    choice = overheads_from_args(_args(), measure_on=Screen())
    assert choice.overheads is None and choice.measured_now
    assert "none could be measured: SCHED_FIFO priority 90 refused" in choice.description
    assert not (tmp_path / "overheads.json").exists()


@pytest.mark.parametrize("argv, env", [(["--ideal"], "1"), ([], "0")])
def test_nothing_is_measured_when_the_user_said_so(monkeypatch, tmp_path, argv, env):
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(tmp_path / "overheads.json"))
    monkeypatch.setenv("RTSCHED_AUTO_CALIBRATE", env)
    monkeypatch.setattr(first_profile, "calibrate", _never)
    choice = overheads_from_args(_args(*argv), measure_on=Screen())
    assert choice.overheads is None and not choice.measured_now


def test_analyze_and_sim_never_measure(monkeypatch, tmp_path):
    monkeypatch.setenv("RTSCHED_OVERHEADS", str(tmp_path / "overheads.json"))
    monkeypatch.setenv("RTSCHED_AUTO_CALIBRATE", "1")
    monkeypatch.setattr(first_profile, "calibrate", _never)
    choice = overheads_from_args(_args())  # no console to measure on: analyze, sim
    assert choice.overheads is None and "`rtsched calibrate` makes one" in choice.description
