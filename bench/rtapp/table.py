"""bench/README.md's rt-app side-by-side table from bench/rtapp/compare-all's output.

    python3 bench/rtapp/table.py /tmp/rtapp-compare        # OUT: one folder per file, each with compare-rtapp.json

One markdown row per file and rt-app thread: jobs, mean period, run (and the runs asked), the
shortest run and response under rt-app and rtsched (ms), rtsched / rt-app, rt-app's late loops, and whether the
thread meets issue 32's target (jobs equal, period and run within 5 %, response within 10 %).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _ms(ns: float | None) -> str:
    return "–" if ns is None else f"{ns / 1e6:.3f}"


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def rows(out: Path) -> list[str]:
    lines = ["| file (s, pLoad ns) | thread | jobs rt-app / rtsched | period | run (asked) | run min | response | "
             "rtsched / rt-app: period, run, response | rt-app late loops | target |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for path in sorted(out.glob("*/compare-rtapp.json")):
        c = json.loads(path.read_text())
        head = f"{c['name']} ({c['duration_s']}, {c.get('rtapp_ns_per_loop')})"
        for r in c["rows"]:
            a, b, q = r["rtapp"], r["rtsched"], r["ratio"]
            late = f"{a['late_loops']} ({_ms(a['late_total_ns'])})" if a["late_loops"] else "0"
            lines.append(
                f"| {head} | {r['thread']} | {a['jobs']} / {b['jobs']} | "
                f"{_ms(a['period_mean_ns'])} / {_ms(b['period_mean_ns'])} | "
                f"{_ms(a['run_mean_ns'])} / {_ms(b['run_mean_ns'])} ({_ms(a['asked_run_mean_ns'])}) | "
                f"{_ms(a['run_min_ns'])} / {_ms(b['run_min_ns'])} | "
                f"{_ms(a['response_mean_ns'])} / {_ms(b['response_mean_ns'])} | "
                f"{_ratio(q['period'])}, {_ratio(q['run'])}, {_ratio(q['response'])} | {late} | "
                f"{'yes' if r['meets_target'] else 'no'} |")
            head = ""
        for note in c["unmatched"]:
            lines.append(f"| {head} | ({note}) | | | | | | | | |")
    return lines


if __name__ == "__main__":
    print("\n".join(rows(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/rtapp-compare"))))
