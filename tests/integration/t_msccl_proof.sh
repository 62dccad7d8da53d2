#!/bin/bash
# SPDX-License-Identifier: MIT
# Schedules proven before they run (issue 34): MSCCL files that say all-gather but are not
# (the ns-3 MSCCL validation set's "Others") are refused by `check` and `up` with exit 2 at
# the line:column of the first offending step, before anything is built; msccl-tools'
# recursive doubling/halving all-reduce, read in its threadblocks' order, verifies emulated
# at 64 MiB (where it once finished `ok` with wrong data) and at 105 MiB.
#
#          s0          s1              spines
#    l0    l1    l2    l3              leaves (2 Gbit/s links)
#  h0-h3 h4-h7 h8-h11 h12-h15          job 0 (64 MiB) on h0..h7, job 1 (105 MiB) on h8..h15
. "$(dirname "$0")/lib.sh"
n=it$$p
fx=$PWD/tests/fixtures/msccl

scenario() { # scenario FILE JOB...: the jobs (flow mappings) running MSCCL file FILE
	local x=$1 j
	shift
	cat >"$TB_TMP/$n.yaml" <<YAML
name: $n
topology: { kind: leafspine, hosts_per_leaf: 4, leaves: 4, spines: 2, host_rate: 2Gbit }
workload:
  verify: true
  iterations: 1
  algorithm: msccl
  msccl: {file: $fx/$x}
  jobs:
YAML
	for j in "$@"; do echo "    - $j" >>"$TB_TMP/$n.yaml"; done
}
TB_NAMES+=("$n")

for x in "ns3-others-peer2peer.xml 64MiB 11:13" "ns3-others-all2one.xml 56MiB 35:13" \
	"ns3-others-all2all.xml 56MiB 35:13"; do
	set -- $x
	scenario "$1" "{gpus: 8, collective: allgather, bytes: $2, compute: 1ms}"
	for cmd in check up sim; do
		rc=0
		out=$("$TB" $cmd "$TB_TMP/$n.yaml" 2>&1) || rc=$?
		[ "$rc" = 2 ] || fail "$cmd $1: exit $rc, not 2: $out"
		echo "$out" | grep -q "$1: MSCCL XML $3: not the allgather it says it is: .*lands elsewhere" ||
			fail "$cmd $1: not refused at $3: $out"
	done
	no_leftovers "$n"
done
note "$(echo "$out" | tail -1 | cut -c1-200)"

scenario msccl-tools-allreduce-rdh-8.xml "{gpus: 8, bytes: 64MiB, compute: 1ms}" \
	"{gpus: 8, bytes: 105MiB, compute: 1ms}"
rc=0
"$TB" check "$TB_TMP/$n.yaml" >/dev/null 2>&1 || fail "check refuses the recursive doubling/halving file"
"$TB" up --results "$TB_TMP/res" "$TB_TMP/$n.yaml" >"$TB_TMP/up.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "up exited $rc: $(tail -5 "$TB_TMP/up.log")"
jobs=$(ls "$TB_TMP"/res/"$n"/*/jobs.csv)
[ "$(grep -c ',ok,1,' "$jobs")" = 2 ] || fail "not both sizes verified: $(cat "$jobs")"
no_leftovers "$n"
