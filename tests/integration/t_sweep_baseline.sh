#!/bin/bash
# SPDX-License-Identifier: MIT
# sweep.baseline naming a case, in virtual time only (no namespace, no testbed built):
# scenarios/sweep-baseline.yaml compares ECMP on two placements with the one-switch best
# (listed last, named `kind=best`) at two loads, over two draws of the jobs. Each run's ratio
# is to Best's run at the same load and draw, recomputed here from the runs' summary.json;
# comparison.txt (and the output) has one block per load, comparison.json the groups and
# each variant's group; with Best's runs at one load marked failed, `testbed report` says so
# in that block and gives it no ratios while the other load keeps its own; a copied folder
# reports the same comparison; a name matching two cases, or none, is refused at its place.
#
#   s0  s1             (2:1 oversubscribed)          sw
#   l0  l1  l2  l3     x {ecmp, ecmp random}    vs.  |  one switch (Best)
#   4 GPUs each                                    16 GPUs
#   12 Poisson jobs of 2-8 GPUs, mean gap 150 ms / 400 ms, job draws 7 / 8
. "$(dirname "$0")/lib.sh"
f=scenarios/sweep-baseline.yaml
"$TB" check "$f" | grep -q '^sweep      6 variants x 2 seeds = 12 runs' || fail "check: $("$TB" check "$f")"
"$TB" sim --results "$TB_TMP/r" "$f" >"$TB_TMP/sim.out" 2>"$TB_TMP/sim.err" ||
	{ tail -20 "$TB_TMP/sim.err"; fail "sim $f"; }
