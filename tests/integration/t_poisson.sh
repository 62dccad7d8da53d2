#!/bin/bash
# SPDX-License-Identifier: MIT
# 50 jobs with Poisson arrivals on 16 GPUs run to completion; arrivals outpace the cluster,
# so a queue forms and the jobs that waited have a positive JWT (issue 3, acceptance 6).
# Also a CSV trace replayed (scenarios/trace.yaml): its jobs run, and its rows larger than
# the cluster are left out, as its trace.oversize says, and counted.
#
#        s0  s1  s2  s3
#   l0  l1  l2  l3   (4 hosts each, h0..h15)
. "$(dirname "$0")/lib.sh"

up_scenario() { # up_scenario FILE TAG: runs it, leaves its results folder in $RUN_DIR
	local n=it$$p$2 f
	f=$(scenario_as "$1" "$n")
	TB_NAMES+=("$n")
	"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/$n.log" 2>&1 || { tail -20 "$TB_TMP/$n.log" >&2; fail "run $n"; }
	no_leftovers "$n"
	RUN_DIR=$(ls -d "$TB_TMP"/results/"$n"/*)
}

up_scenario scenarios/poisson.yaml a
jobs=$RUN_DIR/jobs.csv
[ "$(grep -c '' "$jobs")" -eq 51 ] || fail "expected 50 jobs: $(wc -l <"$jobs")"
ok=$(awk -F, 'NR > 1 && $12 == "ok"' "$jobs" | wc -l)
[ "$ok" -eq 50 ] || fail "$((50 - ok)) jobs did not finish: $(grep -v ',ok,' "$jobs" | head -3)"
waited=$(awk -F, 'NR > 1 && $10 - $9 > 1000000 { n++ } END { print n + 0 }' "$jobs")
negative=$(awk -F, 'NR > 1 && $10 < $9 { n++ } END { print n + 0 }' "$jobs")
((waited >= 5)) || fail "only $waited jobs waited: no queue formed"
((negative == 0)) || fail "$negative jobs started before they arrived"
note "50 Poisson jobs done, $waited waited (JWT > 1 ms), longest wait $(awk -F, 'NR > 1 { w = ($10 - $9) / 1e9; if (w > m) m = w } END { printf "%.2f", m }' "$jobs") s"

up_scenario scenarios/trace.yaml b
jobs=$RUN_DIR/jobs.csv
ran=$(awk -F, 'NR > 1 && $12 == "ok"' "$jobs" | wc -l)
said=$("$TB" check scenarios/trace.yaml)
fit=$(echo "$said" | awk '$1 == "jobs" { print $2 }')
big=$(echo "$said" | grep -o '[0-9]* trace rows need more GPUs' | cut -d' ' -f1)
# up says it as it starts (stderr) and again in the summary at the end: the first
left=$(grep -o '^testbed up: [0-9]* trace rows need more GPUs than the topology has: left out' \
	"$TB_TMP/it$$pb.log" | cut -d' ' -f3)
((ran >= 5)) || fail "trace: only $ran jobs ran: $(cat "$jobs")"
((big >= 2)) || fail "trace: check counted ${big:-no} rows larger than the cluster (the sample has 2)"
[ "$left" = "$big" ] || fail "trace: check left out $big rows, up said '${left:-nothing}'"
[ "$(($(grep -c '' "$jobs") - 1))" -eq "$fit" ] || fail "trace: jobs.csv has not the $fit jobs that fit"
! awk -F, 'NR > 1 && $3 > 16' "$jobs" | grep -q . || fail "trace: a job larger than the cluster ran"
note "trace: $ran jobs ran, the $big rows larger than the cluster left out and counted"
