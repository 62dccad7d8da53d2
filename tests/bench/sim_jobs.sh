#!/bin/bash
# SPDX-License-Identifier: MIT
# A sweep's runs at once (issue 38, acceptance 2): the vClos paper's CLUSTER512 sweep
# (scenarios/paper/vclos-cluster512.yaml, 35 runs of 5,000 jobs) in virtual time with
# `testbed sim -j 1` and with `-j <cores>`, side by side: the wall times, their ratio
# (target: at least 1.7 on 2 cores) and whether the records are the same (every CSV but
# cpu.csv, and routing.csv but its measured decision times).
# Usage: sim_jobs.sh BUILD_DIR [SCENARIO]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
FILE=${2:-scenarios/paper/vclos-cluster512.yaml}
TMP=$(mktemp -d /tmp/tbjobs.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cores=$(nproc)

# sweep J: the whole sweep, J runs at once; its wall time in seconds
sweep() {
	local t0 t1
	sync
	t0=$(date +%s.%N)
	"$BUILD/testbed" sim -q -j "$1" --results "$TMP/j$1" "$FILE" >/dev/null 2>"$TMP/err$1" ||
		{ tail "$TMP/err$1"; exit 1; }
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

echo "bench: $FILE, whole sweep, -j 1 against -j $cores ($cores cores)"
w1=$(sweep 1)
wn=$(sweep "$cores")
a=$(ls -d "$TMP"/j1/*/*-sweep) b=$(ls -d "$TMP"/j"$cores"/*/*-sweep)
same=yes files=0
for f in $(cd "$a" && find . -name '*.csv' ! -name cpu.csv | sort); do
	files=$((files + 1))
	if [ "${f##*/}" = routing.csv ]; then
		cmp -s <(cut -d, -f1-6,8- "$a/$f") <(cut -d, -f1-6,8- "$b/$f") || { same="no ($f)"; break; }
	else
		cmp -s "$a/$f" "$b/$f" || { same="no ($f)"; break; }
	fi
done
runs=$(jq '.runs | length' "$a/sweep.json")
awk -v a="$w1" -v b="$wn" -v c="$cores" -v n="$runs" -v s="$same" -v f="$files" 'BEGIN {
	printf "  %d runs: -j 1 %.1f s, -j %d %.1f s: %.2fx (target >= 1.7 on 2 cores); records the same: %s (%d files)\n",
		n, a, c, b, a / b, s, f }'
