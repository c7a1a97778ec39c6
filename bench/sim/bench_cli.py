#!/usr/bin/env python3
"""What the user waits for: ``rtsched sim`` from command start to exit, default outputs, beside
SimSo's ``run_model()`` on the same set for the same simulated time, in the same run (issue 36
item 3: at least 50x SimSo on a 10-task RM set for 120 simulated s; a simulated hour of a
50-task set in under 60 s), with each command's peak memory (ru_maxrss of the child).

    PYTHONPATH=python RTSCHED_NATIVE_BIN=build/dev/tools \
        python3 bench/sim/bench_cli.py --simso-path /tmp/simso-venv [--cases rm10:120,rm50:3600] [--json]

The sets are bench_sim.py's (RM on one CPU, U = 0.7, periods 10-100 ms, the same seeds),
written to a YAML file that ``rtsched sim FILE --duration D --out DIR`` reads. The command runs
as an installed one does: bytecode cached (one untimed run first fills a cache under the
temporary folder), in a fresh interpreter each time. Each case runs ``--repeat`` times (the
fastest kept); SimSo runs once per case (``--simso-repeat``) and only where asked
(``--simso-cases``, default the 10-task case: SimSo needs minutes for an hour of 50 tasks).
The command runs with ``--ideal``: SimSo charges no overheads either, and a machine with an
overhead profile (``rtsched calibrate``) would otherwise have the command charge its overheads,
which only the generic Python engine simulates (``--profile-overheads`` measures that instead).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sim import generate, run_simso, simso_available  # noqa: E402

COMMAND = "import sys; from rtsched.cli.main import main; sys.exit(main())"


def write_set(n: int, path: Path) -> list[tuple[int, int]]:
    """bench_sim's RM set of n tasks on one CPU as a task-set file; returns (period_ms, wcet_us)."""
    tasks = generate(n, 0.7, seed=n * 31 + 1)
    order = sorted(range(n), key=lambda i: (tasks[i][0], i))
    rows = [{"name": f"t{i}", "period": f"{tasks[i][0]}ms", "body": [{"compute": f"{tasks[i][1]}us"}],
             "partition": "cpu0", "priority": max(1, 99 - rank)} for rank, i in enumerate(order)]
    path.write_text(yaml.safe_dump({"name": f"rm{n}", "platform": {"scheduler": "P-FP", "cpus": [0]},
                                    "tasks": rows}, sort_keys=False))
    return tasks


def run_command(set_file: Path, duration_s: float, out: Path, env: dict[str, str], ideal: bool = True) -> dict:
    """One ``rtsched sim``: wall from start to exit, its CPU time and peak RSS, what it wrote."""
    out.mkdir(parents=True, exist_ok=True)
    printed = out.parent / f"{out.name}.stdout"
    with open(printed, "wb") as sink:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", COMMAND, "sim", str(set_file), "--duration",
                                  f"{duration_s}s", "--out", str(out), "--json", *(["--ideal"] if ideal else [])], stdout=sink,
                                 stderr=subprocess.DEVNULL, env=env)
        _pid, status, usage = os.wait4(child.pid, 0)  # its own rusage: CPU time and peak RSS
        wall = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"rtsched sim {set_file.name} failed (wait status {status})")
    stdout = printed.read_bytes()
    summary = json.loads(stdout)
    child.returncode = 0  # reaped by wait4
    return {"wall_s": wall, "jobs": summary["jobs"], "engine": summary["simulated"]["engine"], "usage": usage,
            "files_bytes": {p.name: p.stat().st_size for p in sorted(out.iterdir())}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simso-path", default=os.environ.get("SIMSO_PATH"))
    parser.add_argument("--cases", default="rm10:120,rm50:3600", help="rmN:SECONDS,... (default rm10:120,rm50:3600)")
    parser.add_argument("--simso-cases", default="rm10:120", help="the cases SimSo runs too (default rm10:120)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--simso-repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile-overheads", action="store_true",
                        help="run the command without --ideal (this machine's overhead profile, if any, charged)")
    args = parser.parse_args()
    missing = simso_available(args.simso_path)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        for case in args.cases.split(","):
            name, seconds = case.split(":")
            n, duration = int(name.removeprefix("rm")), float(seconds)
            set_file = Path(tmp) / f"{name}.yaml"
            tasks = write_set(n, set_file)
            run_command(set_file, 0.1, Path(tmp) / "warm", env, not args.profile_overheads)  # fills the bytecode cache
            best = None
            for k in range(args.repeat if duration <= 600 else 1):
                got = run_command(set_file, duration, Path(tmp) / f"out-{name}-{k}", env, not args.profile_overheads)
                if best is None or got["wall_s"] < best["wall_s"]:
                    best = got
            assert best is not None
            usage = best.pop("usage")
            row = {"set": name, "tasks": n, "simulated_s": duration, **best,
                   "wall_s": round(best["wall_s"], 3),
                   "cpu_s": round(usage.ru_utime + usage.ru_stime, 3), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}
            if missing is None and case in args.simso_cases.split(","):
                theirs = run_simso("RM", tasks, 1, int(duration * 1000), args.simso_path, args.simso_repeat)
                if theirs and "error" not in theirs:
                    row.update(simso_run_model_s=round(theirs["wall_s"], 3), simso_jobs=theirs["jobs"],
                               speedup=round(theirs["wall_s"] / best["wall_s"], 1))
                else:
                    row["simso_error"] = (theirs or {}).get("error", "failed")
            rows.append(row)
            if not args.json:
                print(json.dumps(row), flush=True)
    if args.json:
        print(json.dumps({"simso": missing or "compared", "rows": rows}, indent=2))
    elif missing:
        print(f"SimSo not compared: {missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
