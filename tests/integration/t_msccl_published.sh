#!/bin/bash
# SPDX-License-Identifier: MIT
# MSCCL algorithms other people published run as they are (issue 36): every file of
# scenarios/msccl-published.yaml (msccl-tools' example generators for 4 and 8 ranks, Azure's
# NDv4 and NDv5 production algorithms; tests/fixtures/msccl/README.md names the sources) is
# proven by `check`, runs emulated with every rank's result verified under a fidelity
# verdict of ok, and runs in virtual time, with no job's bus bandwidth above the line rate.
# The NDv5 all-reduces given as a list are chosen per job by size, as MSCCL's executor
# chooses; a size none takes, and the published files that are not the collective they
# name, are refused with exit 2 saying why.
. "$(dirname "$0")/lib.sh"
n=msccl-pub
TB_NAMES+=("$n" msccl-ndv5 it$$m)
fx=tests/fixtures/msccl
line_GBps=0.125 # 1 Gbit/s in paper units

# the 45 jobs: proven, then emulated with verify
out=$("$TB" check scenarios/msccl-published.yaml) || fail "check refuses msccl-published: $out"
echo "$out" | grep -q "^msccl      45 jobs run imported MSCCL algorithms" ||
	fail "check does not count 45 MSCCL jobs: $out"
settle
rc=0
"$TB" up --results "$TB_TMP/res" scenarios/msccl-published.yaml >"$TB_TMP/up.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "up exited $rc: $(tail -5 "$TB_TMP/up.log")"
d=$(ls -d "$TB_TMP"/res/$n/* | tail -1)
good=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
	NR > 1 && $h["status"] == "ok" && $h["verified"] == 1' "$d/jobs.csv" | wc -l)
[ "$good" = 45 ] || fail "$good of 45 jobs ended ok and verified: $(cat "$d/jobs.csv")"
verdict=$(jq -r .fidelity.verdict "$d/summary.json")
[ "$verdict" = ok ] || fail "fidelity verdict $verdict: $(grep fidelity "$TB_TMP/up.log")"
most=$(jq '[.jobs[].busbw_GBps] | max' "$d/summary.json")
awk -v b="$most" -v l=$line_GBps 'BEGIN { exit !(b > 0 && b <= l) }' ||
	fail "emulated: a job's bus bandwidth $most GB/s, line rate $line_GBps"
no_leftovers "$n"
note "emulated: 45 of 45 jobs ok and verified, fidelity $verdict, busbw at most $most GB/s" \
	"(line $line_GBps)"

# the same jobs in virtual time (which moves no payload, so verifies nothing)
sed 's/^  verify: true/  verify: false/' scenarios/msccl-published.yaml >"$TB_TMP/sim.yaml"
"$TB" sim --results "$TB_TMP/sim" "$TB_TMP/sim.yaml" >"$TB_TMP/sim.log" 2>&1 ||
	fail "sim: $(tail -5 "$TB_TMP/sim.log")"
d=$(ls -d "$TB_TMP"/sim/$n/* | tail -1)
[ "$(jq '[.jobs[] | select(.status == "ok")] | length' "$d/summary.json")" = 45 ] ||
	fail "sim: not 45 jobs ok: $(grep jobs: "$TB_TMP/sim.log")"
most=$(jq '[.jobs[].busbw_GBps] | max' "$d/summary.json")
awk -v b="$most" -v l=$line_GBps 'BEGIN { exit !(b > 0 && b <= l) }' ||
	fail "sim: a job's bus bandwidth $most GB/s, line rate $line_GBps"
note "virtual time: 45 of 45 jobs ok, busbw at most $most GB/s"

# several algorithms for one collective: each job runs the one whose range holds its size
out=$("$TB" check scenarios/msccl-ndv5.yaml) || fail "check refuses msccl-ndv5: $out"
k=0
for f in ar-1k-512k ar-1m ar-2m ar-4m ar-8m; do
	echo "$out" | grep -q "^msccl      job $k runs $fx/msccl-executor-ndv5-$f.xml$" ||
		fail "job $k does not run $f: $out"
	k=$((k + 1))
done
settle
"$TB" up --results "$TB_TMP/ndv5" scenarios/msccl-ndv5.yaml >"$TB_TMP/ndv5.log" 2>&1 ||
	fail "msccl-ndv5: $(tail -5 "$TB_TMP/ndv5.log")"
d=$(ls -d "$TB_TMP"/ndv5/msccl-ndv5/* | tail -1)
[ "$(grep -c ',ok,1,' "$d/jobs.csv")" = 5 ] || fail "msccl-ndv5: not 5 jobs verified: $(cat "$d/jobs.csv")"
no_leftovers msccl-ndv5

# a size none of the files takes: refused with each file's range
sed 's/bytes: 9MiB/bytes: 32MiB/' scenarios/msccl-ndv5.yaml >"$TB_TMP/big.yaml"
rc=0
out=$("$TB" check "$TB_TMP/big.yaml" 2>&1) || rc=$?
[ "$rc" = 2 ] || fail "a 32 MiB all-reduce: exit $rc, not 2: $out"
echo "$out" | grep -q "workload.msccl.files (job 4): no algorithm takes a allreduce over 8 ranks of 33554432 bytes .*msccl-executor-ndv5-ar-8m.xml: allreduce over 8 ranks, 8388608 to 16777215 bytes" ||
	fail "a 32 MiB all-reduce: not refused with the ranges: $out"

# published files that are not what they say: refused at check and up, nothing built
for x in "pipeline_a100_ring-8 allreduce not the allreduce it says it is" \
	"alltonext_forward-8 allreduce not the allreduce the job runs (the file says coll=\"custom\")"; do
	set -- $x
	f=$1 k=$2
	shift 2
	cat >"$TB_TMP/it$$m.yaml" <<YAML
name: it$$m
topology: { kind: leafspine, hosts_per_leaf: 4, leaves: 4, spines: 2, host_rate: 1Gbit }
workload:
  iterations: 1
  jobs:
    - {gpus: 8, collective: $k, bytes: 1MiB, compute: 1ms, msccl: $fx/msccl-tools-$f.xml}
YAML
	for cmd in check up; do
		rc=0
		out=$("$TB" $cmd "$TB_TMP/it$$m.yaml" 2>&1) || rc=$?
		[ "$rc" = 2 ] || fail "$cmd $f: exit $rc, not 2: $out"
		echo "$out" | grep -qF "workload.jobs.msccl: $fx/msccl-tools-$f.xml: MSCCL XML" ||
			fail "$cmd $f: not refused at the file: $out"
		echo "$out" | grep -qF "$*" || fail "$cmd $f: not '$*': $out"
	done
	no_leftovers "it$$m"
done
note "$(echo "$out" | tail -1 | cut -c1-220)"
