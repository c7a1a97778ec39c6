"""Varying demand of a compute action: the file syntax, its errors, and the per-job draws."""

from __future__ import annotations

import itertools
import json
import statistics
from pathlib import Path

import pytest

from rtsched.model import load_taskset, taskset_from_dict, taskset_to_dict, validate_dict
from rtsched.model.demand import Empirical, Normal, Sequence, Trace, Uniform, job_durations
from rtsched.model.demand_format import COMPUTE_KEYS, NORMAL_KEYS

ROOT = Path(__file__).resolve().parents[2]


def doc(*body, **task):
    return {
        "name": "vd",
        "platform": {"scheduler": "P-FP", "cpus": [0]},
        "tasks": [{"name": "a", "period": "10ms", "priority": 10, "partition": "cpu0", "body": list(body), **task}],
    }


def first(values, n):
    return list(itertools.islice(values, n))


def test_each_distribution_builds_its_demand_and_the_wcet_is_its_maximum():
    ts = taskset_from_dict(doc({"compute": {"uniform": ["1ms", "3ms"], "seed": 4}},
                               {"compute": {"normal": {"mean": "2ms", "stddev": "500us", "min": "1ms", "max": "4ms"}}},
                               {"compute": {"empirical": ["1ms", "2ms", "2ms"]}}))
    body = ts.tasks[0].body
    assert body[0].demand == Uniform(1_000_000, 3_000_000, 4) and body[0].ns == 3_000_000
    assert body[1].demand == Normal(2_000_000, 500_000, 1_000_000, 4_000_000, 1) and body[1].ns == 4_000_000
    assert body[2].demand == Empirical((1_000_000, 2_000_000, 2_000_000), 1) and body[2].ns == 2_000_000
    assert ts.tasks[0].wcet_ns == 9_000_000


def test_a_fixed_compute_has_no_demand():
    ts = taskset_from_dict(doc({"compute": "2ms"}))
    assert ts.tasks[0].body[0].demand is None


@pytest.mark.parametrize("seed", [1, 7, 123456789])
def test_uniform_draws_are_deterministic_per_seed_and_inside_min_max(seed):
    demand = Uniform(2_000_000, 8_000_000, seed)
    draws = first(job_durations(demand, "a", 0), 5000)
    assert draws == first(job_durations(demand, "a", 0), 5000)
    assert all(2_000_000 <= d <= 8_000_000 for d in draws)
    assert draws != first(job_durations(Uniform(2_000_000, 8_000_000, seed + 1), "a", 0), 5000)
    # uniform: mean (2+8)/2 ms within 2 % and both ends reached within 1 % of the range
    assert abs(statistics.fmean(draws) - 5_000_000) < 100_000
    assert min(draws) < 2_060_000 and max(draws) > 7_940_000


def test_two_actions_with_the_same_seed_draw_independently():
    demand = Uniform(0, 10_000_000, 3)
    assert first(job_durations(demand, "a", 0), 100) != first(job_durations(demand, "a", 1), 100)
    assert first(job_durations(demand, "a", 0), 100) != first(job_durations(demand, "b", 0), 100)


def test_a_truncated_normal_stays_inside_and_keeps_its_mean_when_symmetric():
    demand = Normal(5_000_000, 1_000_000, 3_000_000, 7_000_000, 9)
    draws = first(job_durations(demand, "a", 0), 20_000)
    assert all(3_000_000 <= d <= 7_000_000 for d in draws)
    assert abs(statistics.fmean(draws) - 5_000_000) < 30_000
    # truncation at ±2σ leaves a standard deviation of 0.88σ (not 1σ, not clipped mass at the ends)
    assert 840_000 < statistics.pstdev(draws) < 920_000
    assert draws.count(3_000_000) + draws.count(7_000_000) < 10


def test_empirical_draws_match_the_listed_values_mean_and_max():
    values = (1_000_000, 2_000_000, 2_000_000, 9_000_000)
    draws = first(job_durations(Empirical(values, 5), "a", 0), 20_000)
    assert set(draws) == set(values)
    assert max(draws) == 9_000_000
    assert abs(statistics.fmean(draws) - statistics.fmean(values)) < 0.02 * statistics.fmean(values)
    assert abs(draws.count(2_000_000) / len(draws) - 0.5) < 0.02