sw=$(ls -d "$TB_TMP"/r/sweep-base/*-sweep)
cmp=$sw/comparison.json
note "sweep in $sw"

[ "$(jq '[.runs[] | select(.status == "ok")] | length' "$sw/sweep.json")" -eq 12 ] ||
	fail "not every run ok: $(jq -c '.runs' "$sw/sweep.json")"
[ "$(jq -c .baseline "$sw/sweep.json")" = '{"path":"cases","label":"kind=best","value":2}' ] ||
	fail "sweep.json baseline: $(jq -c .baseline "$sw/sweep.json")"
# variant = case x 2 + load: each run against Best (case 2) at its own load
[ "$(jq -c '[.runs[] | .baseline]' "$sw/sweep.json")" = '[4,4,5,5,4,4,5,5,4,4,5,5]' ] ||
	fail "runs' baselines: $(jq -c '[.runs[] | .baseline]' "$sw/sweep.json")"

# comparison.json: the groups, per load, and each variant's place in them
want='[{"name":"mean_interarrival=150ms","baseline":4,"baseline_runs":2,"variants":[0,2,4]},{"name":"mean_interarrival=400ms","baseline":5,"baseline_runs":2,"variants":[1,3,5]}]'
[ "$(jq -c .groups "$cmp")" = "$want" ] || fail "groups: $(jq -c .groups "$cmp")"
[ "$(jq -r .baseline "$cmp")" = kind=best ] || fail "baseline: $(jq .baseline "$cmp")"
[ "$(jq -r '[.variants[] | "\(.variant):\(.baseline):\(.group):\(.axis_value)"] | join(",")' "$cmp")" = \
	"0:4:mean_interarrival=150ms:policy=ecmp,1:5:mean_interarrival=400ms:policy=ecmp,2:4:mean_interarrival=150ms:policy=ecmp placement=random,3:5:mean_interarrival=400ms:policy=ecmp placement=random,4:4:mean_interarrival=150ms:kind=best,5:5:mean_interarrival=400ms:kind=best" ] ||
	fail "variants: $(jq -c '[.variants[] | [.variant, .baseline, .group, .axis_value]]' "$cmp")"

# each ratio, from the runs' own summaries: run (v, s) over Best's run (baseline, s), meaned
jct() { jq .totals.avg_jct_paper_s "$sw/v$1-s$2/summary.json"; }
for v in 0 1 2 3 4 5; do
	b=$(jq ".variants[$v].baseline" "$cmp")
	r0=$(jq -n "$(jct $v 0) / $(jct "$b" 0)")
	r1=$(jq -n "$(jct $v 1) / $(jct "$b" 1)")
	got=$(jq ".variants[$v].metrics.avg_jct | [.ratio, .min, .max, .runs]" "$cmp")
	jq -en --argjson g "$got" --argjson a "$r0" --argjson c "$r1" \
		'def near(x; y): ((x - y) | fabs) < 1e-9 * y;
		 near($g[0]; ($a + $c) / 2) and near($g[1]; [$a, $c] | min) and
		 near($g[2]; [$a, $c] | max) and $g[3] == 2' >/dev/null ||
		fail "v$v: avg_jct ratio $got, from the summaries $r0 and $r1 against v$b"
done
# the draws differ, so pairing them matters: Best's two runs at a load are not alike
[ "$(jct 4 0)" != "$(jct 4 1)" ] || fail "the two job draws gave Best the same Avg.JCT"
# the loads differ, so pairing by load matters too
[ "$(jct 4 0)" != "$(jct 5 0)" ] || fail "the two loads gave Best the same Avg.JCT"

# comparison.txt and the output: a block per load, Best's row at ratio 1 in each
txt=$sw/comparison.txt
grep -q "^ratios to each variant's baseline (the same values with kind=best), mean over seeds and range$" "$txt" ||
	fail "no header: $(head -12 "$txt")"
[ "$(grep -c ': ratios to v[0-9]' "$txt")" -eq 2 ] || fail "blocks: $(grep ': ratios' "$txt")"
l150=$(grep -n '^mean_interarrival=150ms: ratios to v4 (kind=best)$' "$txt" | cut -d: -f1)
l400=$(grep -n '^mean_interarrival=400ms: ratios to v5 (kind=best)$' "$txt" | cut -d: -f1)
[ -n "$l150" ] && [ -n "$l400" ] && [ "$l150" -lt "$l400" ] || fail "block heads: $(cat "$txt")"
[ "$(awk '$1 == "kind=best" && $3 == 1 && $4 == 1 && $5 == 1 { n++ } END { print n + 0 }' "$txt")" -ge 14 ] ||
	fail "Best's rows are not at ratio 1: $(grep kind=best "$txt")"
ecmp150=$(jq -r '.variants[0].metrics.avg_jct.ratio' "$cmp")
awk -v a="$l150" -v b="$l400" -v r="$ecmp150" 'NR > a && NR < b && $1 == "avg_jct" {
	found = ($4 == "policy=ecmp" && ($6 - r) ^ 2 < 1e-6) } END { exit !found }' "$txt" ||
	fail "the 150 ms block's avg_jct row is not ECMP's ratio $ecmp150: $(sed -n "${l150},${l400}p" "$txt")"
grep -qF "$(sed -n "${l400}p" "$txt")" "$TB_TMP/sim.out" || fail "blocks not printed"
note "avg_jct over Best: $(jq -r '[.variants[] | "\(.axis_value) @ \(.group): \(.metrics.avg_jct.ratio)"] | join("; ")' "$cmp")"

# a copy reports the same comparison (the blocks' names come from sweep.json)
cp -r "$sw" "$TB_TMP/copy"
"$TB" report "$TB_TMP/copy" >"$TB_TMP/report.out" 2>&1 || { cat "$TB_TMP/report.out"; fail "report"; }
cmp "$txt" "$TB_TMP/copy/comparison.txt" || fail "report changed comparison.txt"
cmp "$cmp" "$TB_TMP/copy/comparison.json" || fail "report changed comparison.json"

# Best's runs at 400 ms lost: that block says so and has no ratios; 150 ms keeps its own
jq '(.runs[] | select(.variant == 5)) |= (.status = "failed" | .error = "left out by the test")' \
	"$TB_TMP/copy/sweep.json" >"$TB_TMP/sweep.json" && mv "$TB_TMP/sweep.json" "$TB_TMP/copy/sweep.json"
"$TB" report "$TB_TMP/copy" >"$TB_TMP/report2.out" 2>&1 || { cat "$TB_TMP/report2.out"; fail "report without v5"; }
c2=$TB_TMP/copy/comparison.json
grep -q '^mean_interarrival=400ms: no ratios, v5 (kind=best) has no run$' "$TB_TMP/copy/comparison.txt" ||
	fail "no word of the missing baseline: $(cat "$TB_TMP/copy/comparison.txt")"
grep -q '^mean_interarrival=150ms: ratios to v4 (kind=best)$' "$TB_TMP/copy/comparison.txt" ||
	fail "the 150 ms block lost its baseline"
[ "$(jq '.groups[1].baseline_runs' "$c2")" -eq 0 ] && [ "$(jq '.groups[0].baseline_runs' "$c2")" -eq 2 ] ||
	fail "baseline_runs: $(jq -c .groups "$c2")"
for v in 1 3; do
	[ "$(jq ".variants[$v].metrics.avg_jct | [.ratio, .runs, .value_runs] | tostring" "$c2")" = '"[null,0,2]"' ] ||
		fail "v$v without its baseline: $(jq -c ".variants[$v].metrics.avg_jct" "$c2")"
done
[ "$(jq '.variants | length' "$c2")" -eq 6 ] || fail "v5 is not listed"
for v in 0 2 4; do
	[ "$(jq -c ".variants[$v].metrics" "$c2")" = "$(jq -c ".variants[$v].metrics" "$cmp")" ] ||
		fail "v$v changed when the other load lost its baseline"
done

# refusals at the value: two cases have these words (once the first says its placement), no
# case is labelled so; a whole label wins over a longer one with its words
bad() { # bad NAME WANT [sed-expr]
	sed -e "s/^  baseline: kind=best/  baseline: $1/" -e "${3:-s/^//}" "$f" >"$TB_TMP/bad.yaml"
	out=$("$TB" check "$TB_TMP/bad.yaml" 2>&1) && fail "check accepted baseline: $1"
	line=$(grep -n '^  baseline:' "$TB_TMP/bad.yaml" | cut -d: -f1)
	case $out in
	*"$TB_TMP/bad.yaml:$line:13: sweep.baseline: $2"*) ;;
	*) fail "baseline $1: $out" ;;
	esac
}
bad policy=ecmp "'policy=ecmp' names 2 cases or axis values (policy=ecmp placement=first-fit; policy=ecmp placement=random): give more of one's label" \
	's/^    - {routing.policy: ecmp}$/    - {routing.policy: ecmp, scheduler.placement: first-fit}/'
bad kind=leafspine "no case or axis value is labelled 'kind=leafspine' (the compared ones: policy=ecmp; policy=ecmp placement=random; kind=best; mean_interarrival=150ms; mean_interarrival=400ms)"
sed "s/^  baseline: kind=best/  baseline: policy=ecmp/" "$f" >"$TB_TMP/ecmp.yaml"
"$TB" check "$TB_TMP/ecmp.yaml" >/dev/null || fail "baseline policy=ecmp (a whole label) refused"
