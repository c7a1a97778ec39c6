"""Experiment files: what is accepted, and bad files refused with the path of each problem."""

from __future__ import annotations

import pytest

from rtsched.analysis import TESTS
from rtsched.cli.main import main
from rtsched.sweep import ExperimentError, load_experiment, loads_experiment
from sweep_helpers import LL_SWEEP, write


def problems(text: str) -> list[str]:
    with pytest.raises(ExperimentError) as caught:
        loads_experiment(text, "exp.yaml")
    return caught.value.problems


def test_a_good_file_resolves_every_point_in_file_order():
    e = loads_experiment(LL_SWEEP.replace("grid:", "grid:\n  cpus: [1]"), "exp.yaml")
    points = e.points()
    assert [p["utilization"] for p in points] == [0.3, 0.5, 0.7, 1.2]
    assert all(p["tasks"] == 4 and p["period_min_ms"] == 10.0 and p["protocol"] == "pcp" for p in points)
    assert e.total_sets == 4 * 40
    assert [t.label for t in e.tests] == ["fp-ll", "fp-rta"]


def test_a_range_and_utilization_per_cpu():
    e = loads_experiment("seed: 1\nsamples: 2\ngenerator: {scheduler: G-EDF, tasks: 12}\n"
                         "grid: {cpus: [2, 4], utilization_per_cpu: {from: 0.2, to: 0.6, step: 0.2}}\n"
                         "tests: [gedf-gfb]\n", "exp.yaml")
    assert [(p["cpus"], p["utilization_per_cpu"], p["utilization"]) for p in e.points()] == [
        (2, 0.2, 0.4), (2, 0.4, 0.8), (2, 0.6, 1.2), (4, 0.2, 0.8), (4, 0.4, 1.6), (4, 0.6, 2.4)]


def test_unknown_keys_are_errors_with_their_path():
    found = problems(LL_SWEEP + "colour: blue\n").copy()
    found += problems(LL_SWEEP.replace("tasks: 4", "tasks: 4, taks: 5"))
    found += problems(LL_SWEEP.replace("[fp-ll, fp-rta]", "[{name: fp-rta, option: {}}]"))
    assert any(p.startswith("colour: unknown key") for p in found)
    assert any(p.startswith("generator.taks: unknown parameter") for p in found)
    assert any(p.startswith("tests[0].option: unknown key") for p in found)


def test_an_unknown_test_lists_the_registry():
    [problem] = problems(LL_SWEEP.replace("fp-ll", "fp-magic"))
    assert problem.startswith("tests[0].name: unknown test 'fp-magic'")
    assert all(name in problem for name in TESTS)


def test_bad_values_name_the_grid_index_and_the_point():
    found = problems(LL_SWEEP.replace("[0.3, 0.5, 0.7, 1.2]", "[0.3, -1, 0.7, 9]"))
    assert any(p.startswith("grid.utilization[1]: expected a positive number") for p in found)
    found = problems(LL_SWEEP.replace("[0.3, 0.5, 0.7, 1.2]", "[0.3, 9]"))
    assert found == ["grid point 1 (utilization=9.0): utilization 9.0 cannot be split into 4 tasks of at most 1"]
    found = problems(LL_SWEEP.replace("tasks: 4,", "tasks: 4, period_min_ms: 100, period_max_ms: 10,"))
    assert all("period_max_ms (10.0) is below period_min_ms (100.0)" in p for p in found) and len(found) == 4


def test_missing_and_contradictory_settings():
    found = problems("samples: 0\ngenerator: {utilization: 0.5}\ngrid: {utilization: [0.4]}\ntests: []\n")
    assert "seed: missing" in found
    assert any(p.startswith("samples: expected an integer >= 1") for p in found)
    assert "generator.utilization: also in grid (give it in one place)" in found
    assert any(p.startswith("tests: expected a non-empty list") for p in found)
    found = problems(LL_SWEEP.replace("[fp-ll, fp-rta]", "[fp-rta, fp-rta]"))
    assert found == ["tests: label 'fp-rta' is used twice (give each a distinct label)"]
    found = problems(LL_SWEEP.replace("grid:\n  utilization", "grid:\n  utilization_per_cpu"
                                      ).replace("tasks: 4,", "tasks: 4, utilization: 0.5,"))
    assert found == ["generator: give exactly one of utilization and utilization_per_cpu (in generator or grid)"]


def test_yaml_errors_keep_their_line_and_repeated_keys_are_refused():
    assert problems("seed: 1\nseed: 2\n")[0].startswith("line 2")
    assert "invalid YAML" in problems("seed: [1\n")[0]
    assert problems("- 1\n") == ["expected a mapping with seed, samples, generator, grid, tests"]


def test_an_overhead_file_that_cannot_be_read_is_named(tmp_path):
    path = write(tmp_path, LL_SWEEP.replace("[fp-ll, fp-rta]", "[{name: fp-rta, overheads: nowhere.json}]"))
    with pytest.raises(ExperimentError) as caught:
        load_experiment(path)
    assert caught.value.problems[0].startswith(f"tests[0].overheads: {tmp_path / 'nowhere.json'}")


def test_the_command_rejects_a_bad_file_with_its_name_and_path(tmp_path, capsys):
    path = write(tmp_path, LL_SWEEP.replace("samples: 40", "samples: many"))
    assert main(["sweep", str(path), "-o", str(tmp_path / "out")]) == 1
    assert f"{path}: samples: expected an integer >= 1, got 'many'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert main(["sweep", str(tmp_path / "absent.yaml")]) == 1
    assert "absent.yaml: cannot read: No such file or directory" in capsys.readouterr().err


def test_check_prints_the_size_without_running(tmp_path, capsys):
    path = write(tmp_path, LL_SWEEP)
    assert main(["sweep", str(path), "--check", "-o", str(tmp_path / "out")]) == 0
    assert "4 grid point(s) x 40 sets x 2 test(s) = 320 rows" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()


def test_a_point_alone_is_the_point_of_the_list():
    e = loads_experiment("seed: 1\nsamples: 1\ngenerator: {scheduler: G-EDF}\n"
                         "grid: {cpus: [2, 4, 8], tasks: [10, 20], utilization_per_cpu: [0.3, 0.6]}\n"
                         "tests: [gedf-gfb]\n", "exp.yaml")
    assert [e.point(i) for i in range(12)] == e.points()
    with pytest.raises(IndexError):
        e.point(12)
