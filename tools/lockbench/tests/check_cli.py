#!/usr/bin/env python3
"""ctest: bad command lines make rtsched-lockbench exit 2 with a message on
stderr and nothing on stdout; --help exits 0 and lists every subject."""
import subprocess
import sys

USAGE = 2
CASES = [
    (["--iterations", "abc"], "--iterations: 'abc' is not an integer"),
    (["--iterations", "0"], "--iterations: '0'"),
    (["--iterations"], "--iterations needs a value"),
    (["--bogus"], "unknown option '--bogus'"),
    (["--only", "rts-pip,nope"], "--only: unknown subject 'nope'"),
    (["--cpu", "4096"], "--cpu: '4096' is not a CPU"),
    (["--priority", "99"], "--priority: '99'"),
    (["--workload-ms", "60001"], "--workload-ms: '60001' is not an integer in 0..60000"),
    (["--seed", "-1"], "--seed: '-1' is not a non-negative integer"),
]
SUBJECTS = ["rts-none", "rts-pip", "rts-pcp", "rts-srp", "rts-srp-eager", "rts-ipcp",
            "rts-ipcp-eager", "rts-mpcp", "rts-mpcp-eager", "rts-fmlp", "rts-fmlp-eager",
            "glibc-none", "glibc-inherit", "glibc-protect",
            "cond-rts-pip", "cond-rts-none", "cond-glibc-none", "cond-glibc-inherit"]


def main():
    binary = sys.argv[1]
    failures = 0
    for args, message in CASES:
        run = subprocess.run([binary, *args], capture_output=True, text=True, timeout=10)
        if run.returncode != USAGE or message not in run.stderr or run.stdout:
            print(f"FAIL {args}: exit {run.returncode} (want {USAGE}), stderr {run.stderr!r} "
                  f"(want {message!r}), stdout {run.stdout[:100]!r}", file=sys.stderr)
            failures += 1
    run = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=10)
    missing = [s for s in SUBJECTS if s not in run.stdout]
    if run.returncode != 0 or "usage:" not in run.stdout or missing:
        print(f"FAIL --help: exit {run.returncode}, missing {missing}", file=sys.stderr)
        failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
