#!/usr/bin/env python3
"""ctest: `rtsched-lockbench --quick --json` exits 0 and prints valid JSON with
every expected key, and the uncontended rts mutexes make no system call.

A behavioural check, not a timing one: no figure is compared with a bound.
Exit 77 (skipped) when system calls cannot be counted on this machine.
"""
import json
import math
import subprocess
import sys

SKIP = 77
DEFERRED = ["rts-pcp", "rts-srp", "rts-ipcp", "rts-mpcp", "rts-fmlp"]
EAGER = ["rts-srp-eager", "rts-ipcp-eager", "rts-mpcp-eager", "rts-fmlp-eager"]
HANDOVER = ["rts-none", "rts-pip", "rts-fifo", "rts-pcp", "glibc-none", "glibc-inherit", "glibc-protect"]
MUTEXES = ["rts-none", "rts-pip", "rts-fifo", *DEFERRED, *EAGER, "glibc-none", "glibc-inherit", "glibc-protect"]
CONDVARS = ["cond-rts-pip", "cond-rts-none", "cond-rts-fifo", "cond-glibc-none", "cond-glibc-inherit"]
DIST_KEYS = {f"{stat}_{unit}" for stat in ("avg", "p50", "p99", "max", "min")
             for unit in ("cycles", "ns")} | {"samples"}
# The classes of the periodic task workload and the subjects each must measure.
GLIBC = ["glibc-none", "glibc-inherit", "glibc-protect"]
WORKLOAD = {
    "uniprocessor": ["rts-pip", "rts-pcp", "rts-srp", "rts-srp-eager", "rts-ipcp", "rts-ipcp-eager",
                     *GLIBC],
    "multiprocessor": ["rts-pip", "rts-mpcp", "rts-mpcp-eager", "rts-fmlp", "rts-fmlp-eager", *GLIBC],
}
# The deferred forms that hold a job back at its start (and so have job-start samples).
JOB_START = ["rts-srp", "rts-ipcp", "rts-mpcp", "rts-fmlp"]
TARGETED = {
    "uncontended_pair_rts-pip_vs_glibc-inherit": 1.2,
    "condvar_round_cond-rts-pip_vs_cond-glibc-none": 1.5,
    "uncontended_pair_rts-fifo_vs_glibc-none": 1.2,
}


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check_dist(where, d):
    if not isinstance(d, dict) or set(d) != DIST_KEYS:
        fail(f"{where}: expected keys {sorted(DIST_KEYS)}, got {d!r}")
    if d["samples"] <= 0:
        fail(f"{where}: no samples")
    for key in DIST_KEYS - {"samples"}:
        if not (isinstance(d[key], (int, float)) and math.isfinite(d[key]) and d[key] >= 0):
            fail(f"{where}.{key}: not a finite non-negative number: {d[key]!r}")
    if not d["min_cycles"] <= d["p50_cycles"] <= d["p99_cycles"] <= d["max_cycles"]:
        fail(f"{where}: min <= p50 <= p99 <= max does not hold: {d!r}")
    if not d["min_cycles"] <= d["avg_cycles"] <= d["max_cycles"]:
        fail(f"{where}: the average lies outside [min, max]: {d!r}")


def check_workload(workload, skipped):
    """Every subject of each class is measured (or skipped with a reason); a
    class that did not run says why; lock and unlock each have samples."""
    for cls, names in WORKLOAD.items():
        section = workload.get(cls)
        if section is None:
            fail(f"workload: no {cls} section")
        if not section["run"]:
            if not section["skipped"]:
                fail(f"workload.{cls} did not run and does not say why")
            print(f"note: workload.{cls} not run: {section['skipped']}")
            continue
        if not section["tasks"]:
            fail(f"workload.{cls}: no tasks")
        for name in names:
            if name in skipped:
                continue
            w = section["subjects"].get(name)
            if w is None:
                fail(f"workload.{cls}: {name} neither measured nor skipped")
            if w["jobs"] <= 0:
                fail(f"workload.{cls}.{name}: no job measured")
            for op in ("lock", "unlock"):
                both = w[op]
                if both["uncontended"] is None and both["contended"] is None:
                    fail(f"workload.{cls}.{name}.{op}: no sample")
                for con in ("uncontended", "contended"):
                    if both[con] is not None:
                        check_dist(f"workload.{cls}.{name}.{op}.{con}", both[con])
            if (w["job_start"] is not None) != (name in JOB_START):
                fail(f"workload.{cls}.{name}.job_start: {w['job_start']!r}")
            if w["job_start"] is not None:
                for con in ("uncontended", "contended"):
                    if w["job_start"][con] is not None:
                        check_dist(f"workload.{cls}.{name}.job_start.{con}", w["job_start"][con])


