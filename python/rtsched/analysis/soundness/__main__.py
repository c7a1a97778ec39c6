"""``python3 -m rtsched.analysis.soundness``: search fresh seeds for a while and print what breaks.

    python3 -m rtsched.analysis.soundness --seconds 300            # every subject, round robin
    python3 -m rtsched.analysis.soundness --seconds 60 --subject p-fp-mpcp/suspension --seed 500
    python3 -m rtsched.analysis.soundness --adversarial --seconds 120 --subject fp-rta/locks

Exit status 1 when a counterexample is found in a subject without a known
defect (each is printed with its regression source), else 0.
"""

from __future__ import annotations

import argparse
import sys
import time

from rtsched.analysis.soundness.adversary import adversarial_search
from rtsched.analysis.soundness.harness import search
from rtsched.analysis.soundness.subjects import SUBJECTS, subject
from rtsched.analysis.soundness.witness import describe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m rtsched.analysis.soundness", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to search (default 60)")
    parser.add_argument("--subject", action="append", default=[], help="a subject id (repeatable; default: all)")
    parser.add_argument("--seed", type=int, default=1000, help="first seed (default 1000)")
    parser.add_argument("--sets", type=int, default=8, help="accepted sets per subject and seed (default 8)")
    parser.add_argument("--scenarios", type=int, default=60, help="scenarios per set (default 60)")
    parser.add_argument("--show-known", action="store_true", help="print counterexamples of known defects too")
    parser.add_argument("--adversarial", action="store_true",
                        help="climb towards (response - bound) over sets and scenarios instead of drawing at random "
                        "(soundness/adversary.py): --sets climbs of --steps steps per subject and seed")
    parser.add_argument("--steps", type=int, default=400, help="steps per adversarial climb (default 400)")
    parser.add_argument("--nesting", action="store_true",
                        help="adversarial edits may nest sections even where the family never does")
    args = parser.parse_args(argv)
    try:
        chosen = [subject(s) for s in args.subject] or list(SUBJECTS)
    except KeyError as error:
        parser.error(str(error.args[0]))
    end = time.monotonic() + args.seconds
    seed = args.seed
    new: dict[str, int] = {}
    known: dict[str, int] = {}
    searched = 0
    while time.monotonic() < end:
        for subj in chosen:
            if time.monotonic() >= end:
                break
            report = adversarial_search(subj, seed, args.sets, args.steps, nesting=args.nesting or None) \
                if args.adversarial \
                else search(subj, seed, args.sets, args.scenarios, 64)
            searched += 1
            cex = report.counterexample
            if cex is None:
                continue
            defect = subj.defect or subj.also_known
            if defect:
                known[subj.id] = known.get(subj.id, 0) + 1
                if not args.show_known:
                    continue
            else:
                new[subj.id] = new.get(subj.id, 0) + 1
            print(f"--- {subj.id}, seed {seed}" + (f" (known: {defect})" if defect else " (NEW)"))
            print(describe(cex), flush=True)
        seed += 1
    print(f"{searched} searches, seeds {args.seed}..{seed - 1}; new counterexamples: {sum(new.values())} {new}; "
          f"known defects hit: {known}")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