def test_a_trace_is_read_relative_to_the_set_file_and_replayed_in_order(tmp_path):
    (tmp_path / "demand").mkdir()
    (tmp_path / "demand" / "s.csv").write_text("# made by hand\nframe_ms,decode_us\n1,250\n2,1500.5\n3,0\n")
    (tmp_path / "set.yaml").write_text(json.dumps(doc({"compute": {"trace": "demand/s.csv", "column": "decode_us"}})))
    ts = load_taskset(tmp_path / "set.yaml")
    demand = ts.tasks[0].body[0].demand
    assert isinstance(demand, Trace)
    assert demand.values_ns == (250_000, 1_500_500, 0) and demand.at_end == "cycle"
    assert ts.tasks[0].body[0].ns == 1_500_500 and ts.tasks[0].max_jobs is None
    assert first(job_durations(demand, "a", 0), 7) == [250_000, 1_500_500, 0] * 2 + [250_000]
    assert taskset_from_dict(taskset_to_dict(ts)) == ts  # the dump names the trace by its absolute path


def test_a_stop_trace_ends_the_task_after_its_rows(tmp_path):
    (tmp_path / "s.csv").write_text("c_us\n10\n20\n30\n")
    (tmp_path / "set.yaml").write_text(json.dumps(doc({"compute": {"trace": "s.csv", "at_end": "stop"}})))
    ts = load_taskset(tmp_path / "set.yaml")
    assert ts.tasks[0].max_jobs == 3
    assert list(job_durations(ts.tasks[0].body[0].demand, "a", 0)) == [10_000, 20_000, 30_000]
    (tmp_path / "set.yaml").write_text(json.dumps(doc({"compute": {"trace": "s.csv", "at_end": "stop"}}, max_jobs=2)))
    assert load_taskset(tmp_path / "set.yaml").tasks[0].max_jobs == 2


def errors(*body, base_dir=None):
    return validate_dict(doc(*body), base_dir=base_dir)


def test_a_sequence_steps_through_its_jobs_and_starts_again():
    ts = taskset_from_dict(doc({"compute": {"sequence": [[2, "1ms"], [1, "3ms"]]}}))
    (compute,) = ts.tasks[0].body
    assert compute.demand == Sequence(((2, 1_000_000), (1, 3_000_000))) and compute.ns == 3_000_000
    assert first(job_durations(compute.demand, "a", 0), 7) == [1_000_000] * 2 + [3_000_000] + [1_000_000] * 2 + [
        3_000_000, 1_000_000]
    assert taskset_from_dict(taskset_to_dict(ts)) == ts


@pytest.mark.parametrize("sequence, where, words", [
    ([], "sequence", "expected a non-empty list of [jobs, duration] steps"),
    ([[0, "1ms"]], "sequence[0]", "expected [jobs >= 1, duration]"),
    ([[1, "1ms", 2]], "sequence[0]", "expected [jobs >= 1, duration]"),
    ([[1, "soon"]], "sequence[0][1]", ""),
])
def test_bad_sequences_are_rejected_with_their_path(sequence, where, words):
    problems = validate_dict(doc({"compute": {"sequence": sequence}}))
    assert any(p.startswith(f"tasks[0].body[0].compute.{where}: {words}") for p in problems), problems


def test_bad_distributions_are_rejected_with_their_path():
    got = errors(
        {"compute": {"uniform": ["8ms", "2ms"]}},
        {"compute": {"uniform": ["-1ms", "2ms"]}},
        {"compute": {"normal": {"mean": "9ms", "stddev": "1ms", "min": "2ms", "max": "8ms"}}},
        {"compute": {"normal": {"mean": "5ms", "stddev": "1s", "min": "4.9ms", "max": "5.1ms"}}},
        {"compute": {"normal": {"mean": "5ms", "sd": "1ms", "min": "2ms", "max": "8ms"}}},
        {"compute": {"empirical": []}},
        {"compute": {"uniform": ["1ms", "2ms"], "seeds": 3}},
        {"compute": {"uniform": ["1ms", "2ms"], "empirical": ["1ms"]}},
        {"compute": {"uniform": ["0ms", "0ms"]}},
        {"compute": {"empirical": ["1ms"], "column": "x_us"}},
        {"compute": {"uniform": ["3ms", "1ms"], "sed": 2}},
    )
    assert "tasks[0].body[0].compute.uniform: min 8ms is above max 2ms" in got
    assert "tasks[0].body[1].compute.uniform[0]: expected a non-negative duration, got \"-1ms\"" in got
    assert "tasks[0].body[2].compute.normal.mean: 9ms is outside [min, max] = [2ms, 8ms]" in got
    assert any(e.startswith("tasks[0].body[3].compute.normal: [min, max] keeps only") for e in got)
    assert any(e.startswith("tasks[0].body[4].compute.normal.sd: unknown key") for e in got)
    assert 'tasks[0].body[4].compute.normal: missing required key "stddev"' in got
    assert any(e.startswith("tasks[0].body[5].compute.empirical: expected a non-empty list") for e in got)
    assert any(e.startswith("tasks[0].body[6].compute.seeds: unknown key") for e in got)
    assert any(e.startswith("tasks[0].body[7].compute: expected a mapping with one of") for e in got)
    assert "tasks[0].body[8].compute.uniform: every job would compute 0: the maximum must be > 0" in got
    assert "tasks[0].body[9].compute.column: only for a trace" in got
    # every problem of an action at once: its unknown key and its bad distribution
    assert any(e.startswith("tasks[0].body[10].compute.sed: unknown key") for e in got)
    assert "tasks[0].body[10].compute.uniform: min 3ms is above max 1ms" in got