def main():
    binary = sys.argv[1]
    run = subprocess.run([binary, "--quick", "--json"], capture_output=True, text=True,
                         timeout=100)
    if run.returncode != 0:
        fail(f"exit {run.returncode}; stderr: {run.stderr.strip()}")
    try:
        doc = json.loads(run.stdout)
    except json.JSONDecodeError as error:
        fail(f"not valid JSON ({error}): {run.stdout[:300]!r}")

    for key in ("tool", "version", "machine", "config", "timer_overhead", "uncontended",
                "contended", "condvar", "workload", "syscalls", "skipped", "ratios", "targets_met"):
        if key not in doc:
            fail(f"missing top-level key {key!r}")
    if doc["tool"] != "rtsched-lockbench":
        fail(f"tool is {doc['tool']!r}")
    machine = doc["machine"]
    if not (machine["tsc_hz"] > 1e6 and machine["cpus"] >= 1 and machine["kernel"]):
        fail(f"implausible machine section: {machine!r}")
    config = doc["config"]
    if config["policy"] not in ("SCHED_FIFO", "SCHED_OTHER") or not config["quick"]:
        fail(f"config: {config!r}")
    if config["policy"] == "SCHED_OTHER" and not config["policy_note"]:
        fail("SCHED_OTHER without saying why")
    check_dist("timer_overhead", doc["timer_overhead"])

    # Every subject is measured or skipped with a reason.
    skipped = doc["skipped"]
    for name in MUTEXES:
        if name in skipped:
            if name in doc["uncontended"]:
                fail(f"{name} both measured and skipped")
            continue
        u = doc["uncontended"].get(name)
        if u is None:
            fail(f"uncontended: {name} neither measured nor skipped")
        for op in ("lock", "unlock", "pair"):
            check_dist(f"uncontended.{name}.{op}", u[op])
        if name not in HANDOVER:
            continue
        c = doc["contended"].get(name)
        if c is None or not (0 <= c["contended_rounds"] <= c["rounds"]):
            fail(f"contended.{name}: {c!r}")
        for op in ("lock", "unlock"):
            if c["contended_rounds"]:
                check_dist(f"contended.{name}.{op}", c[op])
            elif c[op] is not None:
                fail(f"contended.{name}.{op}: figures without contended rounds")
    for name in ("rts-none", "rts-pip", "rts-fifo", *DEFERRED, *EAGER):
        if name in skipped:
            fail(f"{name} skipped: {skipped[name]}")
    for name in CONDVARS:
        if name in skipped:
            fail(f"{name} skipped: {skipped[name]}")
        check_dist(f"condvar.{name}.round_trip", doc["condvar"][name]["round_trip"])

    for key, target in TARGETED.items():
        ratio = doc["ratios"].get(key)
        if ratio is None or ratio["target_max"] != target:
            fail(f"ratio {key}: {ratio!r}")
        # a ratio of exactly 1 is written as the JSON number 1
        value = ratio["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not isinstance(ratio["met"], bool):
            fail(f"ratio {key} not measured: {ratio!r}")
        if ratio["met"] != (ratio["value"] <= target):
            fail(f"ratio {key}: 'met' disagrees with its value: {ratio!r}")

    check_workload(doc["workload"], skipped)

    sys_ = doc["syscalls"]
    if not sys_["available"]:
        print(f"SKIP: system calls cannot be counted here: {sys_['reason']}")
        sys.exit(SKIP)
    check = sys_["self_check"]
    if not check["ok"] or check["counted"] != check["getppid_calls"]:
        fail(f"the syscall counter is wrong: {check!r}")
    per_pair = sys_["per_pair"]
    for name in ("rts-none", "rts-pip", "rts-fifo", *DEFERRED):
        if per_pair.get(name) != 0:
            fail(f"uncontended {name} made system calls: {per_pair.get(name)!r} per pair "
                 f"({sys_['counts'].get(name)!r})")
    for name in (*DEFERRED, "rts-fifo"):
        target = doc["syscall_targets"].get(name)
        if target is None or target["met"] is not True or target["per_pair"] != 0:
            fail(f"syscall target of {name}: {target!r}")
    # The eager forms change the priority at lock and at unlock: the counter must see it.
    for name in EAGER:
        if per_pair.get(name, 0) < 1:
            fail(f"{name} counted {per_pair.get(name)!r} syscalls per pair: the eager form "
                 "makes system calls, the counter misses them")
    if "glibc-protect" in per_pair and per_pair["glibc-protect"] < 1:
        fail(f"glibc PRIO_PROTECT counted {per_pair['glibc-protect']} syscalls per pair: "
             "the counter misses its priority changes")
    print(f"ok: syscalls per pair {per_pair}")


if __name__ == "__main__":
    main()
