#!/bin/bash
# SPDX-License-Identifier: MIT
# Chakra execution traces as workloads (issue 37): `testbed check` reports a trace's graph and
# critical path; ASTRA-sim's published microbenchmarks and Chakra's generator's broadcast and
# barrier (scenarios/chakra-astra.yaml) run in virtual time and emulated under ECMP and greedy
# routing, every job ok and every verdict ok, with each node's times in ops.csv; ASTRA-sim's
# MLP chain (scenarios/chakra-mlp.yaml) emulated, its critical path in the summary; both again
# with `verify: true`, every rank's every operation checked on real floats (and a wrong
# element found: the job fails, the run exits 1); on a
# non-blocking switch the chain ends in virtual time within 3% of its critical path's
# alpha-beta sum; a workload exported with `testbed schedule --chakra` and imported back
# runs the same jobs; and the traces check refuses (a cycle, a dependency the file lacks, a
# send and receive of different sizes) exit 2 naming the file and the node.
. "$(dirname "$0")/lib.sh"

# check: the graph and the critical path
"$TB" check scenarios/chakra-mlp.yaml >"$TB_TMP/check.out" 2>&1 || fail "check: $(tail -3 "$TB_TMP/check.out")"
grep -q "chakra     job 0: .*MLP_ModelParallel, 8 ranks, 232 nodes (144 COMP_NODE, 88 COMM_COLL_NODE)" "$TB_TMP/check.out" ||
	fail "check does not report the graph: $(grep -A2 chakra "$TB_TMP/check.out")"
grep -q "critical path 0.195237 s with nothing shared: 24 operations" "$TB_TMP/check.out" ||
	fail "check does not report the critical path: $(grep -A2 chakra "$TB_TMP/check.out")"