def test_bad_traces_are_rejected_naming_the_file_and_line(tmp_path):
    (tmp_path / "bad.csv").write_text("# comment\nexec_us\n10\nten\n")
    (tmp_path / "empty.csv").write_text("# nothing but a comment\n")
    (tmp_path / "header.csv").write_text("exec_us\n")
    (tmp_path / "nounit.csv").write_text("exec\n10\n")
    (tmp_path / "neg.csv").write_text("a_us,b_us\n1,2\n3,-4\n")
    (tmp_path / "ragged.csv").write_text("a_us,b_us\n1,2\n3\n")
    got = errors(
        {"compute": {"trace": "bad.csv"}},
        {"compute": {"trace": "missing.csv"}},
        {"compute": {"trace": "empty.csv"}},
        {"compute": {"trace": "header.csv"}},
        {"compute": {"trace": "nounit.csv"}},
        {"compute": {"trace": "neg.csv", "column": "b_us"}},
        {"compute": {"trace": "neg.csv"}},
        {"compute": {"trace": "neg.csv", "column": "c_us"}},
        {"compute": {"trace": "ragged.csv", "column": "a_us"}},
        {"compute": {"trace": "bad.csv", "seed": 2}},
        {"compute": {"trace": "bad.csv", "at_end": "wrap"}},
        base_dir=tmp_path,
    )
    t = "tasks[0].body[{}].compute.trace: "
    assert t.format(0) + 'bad.csv:4: column "exec_us": expected a number >= 0 of whole ns, got "ten"' in got
    assert any(e.startswith(t.format(1) + "cannot read missing.csv: no such file") for e in got)
    assert any(e.startswith(t.format(2) + "empty.csv: empty") for e in got)
    assert t.format(3) + "header.csv: no job after the header (line 1)" in got
    assert any(e.startswith(t.format(4) + 'nounit.csv:1: column "exec" names no unit') for e in got)
    assert t.format(5) + 'neg.csv:3: column "b_us": expected a number >= 0 of whole ns, got "-4"' in got
    assert t.format(6) + "neg.csv:1: 2 columns (a_us, b_us): give the compute's column" in got
    assert t.format(7) + 'neg.csv:1: no column "c_us" (columns: a_us, b_us)' in got
    assert t.format(8) + "ragged.csv:3: 1 cells, the header has 2" in got
    assert "tasks[0].body[9].compute.seed: a trace has no seed: its rows are replayed in order" in got
    assert "tasks[0].body[10].compute.at_end: expected one of cycle, stop, got \"wrap\"" in got


def test_the_schema_describes_the_compute_mapping():
    schema = json.loads((ROOT / "docs" / "taskset.schema.json").read_text())
    mapping = schema["$defs"]["compute"]["oneOf"][1]
    assert set(mapping["properties"]) == COMPUTE_KEYS
    assert set(mapping["properties"]["normal"]["properties"]) == NORMAL_KEYS


def test_the_analysis_takes_the_maximum_and_says_so():
    from rtsched.analysis.registry import run_test

    ts = taskset_from_dict(doc({"compute": {"uniform": ["1ms", "3ms"]}}, {"compute": "1ms"}))
    result = run_test("fp-rta", ts)
    assert result.tasks[0].bound_ns == 4_000_000  # alone on its CPU: its WCET, the maximum 3 ms + 1 ms
    assert result.details["notes"] == ["a: compute of varying demand analysed at its maximum (3ms), the WCET"]
