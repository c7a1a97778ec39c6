"""Helpers of the experiment scripts: run the rtsched command, choose the CPU to shield."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def rtsched(args: list[str]) -> None:
    print("$ rtsched " + " ".join(args), file=sys.stderr, flush=True)
    # `python -m rtsched.cli.main` is the `rtsched` command without the console-script shim.
    command = [sys.executable, "-m", "rtsched.cli.main", *args]
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"rtsched {' '.join(args)} failed ({done.returncode}): {done.stderr}")


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


def pick_shield_cpu() -> int:
    """The CPU with the fewest IRQs that refuse to move (managed IRQs), the highest on a tie.

    A shield cannot move a managed IRQ off its CPU, so shielding the CPU that has
    one (here the virtio disk queue) would leave the disk interrupts on the shield.
    """
    from rtsched.cpus import online_cpus, parse_cpu_list  # noqa: PLC0415

    unmovable = {cpu: 0 for cpu in online_cpus()}
    for irq_dir in Path("/proc/irq").iterdir():
        if not irq_dir.name.isdigit():
            continue
        try:
            current = (irq_dir / "smp_affinity").read_text().strip()
            (irq_dir / "smp_affinity").write_text(current)  # a no-op write: refused by managed IRQs
        except OSError:
            try:
                for cpu in parse_cpu_list((irq_dir / "effective_affinity_list").read_text()):
                    if cpu in unmovable:
                        unmovable[cpu] += 1
            except (OSError, ValueError):
                pass
    return min(sorted(unmovable, reverse=True), key=lambda c: unmovable[c])