for t in cycle dangling mismatch; do
	f=$(ls tests/fixtures/bad-world/*-chakra-$t.yaml)
	rc=0
	"$TB" check "$f" >"$TB_TMP/$t.out" 2>&1 || rc=$?
	[ $rc = 2 ] || fail "check $t: exit $rc, not 2"
	grep -q "chakra-bad/$t\.[01]\.et: node [0-9]" "$TB_TMP/$t.out" || fail "check $t: $(cat "$TB_TMP/$t.out")"
done

# virtual time: the published workloads under two routing policies
"$TB" sim -q --results "$TB_TMP/sim" scenarios/chakra-astra.yaml >"$TB_TMP/sim.out" 2>&1 ||
	fail "sim chakra-astra: $(tail -5 "$TB_TMP/sim.out")"
for v in v0-s0 v1-s0; do
	d=$(ls -d "$TB_TMP"/sim/chakra-astra/*-sweep/$v)
	[ "$(jq .totals.ok "$d/summary.json")" = 14 ] || fail "sim $v: $(cat "$d/jobs.csv")"
	# every node of every trace ran: 1 collective node per rank of 12 microbenchmarks (112
	# ranks) and the broadcast and barrier (4 ranks each)
	[ "$(tail -n +2 "$d/ops.csv" | wc -l)" = 120 ] || fail "sim $v: $(tail -n +2 "$d/ops.csv" | wc -l) rows in ops.csv, not 120"
	awk -F, 'NR > 1 && ($8 == "" || $9 == "" || $9 < $8) { exit 1 }' "$d/ops.csv" ||
		fail "sim $v: an op without its times in ops.csv"
	"$TB_BUILD/tools/schema_check" docs/summary.schema.json "$d/summary.json" >/dev/null ||
		fail "sim $v: summary.json does not follow its schema"
done
grep -q "policy=greedy" "$(ls -d "$TB_TMP"/sim/chakra-astra/*-sweep)/comparison.txt" || fail "no comparison of the two policies"

# within 3% of the critical path's alpha-beta sum on a non-blocking switch (`testbed schedule`:
# every pair its own link, alpha 0.5 us): at 100 Gbit/s, where the chain's computes make its
# length, and at 100 Mbit/s, where its collectives take a sixth of it
for rate in 100Gbit 100Mbit; do
	n=nb-$(echo $rate | tr A-Z a-z)
	f=$(scenario_as scenarios/chakra-mlp.yaml $n 's/^  kind: leafspine/  kind: best/' \
		"s/_rate: 100Gbit/_rate: $rate/")
	"$TB" schedule "$f" >"$TB_TMP/$n.sched" 2>&1 || fail "schedule: $(tail -3 "$TB_TMP/$n.sched")"
	"$TB" sim -q --results "$TB_TMP/nb" "$f" >"$TB_TMP/$n.out" 2>&1 || fail "sim $n: $(tail -3 "$TB_TMP/$n.out")"
	cp=$(sed -n 's/.*critical path \([0-9.e+-]*\) s with nothing shared.*/\1/p' "$TB_TMP/$n.sched")
	jrt=$(jq '.jobs[0].jrt_s' "$TB_TMP"/nb/$n/*/summary.json)
	comm=$(jq '.jobs[0].critical_path.comm_s' "$TB_TMP"/nb/$n/*/summary.json)
	awk -v a="$jrt" -v b="$cp" 'BEGIN { r = a / b; exit !(b > 0 && r > 0.97 && r < 1.03) }' ||
		fail "$rate: JRT $jrt s against the critical path's $cp s: not within 3%"
	note "MLP chain on a non-blocking switch at $rate: JRT $jrt s, critical path $cp s ($comm s of it communication)"
done
[ "$rate" = 100Mbit ] && awk -v c="$comm" -v a="$jrt" 'BEGIN { exit !(c / a > 0.1) }' ||
	fail "at 100 Mbit/s the collectives take $comm s of $jrt s: the check would not test them"

# export then import: the same runs
"$TB" schedule --chakra "$TB_TMP/et" scenarios/quickstart.yaml >"$TB_TMP/ex.out" 2>&1 || fail "schedule --chakra: $(tail -3 "$TB_TMP/ex.out")"
[ "$(ls "$TB_TMP"/et/quickstart-job*.et | wc -l)" = 24 ] || fail "export: $(ls "$TB_TMP/et")"
f=$(scenario_as scenarios/quickstart.yaml rt '/^  iterations:/d' \
	"s|^    - model: [a-z0-9]*.*|    - chakra: $TB_TMP/et/quickstart-jobN|" '/^      gpus:/d')
awk '/chakra: .*-jobN/ { sub("jobN", "job" n++) } { print }' "$f" >"$f.x" && mv "$f.x" "$f"
"$TB" sim -q --results "$TB_TMP/rt" scenarios/quickstart.yaml >/dev/null 2>&1 || fail "sim quickstart"
"$TB" sim -q --results "$TB_TMP/rt" "$f" >"$TB_TMP/rt.out" 2>&1 || fail "sim of the imported jobs: $(tail -3 "$TB_TMP/rt.out")"
a=$(jq -c '[.jobs[] | [.jwt_s, .jrt_s, .jct_s]]' "$TB_TMP"/rt/quickstart/*/summary.json)
b=$(jq -c '[.jobs[] | [.jwt_s, .jrt_s, .jct_s]]' "$TB_TMP"/rt/rt/*/summary.json)
[ -n "$a" ] && [ "$(jq 'length' <<<"$a")" = 4 ] || fail "quickstart: $a"
jq -e -n --argjson a "$a" --argjson b "$b" \
	'[range(4) as $i | range(3) as $k | ($a[$i][$k] - $b[$i][$k]) | fabs] | max < 1e-5' >/dev/null ||
	fail "export and import: $a against $b"

# emulated: the published workloads under both policies, then the MLP chain
settle
TB_NAMES+=(chakra-astra chakra-mlp)
"$TB" up --results "$TB_TMP/up" scenarios/chakra-astra.yaml >"$TB_TMP/up.out" 2>&1 ||
	fail "up chakra-astra: $(tail -8 "$TB_TMP/up.out")"
no_leftovers chakra-astra
for v in v0-s0 v1-s0; do
	d=$(ls -d "$TB_TMP"/up/chakra-astra/*-sweep/$v)
	[ "$(jq .totals.ok "$d/summary.json")" = 14 ] || fail "up $v: $(cat "$d/jobs.csv")"
	[ "$(jq -r .fidelity.verdict "$d/summary.json")" = ok ] || fail "up $v: fidelity $(jq -c .fidelity "$d/summary.json")"
	[ "$(tail -n +2 "$d/ops.csv" | wc -l)" = 120 ] || fail "up $v: ops.csv"
done
settle
"$TB" up --results "$TB_TMP/up" scenarios/chakra-mlp.yaml >"$TB_TMP/mlp.out" 2>&1 || fail "up chakra-mlp: $(tail -8 "$TB_TMP/mlp.out")"
no_leftovers chakra-mlp
d=$(ls -d "$TB_TMP"/up/chakra-mlp/*)
[ "$(jq .totals.ok "$d/summary.json")" = 1 ] || fail "up mlp: $(cat "$d/jobs.csv")"
[ "$(jq -r .fidelity.verdict "$d/summary.json")" = ok ] || fail "up mlp: fidelity $(jq -c .fidelity "$d/summary.json")"
[ "$(jq .jobs[0].critical_path.ops "$d/summary.json")" = 24 ] || fail "up mlp: $(jq -c .jobs[0].critical_path "$d/summary.json")"
grep -q "job 0's critical path (ops.csv's critical column): 24 operations" "$d/summary.txt" || fail "up mlp: no critical path in summary.txt"
"$TB_BUILD/tools/schema_check" docs/summary.schema.json "$d/summary.json" >/dev/null ||
	fail "up mlp: summary.json does not follow its schema"
# the records alone give the same summary
cp "$d/summary.json" "$TB_TMP/mlp-summary.json"
"$TB" report "$d" >/dev/null 2>&1 || fail "report on the MLP run"
cmp -s <(jq -S .jobs "$d/summary.json") <(jq -S .jobs "$TB_TMP/mlp-summary.json") || fail "report: another summary from ops.csv"
[ "$(awk -F, 'NR > 1 && $10 == 1' "$d/ops.csv" | wc -l)" -ge 24 ] || fail "up mlp: ops.csv's critical column"
note "MLP chain emulated: JRT $(jq .jobs[0].jrt_paper_s "$d/summary.json") paper s"

# verified: every operation of every rank in its own region, checked at the end
for sc in chakra-astra chakra-mlp; do
	n=v-${sc#chakra-}
	f=$(scenario_as scenarios/$sc.yaml $n 's/^workload:/workload:\n  verify: true/' \
		's/^  routing.policy: \[ecmp, greedy\]/  routing.policy: [greedy]/')
	TB_NAMES+=("$n")
	settle
	"$TB" up --results "$TB_TMP/verify" "$f" >"$TB_TMP/$n.log" 2>&1 || fail "up $n: $(tail -8 "$TB_TMP/$n.log")"
	no_leftovers "$n"
	for jobs in $(find "$TB_TMP/verify/$n" -name jobs.csv); do
		total=$(tail -n +2 "$jobs" | wc -l)
		[ "$(grep -c ',ok,1,' "$jobs")" = "$total" ] || fail "$n: not every job ok and verified: $(cat "$jobs")"
	done
done
# a wrong element in the MLP chain's last rank: found, the job failed, the run exit 1
rc=0
TESTBED_TEST_VERIFY_FAULT=0 "$TB" up --results "$TB_TMP/verify" "$f" >"$TB_TMP/fault.log" 2>&1 || rc=$?
[ $rc = 1 ] || fail "a wrong element: exit $rc, not 1: $(tail -5 "$TB_TMP/fault.log")"
grep -Eq 'job 0 .*failed: .*verify: rank 7, the operation of region [0-9]+ \(8 members' "$TB_TMP/fault.log" ||
	fail "the wrong element is not named: $(tail -5 "$TB_TMP/fault.log")"
no_leftovers v-mlp
