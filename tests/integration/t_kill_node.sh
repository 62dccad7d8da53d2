#!/bin/bash
# SPDX-License-Identifier: MIT
# Killing one emu-node mid-run fails only its job, with the reason in the records; the
# other job finishes and the testbed still tears down to nothing (issue 3, acceptance 7).
# `up` exits 1 and its last lines name the job and the kill (issue 34).
#
#      s0   s1
#   l0  l1  l2  l3        job 0 on h0..h3 (its h1 is killed), job 1 on h4..h7
. "$(dirname "$0")/lib.sh"
n=it$$k
f=$TB_TMP/$n.yaml
cat >"$f" <<YAML
name: $n
topology: { kind: leafspine, hosts_per_leaf: 4, leaves: 4, spines: 2, host_rate: 200Mbit }
workload:
  iterations: 40
  jobs:
    - { gpus: 4, bytes: 4MiB, compute: 20ms }
    - { gpus: 4, bytes: 4MiB, compute: 20ms }
YAML
TB_NAMES+=("$n")
"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/up.log" 2>&1 &
up=$!
for i in $(seq 100); do # until both jobs run: eight emu-nodes inside h0..h7 with peers
	pids=$(ip netns pids "tb-$n-h1" 2>/dev/null || true)
	[ -n "$pids" ] && grep -q "running 2 jobs" "$TB_TMP/up.log" && break
	sleep 0.1
done
[ -n "$pids" ] || fail "no emu-node in h1"
ours=$(for h in h0 h1 h2 h3 h4 h5 h6 h7; do ip netns pids "tb-$n-$h" 2>/dev/null; done)
sleep 1 # a second into the run
kill -9 $pids
rc=0
wait $up || rc=$?
[ "$rc" = 1 ] || fail "up exited $rc with a job failed, not 1: $(tail -5 "$TB_TMP/up.log")"
# the last lines on the terminal name the job and the kill
tail -3 "$TB_TMP/up.log" | grep -q 'job 0 .* failed: .*h1.*killed by signal 9' ||
	fail "the last lines do not name job 0 and the kill: $(tail -5 "$TB_TMP/up.log")"
jobs=$(ls "$TB_TMP"/results/"$n"/*/jobs.csv)
awk -F, '$1 == 0' "$jobs" | grep -q ',failed,' || fail "job 0 did not fail: $(cat "$jobs")"
awk -F, '$1 == 0' "$jobs" | grep -q 'h1.*signal 9' || fail "job 0's reason does not name h1 and the kill: $(cat "$jobs")"
awk -F, '$1 == 1' "$jobs" | grep -q ',ok,' || fail "job 1 did not finish: $(cat "$jobs")"
no_leftovers "$n"
for p in $ours; do
	kill -0 "$p" 2>/dev/null && fail "emu-node $p of $n still running"
done
note "job 0 failed: $(awk -F, '$1 == 0 { print $14 }' "$jobs")"
