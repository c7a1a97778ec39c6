"""Loading files: YAML and JSON give equal models; syntax errors say where."""

import json

import pytest
import yaml

from rtsched.model import (
    TaskSetError,
    load_taskset,
    loads_taskset,
    read_document,
    taskset_from_dict,
    taskset_to_dict,
)

YAML_SET = """\
name: same
duration: 2s
platform:
  scheduler: G-FP
  cpus: [0, 1]
resources:
  - {name: m, protocol: pip}
condvars:
  - {name: c, mutex: m}
tasks:
  - name: a
    kind: sporadic
    period: 10ms
    deadline: 8ms
    offset: 1ms
    priority: 20
    budget: 2ms
    max_jobs: 50
    sporadic: {max_extra: 2.5ms, seed: 4}
    body:
      - compute: 1ms
      - lock: m
      - signal: c
      - unlock: m
  - name: b
    period: 20ms
    priority: 10
    body:
      - lock: m
      - wait: c
      - compute: 500us
      - unlock: m
      - sleep: 1ms
"""


def test_yaml_and_json_of_the_same_set_give_equal_models(tmp_path):
    data = yaml.safe_load(YAML_SET)
    (tmp_path / "set.yaml").write_text(YAML_SET)
    (tmp_path / "set.json").write_text(json.dumps(data, indent=1))
    (tmp_path / "set.txt").write_text(json.dumps(data))  # detected by content
    from_yaml = load_taskset(tmp_path / "set.yaml")
    from_json = load_taskset(tmp_path / "set.json")
    from_txt = load_taskset(tmp_path / "set.txt")
    assert from_yaml == from_json == from_txt
    assert from_yaml.task("a").sporadic.max_extra_ns == 2_500_000
    assert hash(from_yaml) == hash(from_json)  # frozen, hashable


def test_model_written_back_loads_to_the_same_model():
    ts = loads_taskset(YAML_SET, "yaml")
    assert taskset_from_dict(taskset_to_dict(ts)) == ts
    assert taskset_from_dict(json.loads(json.dumps(taskset_to_dict(ts)))) == ts


def test_yaml_syntax_error_gives_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nplatform: {scheduler: P-FP\ntasks: []\n")
    with pytest.raises(TaskSetError) as info:
        load_taskset(path)
    (error,) = info.value.errors
    assert error.startswith("line 3, column ")
    assert "invalid YAML" in error
    assert str(info.value).startswith(str(path) + ": line 3")


def test_json_syntax_error_gives_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "name": "x",\n  "tasks": [1,]\n}\n')
    with pytest.raises(TaskSetError) as info:
        load_taskset(path)
    assert info.value.errors[0].startswith("line 3, column ")
    assert "invalid JSON" in info.value.errors[0]


def test_duplicate_keys_are_errors(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("name: x\nname: y\n")
    with pytest.raises(TaskSetError, match="line 2, column 1: invalid YAML: found duplicate key 'name'"):
        read_document(path)
    path = tmp_path / "dup.json"
    path.write_text('{"name": "x", "name": "y"}')
    with pytest.raises(TaskSetError, match='duplicate key "name"'):
        read_document(path)


def test_unreadable_files(tmp_path):
    with pytest.raises(TaskSetError, match="cannot read: no such file"):
        load_taskset(tmp_path / "missing.yaml")
    with pytest.raises(TaskSetError, match="cannot read: is a directory"):
        load_taskset(tmp_path)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00name")
    with pytest.raises(TaskSetError, match="cannot read: not UTF-8"):
        load_taskset(binary)


def test_validation_errors_carry_the_file_name(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(YAML_SET.replace("period: 20ms", "period: 20"))
    with pytest.raises(TaskSetError) as info:
        load_taskset(path)
    assert info.value.source == str(path)
    assert str(info.value).startswith(f"{path}: tasks[1].period: expected a duration with a unit")
