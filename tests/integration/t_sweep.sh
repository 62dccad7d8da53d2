#!/bin/bash
# SPDX-License-Identifier: MIT
# A sweep (issue 4, acc. 5): scenarios/sweep-ecmp-best.yaml runs the leaf-spine and the
# one-switch best topology with three ECMP seeds each, every run on a freshly built testbed,
# and writes the runs' folders, sweep.json, the comparison (best as a ratio to the
# leaf-spine baseline, paired by seed, with min and max) and the plots comparing the
# variants; every summary validates; `testbed report` on a copy of the sweep folder writes
# the same comparison again.
#
#     s0  s1  s2  s3                   sw
#    (every leaf to every spine)  vs.  |  one non-blocking switch
#   l0   l1   l2   l3                  |
#   4 GPUs each (h0..h15)           h0 .. h15        2 x 8-GPU ring all-reduce
. "$(dirname "$0")/lib.sh"
n=it$$w
f=$(scenario_as scenarios/sweep-ecmp-best.yaml "$n")
TB_NAMES+=("$n")
"$TB" check "$f" | grep -q '^sweep      2 variants x 3 seeds = 6 runs' || fail "check: $("$TB" check "$f")"
"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/up.out" 2>"$TB_TMP/up.err" || { tail -30 "$TB_TMP/up.err"; fail "up"; }
no_leftovers "$n"
sw=$(ls -d "$TB_TMP"/results/"$n"/*-sweep)
note "sweep in $sw"

[ "$(jq '[.runs[] | select(.status == "ok")] | length' "$sw/sweep.json")" -eq 6 ] ||
	fail "not every run ok: $(jq -c '.runs' "$sw/sweep.json")"
[ "$(jq -r '.variants | join(",")' "$sw/sweep.json")" = "kind=leafspine,kind=best" ] ||
	fail "variants: $(jq -c '.variants' "$sw/sweep.json")"
for v in 0 1; do
	for s in 0 1 2; do
		d=$sw/v$v-s$s
		"$TB_BUILD/tools/schema_check" docs/summary.schema.json "$d/summary.json" >/dev/null ||
			fail "v$v-s$s: summary.json does not validate"
		head -1 "$d/scenario.yaml" | grep -q "^# sweep run v$v-s$s: " || fail "v$v-s$s: scenario.yaml"
		[ -s "$d/plots/util_heatmap.png" ] || fail "v$v-s$s has no heatmap"
	done
done
# the runs really differ: best has one switch, the leaf-spine 8 (and seeds set per run)
[ "$(jq '[.links[]] | length' "$sw/v1-s0/topology.json")" -eq 16 ] || fail "v1 is not best"
[ "$(jq '[.links[]] | length' "$sw/v0-s0/topology.json")" -eq 32 ] || fail "v0 is not a leaf-spine"

grep -q '^avg_jct ' "$sw/comparison.txt" || fail "no comparison table: $(cat "$sw/comparison.txt")"
grep -qF "$(grep '^avg_jct ' "$sw/comparison.txt")" "$TB_TMP/up.out" || fail "table not printed"
base=$(jq '.variants[0].metrics.avg_jct.ratio' "$sw/comparison.json")
best=$(jq '.variants[1].metrics.avg_jct.ratio' "$sw/comparison.json")
runs=$(jq '.variants[1].metrics.avg_jct.runs' "$sw/comparison.json")
note "avg JCT of best / leaf-spine: $best over $runs seeds (min $(jq '.variants[1].metrics.avg_jct.min' \
	"$sw/comparison.json"), max $(jq '.variants[1].metrics.avg_jct.max' "$sw/comparison.json"))"
[ "$base" = 1 ] && [ "$runs" -eq 3 ] || fail "baseline ratio $base, $runs runs"
awk -v r="$best" 'BEGIN { exit !(r > 0 && r < 1.1) }' || fail "best is slower than ECMP: $best"

for p in fct_cdf jct; do
	[ "$(head -c 4 "$sw/plots/$p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$p.png"
	[ "$(stat -c %s "$sw/plots/$p.png")" -gt 10000 ] || fail "$p.png is too small for a plot"
	grep -q "title 'kind=best'" "$sw/plots/$p.gp" || fail "$p has no legend entry per variant"
done

cp -r "$sw" "$TB_TMP/copy"
"$TB" report "$TB_TMP/copy" >"$TB_TMP/report.out" 2>&1 || { cat "$TB_TMP/report.out"; fail "report"; }
cmp "$sw/comparison.txt" "$TB_TMP/copy/comparison.txt" || fail "report changed comparison.txt"
cmp "$sw/v0-s1/summary.txt" "$TB_TMP/copy/v0-s1/summary.txt" || fail "report changed a run"
