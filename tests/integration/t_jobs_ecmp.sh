#!/bin/bash
# SPDX-License-Identifier: MIT
# Four 8-GPU ring all-reduce jobs on a 32-host, 4-spine non-blocking leaf-spine under ECMP
# all finish, and with at least one of three hash seeds some job runs clearly slower than
# the same workload (same placements) on the one-switch best topology (issue 3, acc. 5).
#
#        s0   s1   s2   s3                      sw
#       (every leaf to every spine)     vs.    /  \
#   l0  l1  l2  l3  l4  l5  l6  l7          h0 .. h31
#   4 hosts each (h0..h31)
. "$(dirname "$0")/lib.sh"

jrt() { # jrt RESULTS_DIR JOB: the job's running time, seconds
	awk -F, -v j="$2" 'NR > 1 && $1 == j { printf "%.3f", ($11 - $10) / 1e9 }' "$1/jobs.csv"
}

# run TAG [sed...]: runs the scenario; its results folder is left in $RUN_DIR. (Not in a
# subshell: its names must reach the cleanup trap and its failures must end the test.)
run() {
	local n=it$$j$1 f
	shift
	f=$(scenario_as scenarios/ecmp-jobs.yaml "$n" "$@")
	TB_NAMES+=("$n")
	"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/$n.log" 2>&1 || { tail -20 "$TB_TMP/$n.log" >&2; fail "run $n"; }
	no_leftovers "$n"
	RUN_DIR=$(ls -d "$TB_TMP"/results/"$n"/*)
}

run b 's/kind: leafspine/kind: best/'
best=$RUN_DIR
grep -c ',ok,' "$best/jobs.csv" | grep -qx 4 || fail "best: not every job finished: $(cat "$best/jobs.csv")"
slowed=0
printf '%-8s %s\n' "" "JRT (s) of jobs 0..3"
printf '%-8s' best; for j in 0 1 2 3; do printf ' %7s' "$(jrt "$best" $j)"; done; echo
for seed in 1 2 3; do
	run s$seed "/^routing:/,/^[a-z]/ s/^  seed: 1/  seed: $seed/"
	d=$RUN_DIR
	[ "$(grep -c ',ok,' "$d/jobs.csv")" -eq 4 ] || fail "seed $seed: not every job finished"
	printf '%-8s' "seed $seed"
	for j in 0 1 2 3; do
		a=$(jrt "$d" $j)
		b=$(jrt "$best" $j)
		printf ' %7s' "$a"
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 1.10 * b) }' && slowed=$((slowed + 1))
	done
	echo
done
((slowed > 0)) || fail "no seed slowed any job by more than 10% against best"
note "$slowed job runs slowed by more than 10% against best (ECMP collisions)"
