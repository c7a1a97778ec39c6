"""The whole set: its top-level keys read in order (platform, then what tasks refer to, then
the tasks), then the rules that need all of it (ceilings, the backend's, reservations, PREM)."""

from __future__ import annotations

from typing import Any

from rtsched.model.ceilings import ceiling_problems
from rtsched.model.model import TaskSet
from rtsched.model.prem import prem_problems
from rtsched.model.reservations import read_reservations, reservation_problems, with_inherited
from rtsched.model.ult import ult_problems
from rtsched.model.validation.chains import read_chains
from rtsched.model.validation.checker import Checker, Declared
from rtsched.model.validation.fields import TOP
from rtsched.model.validation.platform import read_platform
from rtsched.model.validation.resources import read_condvars, read_resources
from rtsched.model.validation.servers import read_servers, servers_against_tasks
from rtsched.model.validation.task import read_tasks

__all__ = ["read_taskset", "whole_set_problems"]


def whole_set_problems(taskset: TaskSet) -> list[tuple[str, str]]:
    """(path, message) for each rule of the whole set ``taskset`` breaks: ceilings, what its
    backend runs (ult, reservations, PREM). Give it ``with_inherited(taskset)``; a set read from a
    file passed them, so they say what changes when the set is given another backend."""
    return ceiling_problems(taskset) + ult_problems(taskset) + reservation_problems(taskset) + prem_problems(taskset)


def read_taskset(c: Checker, data: Any) -> TaskSet | None:
    top = c.mapping(data, "")
    if top is None:
        return None
    c.format_keys(top, TOP, "")
    name = c.read(top, TOP, "name", "") if "name" in top else None
    duration = c.read(top, TOP, "duration", "") if "duration" in top else None
    platform = read_platform(c, top["platform"]) if "platform" in top else None
    resources = read_resources(c, top.get("resources", []), platform)
    condvars = read_condvars(c, top.get("condvars", []), resources)
    servers = read_servers(c, top.get("servers", []), platform)
    reservations = read_reservations(c, top.get("reservations", []), platform)
    declared = Declared(resources, condvars, servers, reservations)
    tasks = read_tasks(c, top["tasks"], platform, declared) if "tasks" in top else None
    if tasks is not None:
        servers_against_tasks(c, servers, tasks)
    chains = read_chains(c, top.get("chains", []), tasks)
    if c.errors:
        return None
    assert name is not None and platform is not None and tasks is not None
    taskset = TaskSet(
        name=name,
        platform=platform,
        tasks=tuple(tasks),
        resources=tuple(resources.values()),
        condvars=tuple(condvars.values()),
        duration_ns=duration,
        servers=tuple(servers.values()),
        reservations=tuple(reservations.values()),
        chains=chains,
    )
    taskset = with_inherited(taskset)
    for path, message in whole_set_problems(taskset):
        c.error(path, message)
    return None if c.errors else taskset
