#!/bin/sh
# rtspin under each mapped plugin (P-FP, PSN-EDF, GSN-EDF with an FMLP lock, C-EDF with clusters of one CPU and of
# all): every job on the partition asked for, job
# numbers 1, 2, ... without a gap, and as many jobs as the duration holds
# periods (bounds with margin, never times); then two rtspin -w released
# together by release_ts; liblitmus's options -C, -h, -R, -c. Exit 77 (skip) where the kernel refuses the policy.
#   rtspin_plugins.sh TOOLS_DIR
set -eu
tools=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtsched-rtspin.XXXXXX")
export RTSCHED_LITMUS_PLUGIN_FILE="$tmp/plugin"
export RTSCHED_LITMUS_TS_NAME="rtsched-litmus-ts-rtspin.$$"
cleanup() {
	"$tools/litmus-setsched" Linux >/dev/null 2>&1 || true
	rm -f "/dev/shm/$RTSCHED_LITMUS_TS_NAME"
	rm -rf "$tmp"
}
trap cleanup EXIT
cpu=$(($(nproc) - 1))

# check_jobs FILE CPU MIN MAX: lines "rtspin/PID:JOB cpu=C", then the summary
# (CPU "any": global scheduling, any CPU).
check_jobs() {
	awk -v cpu="$2" -v min="$3" -v max="$4" '
		/^rtspin\/[0-9]+:[0-9]+ cpu=/ {
			split($1, a, ":"); job = a[2]; sub("cpu=", "", $2)
			if (job != n + 1) { print "job " job " after job " n; bad = 1 }
			if (cpu != "any" && $2 != cpu) { print "job " job " on CPU " $2 ", not " cpu; bad = 1 }
			n = job
		}
		END {
			if (n < min || n > max) { print n " jobs, expected " min ".." max; bad = 1 }
			exit bad
		}' "$1"
}

for plugin in P-FP PSN-EDF; do
	if ! "$tools/litmus-setsched" "$plugin" 2>"$tmp/err"; then
		echo "SKIP: litmus-setsched $plugin: $(cat "$tmp/err")"
		exit 77
	fi
	echo "== $plugin: rtspin -v -p $cpu -q 10 2 10 0.2"
	if ! "$tools/rtspin" -v -p "$cpu" -q 10 2 10 0.2 >"$tmp/out" 2>"$tmp/err"; then
		cat "$tmp/err"
		grep -q "refused\|EPERM\|Operation not permitted" "$tmp/err" && exit 77
		exit 1
	fi
	tail -1 "$tmp/out"
	# 0.2 s of 10 ms periods: 20 jobs; at least half, at most one more.
	check_jobs "$tmp/out" "$cpu" 10 21
done

echo "== GSN-EDF: rtspin -v -X FMLP -L 0.5 2 10 0.2 (global SCHED_DEADLINE, a lock per job)"
"$tools/litmus-setsched" GSN-EDF
"$tools/rtspin" -v -X FMLP -L 0.5 -F "$tmp/locks" 2 10 0.2 >"$tmp/out"
tail -1 "$tmp/out"
check_jobs "$tmp/out" any 10 21

echo "== C-EDF 1: clusters of one CPU, rtspin -v -p $cpu 2 10 0.2 (pinned SCHED_DEADLINE in its cluster's cpuset)"
"$tools/litmus-setsched" C-EDF 1
"$tools/rtspin" -v -p "$cpu" 2 10 0.2 >"$tmp/out"
tail -1 "$tmp/out"
check_jobs "$tmp/out" "$cpu" 10 21

echo "== C-EDF ALL: one cluster of every CPU, G-EDF in it; domain 1 does not exist"
"$tools/litmus-setsched" C-EDF ALL
"$tools/rtspin" -v -p 0 2 10 0.2 >"$tmp/out"
tail -1 "$tmp/out"
check_jobs "$tmp/out" any 10 21
if [ "$(nproc)" -gt 1 ]; then
	if "$tools/rtspin" -p 1 2 10 0.1 >"$tmp/out" 2>"$tmp/err"; then
		echo "rtspin -p 1 ran under C-EDF ALL"; exit 1
	fi
	grep -q "C-EDF has 1" "$tmp/err" || { cat "$tmp/err"; exit 1; }
fi

"$tools/litmus-setsched" P-FP
echo "== release_ts: two rtspin -w, released together"
"$tools/rtspin" -w -v -p "$cpu" -q 11 1 10 0.1 >"$tmp/a" &
a=$!
"$tools/rtspin" -w -v -p "$cpu" -q 12 1 10 0.1 >"$tmp/b" &
b=$!
"$tools/release_ts" -f 2 -d 5 -t 10 | tee "$tmp/rel"
wait $a
wait $b
grep -qx "Released 2 real-time tasks." "$tmp/rel"
# Job 1 at task_mode, job 2 at the synchronous release: each printed from job 2 on.
for f in "$tmp/a" "$tmp/b"; do
	head -1 "$f" | grep -q ':2 cpu=' || { echo "first job printed: $(head -1 "$f")"; exit 1; }
done
echo "== liblitmus's options: -C (one job per CSV row), -h, -R refused, -c srt"
printf '1\n2\n1.5\n' >"$tmp/costs.csv"
"$tools/rtspin" -v -p "$cpu" -q 10 -c srt -C "$tmp/costs.csv:1" 2 10 >"$tmp/out"
tail -1 "$tmp/out" | grep -q ': 3 jobs, last job 3$' || { tail -1 "$tmp/out"; exit 1; }
"$tools/rtspin" -h | grep -q "^usage: rtspin"
if "$tools/rtspin" -R 2 10 1 2>"$tmp/err"; then echo "rtspin -R ran"; exit 1; fi
grep -q "reservations" "$tmp/err" || { cat "$tmp/err"; exit 1; }
echo "rtspin under P-FP, PSN-EDF, GSN-EDF and C-EDF: ok"
