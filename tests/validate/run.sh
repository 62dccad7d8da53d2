#!/bin/bash
# SPDX-License-Identifier: MIT
# make validate: each small scenario (the quickstart, and one or more per reproduced paper)
# emulated with `testbed up` and run in virtual time with `testbed sim`, then mean JCT, mean
# collective time and mean FCT side by side with sim's relative error (sim / emulation - 1)
# and emulation's fidelity verdict. A figure outside the bounds (10% for JCT and collective
# time, 15% for FCT) is marked `!`; docs/reproducing.md explains the ones that are.
# Writes the table to stdout and, as markdown, to $OUT/validate.md.
# Usage: run.sh BUILD_DIR [SCENARIO.yaml...]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
shift || true
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "validate: needs root (emulation)"; exit 1; }
TB=$BUILD/testbed
OUT=${VALIDATE_OUT:-$(mktemp -d /tmp/tbvalidate.XXXXXX)}
mkdir -p "$OUT"
NAME=val$$
trap '"$TB" -q down "$NAME" >/dev/null 2>&1 || true' EXIT

# scenario and the paper it stands for
default=(
	"scenarios/quickstart.yaml|quickstart"
	"scenarios/ecmp-jobs.yaml|greedy routing"
	"scenarios/poisson.yaml|vClos"
	"scenarios/validate/torus-ring.yaml|TACOS"
	"scenarios/validate/md-hier.yaml|Themis"
	"scenarios/validate/hx-a2a-16.yaml|HammingMesh"
)
list=("${default[@]}")
if [ $# -gt 0 ]; then
	list=()
	for f in "$@"; do list+=("$f|-"); done
fi

# the figures of one results folder: JCT, mean collective time, mean FCT (paper seconds), verdict
figures() {
	jq -r '[.totals.avg_jct_paper_s,
		([.jobs[] | select(.status == "ok") | .coll_paper_s] | add / length),
		.flows.fct_mean_paper_s, .fidelity.verdict] | @tsv' "$1"
}

rows=$OUT/rows.tsv
: >"$rows"
for entry in "${list[@]}"; do
	f=${entry%%|*} paper=${entry#*|}
	s=$(basename "$f" .yaml)
	echo "validate: $s: emulation" >&2
	if ! "$TB" up --name "$NAME" --results "$OUT/emu" "$f" >"$OUT/$s.emu.log" 2>&1; then
		tail -5 "$OUT/$s.emu.log" >&2
		printf '%s\t%s\tfailed\n' "$s" "$paper" >>"$rows"
		continue
	fi
	echo "validate: $s: virtual time" >&2
	if ! "$TB" sim --results "$OUT/sim" "$f" >"$OUT/$s.sim.log" 2>&1; then
		tail -5 "$OUT/$s.sim.log" >&2
		printf '%s\t%s\tfailed\n' "$s" "$paper" >>"$rows"
		continue
	fi
	e=$(grep -l "\"scenario\": \"$(awk '$1 == "name:" { print $2; exit }' "$f")\"" \
		"$OUT"/emu/*/*/summary.json | tail -1)
	m=$(grep -l "\"scenario\": \"$(awk '$1 == "name:" { print $2; exit }' "$f")\"" \
		"$OUT"/sim/*/*/summary.json | tail -1)
	printf '%s\t%s\t%s\t%s\n' "$s" "$paper" "$(figures "$e")" "$(figures "$m")" >>"$rows"
done

awk -F'\t' -v md="$OUT/validate.md" '
function err(s, e) { return e > 0 ? s / e - 1 : 0 }
function cell(e, s, bound,   x) {
	x = err(s, e)
	return sprintf("%.4g / %.4g (%+.1f%%%s)", e, s, 100 * x, (x > bound || x < -bound) ? " !" : "")
}
BEGIN {
	printf "%-12s %-15s %-32s %-32s %-32s %s\n", "scenario", "paper", "mean JCT s: emu / sim (err)",
		"mean collective s", "mean FCT s", "fidelity"
	print "| scenario | paper | mean JCT (s): emulation / sim (error) | mean collective (s) | mean FCT (s) | fidelity |" >md
	print "| --- | --- | --- | --- | --- | --- |" >md
}
$3 == "failed" {
	printf "%-12s %-15s failed (see its log)\n", $1, $2
	printf "| %s | %s | failed | | | |\n", $1, $2 >md
	bad = 1
	next
}
{
	j = cell($3, $7, 0.10); c = cell($4, $8, 0.10); f = cell($5, $9, 0.15)
	printf "%-12s %-15s %-32s %-32s %-32s %s\n", $1, $2, j, c, f, $6
	printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, j, c, f, $6 >md
	if (index(j c f, "!") || $6 != "ok") off++
}
END {
	if (off) printf "%d scenario(s) outside the bounds or not ok by the fidelity verdict (marked)\n", off
	print "(paper seconds; error = sim / emulation - 1; bounds 10% for JCT and collective time, 15% for FCT)"
	exit bad
}' "$rows"
echo "validate: folders and logs in $OUT" >&2
