#!/bin/bash
# SPDX-License-Identifier: MIT
# What failing one of four spines costs (issue 5, acceptance 6; greedy routing §5.4, mid-run):
# scenarios/failure-spine.yaml (s3 fails 2 s into a 16-rank all-to-all across two leaves)
# run RUNS times with the failure and RUNS times without it, alternating, on one machine in
# one session; prints each JRT, the medians, their ratio, and the reroute times. TCP's
# retransmission timeouts make single runs vary by a third here, hence the repetitions.
# Usage: failure.sh BUILD_DIR [RUNS]   (as root)
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "failure: needs root"; exit 1; }
TB=$BUILD/testbed
TMP=$(mktemp -d /tmp/tbfail.XXXXXX)
NAME=bf$$
cleanup() {
	"$TB" -q down "$NAME" >/dev/null 2>&1 || true
	rm -rf "$TMP"
	return 0
}
trap cleanup EXIT

# run WITH(0|1) I: one run; prints its JRT in seconds (and the reroute time when WITH)
run() {
	local f=$TMP/s-$1-$2.yaml dir
	sed -e "s/^name: .*/name: $NAME/" \
		scenarios/failure-spine.yaml >"$f"
	[ "$1" = 1 ] || sed -i '/^failures:/,/node: s3/d' "$f"
	"$TB" up --results "$TMP/r-$1-$2" "$f" >"$TMP/log" 2>&1 || { tail -20 "$TMP/log"; exit 1; }
	dir=$(dirname "$(ls "$TMP/r-$1-$2/$NAME"/*/jobs.csv)")
	grep -q ',ok,' "$dir/jobs.csv" || { echo "failure: the job did not finish"; exit 1; }
	awk -F, 'NR == 2 { printf "%.2f", ($11 - $10) / 1e9 }' "$dir/jobs.csv"
	[ "$1" = 1 ] && awk -F, 'NR == 2 { printf " %.1f", $5 / 1e6 }' "$dir/failures.csv"
	echo
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

with=() without=() reroute=()
for i in $(seq "$RUNS"); do
	read -r j r < <(run 1 "$i")
	with+=("$j") reroute+=("$r")
	without+=("$(run 0 "$i")")
done
mw=$(printf '%s\n' "${with[@]}" | median)
mo=$(printf '%s\n' "${without[@]}" | median)
echo "failure: one of four spines (s3) fails 2 s into a 16-rank all-to-all, $RUNS runs each, load $(cut -d' ' -f1 /proc/loadavg)"
echo "  JRT with the failure (s):    ${with[*]}  median $mw"
echo "  JRT without (s):             ${without[*]}  median $mo"
echo "  reroute (ms, routes applied): ${reroute[*]}"
echo "  slowdown (median / median):  $(awk -v a="$mw" -v b="$mo" 'BEGIN { printf "%.2fx", a / b }')"
