"""CPU lists and masks (rtsched.cpus): the one parser every part of rtsched uses."""

from __future__ import annotations

import pytest

from rtsched.cpus import (
    CpuListError,
    checked_cpu_list,
    cpu_mask,
    format_cpu_list,
    format_mask,
    mask_cpus,
    online_cpus,
    parse_cpu_list,
    parse_mask,
)


@pytest.mark.parametrize(
    "text, cpus",
    [("0", (0,)), ("0-2,5", (0, 1, 2, 5)), (" 1,1 \n", (1,)), ("3-3", (3,)), ("2,0", (0, 2))],
)
def test_cpu_lists(text, cpus):
    assert parse_cpu_list(text) == cpus


@pytest.mark.parametrize("text", ["", "x", "5-3", "1,", "-1", "1-", "a-b", "1 2"])
def test_bad_cpu_lists(text):
    with pytest.raises(CpuListError):
        parse_cpu_list(text)


def test_cpu_list_formatting_and_masks():
    assert format_cpu_list([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert cpu_mask([0, 2]) == 5 and mask_cpus(5) == (0, 2)
    assert parse_mask("00000000,00000003") == 3 and parse_mask("3") == 3
    assert format_mask(3) == "00000003"
    assert format_mask(1 << 33) == "00000002,00000000"
    assert parse_mask(format_mask(0xDEADBEEF12)) == 0xDEADBEEF12


def test_parse_cpu_list():
    assert parse_cpu_list("0-3,5,7-8\n") == (0, 1, 2, 3, 5, 7, 8)
    assert parse_cpu_list("0") == (0,)


def test_masks_are_not_limited_to_64_cpus():
    assert mask_cpus(cpu_mask([0, 64, 100])) == (0, 64, 100)
    assert format_mask(cpu_mask([64])) == "00000001,00000000,00000000"
    assert mask_cpus(parse_mask(format_mask(cpu_mask(range(70, 130))))) == tuple(range(70, 130))


def test_online_cpus_are_a_checked_list():
    online = online_cpus()
    assert online and online == tuple(sorted(set(online)))
    assert checked_cpu_list(format_cpu_list(online)) == online
    with pytest.raises(CpuListError, match=f"CPU {max(online) + 1} does not exist or is offline"):
        checked_cpu_list(str(max(online) + 1))
