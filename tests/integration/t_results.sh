#!/bin/bash
# SPDX-License-Identifier: MIT
# The quickstart run leaves a complete results folder (issue 4): records, topology.json, a
# summary.json that validates against docs/summary.schema.json, summary.txt, and plots
# (PNG and SVG) that gnuplot made; its fidelity verdict is ok. `testbed report` on a copy
# of the folder, run as an unprivileged user, rewrites byte-identical summary.txt and
# summary.json and renders the plots again.
#
#        s0          s1                 spines (100 Gbit/s paper, 500 Mbit/s emulated)
#     /  |  \  \   /  |  \  \
#    l0   l1   l2   l3                  leaves
#   h0-h3 h4-h7 h8-h11 h12-h15          GPUs, two per server
. "$(dirname "$0")/lib.sh"
n=it$$r
f=$(scenario_as scenarios/quickstart.yaml "$n")
TB_NAMES+=("$n")
"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/up.out" 2>"$TB_TMP/up.err" || { tail -30 "$TB_TMP/up.err"; fail "up"; }
no_leftovers "$n"
dir=$(ls -d "$TB_TMP"/results/"$n"/*)
note "results in $dir"

for x in scenario.yaml topology.json jobs.csv iterations.csv flows.csv links.csv cpu.csv \
	summary.json summary.txt; do
	[ -s "$dir/$x" ] || fail "$x is missing or empty"
done
# the summary printed at the end is summary.txt
grep -qF "$(head -1 "$dir/summary.txt")" "$TB_TMP/up.out" || fail "summary.txt was not printed"
grep -q "^4 jobs: 4 ok" "$dir/summary.txt" || fail "not every job ok: $(cat "$dir/summary.txt")"
# every link direction was sampled from the start to the end of the run
dirs=$(jq '.links | length' "$dir/summary.json")
[ "$dirs" -eq 64 ] || fail "$dirs link directions in summary.json, want 64"
[ "$(jq '[.links[] | select(.samples < 10)] | length' "$dir/summary.json")" -eq 0 ] ||
	fail "a direction with fewer than 10 samples"
[ "$(jq '.fidelity.cpu.samples' "$dir/summary.json")" -ge 10 ] || fail "fewer than 10 CPU samples"

# the verdict: ok, in the file and on the terminal. (Other load on this machine can make it
# degraded, and the reasons say so. Sanitizers slow the emu-nodes down two to three times,
# so under them a CPU reason is the verdict working, and accepted.)
verdict=$(jq -r '.fidelity.verdict' "$dir/summary.json")
others=$(jq -r '[.fidelity.reasons[].kind | select(startswith("cpu_") | not)] | length' \
	"$dir/summary.json")
if [ "$verdict" != ok ] && grep -q __asan_init "$TB" && [ "$others" -eq 0 ]; then
	note "degraded under sanitizers: $(jq -r '.fidelity.reasons[].text' "$dir/summary.json")"
else
	[ "$verdict" = ok ] || fail "quickstart is $verdict: $(jq -c '.fidelity.reasons' "$dir/summary.json")"
	grep -q "fidelity ok" "$TB_TMP/up.err" || fail "the terminal does not say the verdict"
fi

"$TB_BUILD/tools/schema_check" docs/summary.schema.json "$dir/summary.json" ||
	fail "summary.json does not validate"

png_ok() { # png_ok FILE: a PNG of more than 10 kB
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$1 is not a PNG"
	[ "$(stat -c %s "$1")" -gt 10000 ] || fail "$1 is too small to hold a plot"
}
for p in util_heatmap util_tier fct_cdf jct; do
	png_ok "$dir/plots/$p.png"
	grep -q '<svg' "$dir/plots/$p.svg" || fail "$p.svg is not an SVG"
done

# testbed report on a copy, as nobody: the same tables, byte for byte
chmod 755 "$TB_TMP" # nobody must reach the copy
cp -r "$dir" "$TB_TMP/copy"
rm -rf "$TB_TMP/copy/plots"
chown -R 65534:65534 "$TB_TMP/copy"
setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" report "$TB_TMP/copy" \
	>"$TB_TMP/report.out" 2>"$TB_TMP/report.err" || { cat "$TB_TMP/report.err"; fail "report"; }
cmp "$dir/summary.txt" "$TB_TMP/copy/summary.txt" || fail "report changed summary.txt"
cmp "$dir/summary.json" "$TB_TMP/copy/summary.json" || fail "report changed summary.json"
cmp "$dir/summary.txt" "$TB_TMP/report.out" || fail "report did not print summary.txt"
for p in util_heatmap util_tier fct_cdf jct; do png_ok "$TB_TMP/copy/plots/$p.png"; done
note "report on a copy: identical summary.txt and summary.json, $(ls "$TB_TMP/copy/plots" | grep -c png) plots"

# cpu.csv counts the packets the CPUs' input backlogs dropped per interval and the testbed's
# own share of the CPUs, every interval known, and the summary's fidelity.cpu.backlog_drops
# is their sum; the testbed's share is part of busy (over the run: an interval's busy counts
# whole ticks of 10 ms, the testbed's own time nanoseconds)
[ "$(head -1 "$dir/cpu.csv")" = "t_ns,busy,softirq,backlog_drops,self" ] || fail "cpu.csv: $(head -1 "$dir/cpu.csv")"
awk -F, 'NR > 1 && ($4 !~ /^[0-9]+$/ || !($5 >= 0 && $5 <= 1)) { bad++ } END { exit bad > 0 }' "$dir/cpu.csv" ||
	fail "cpu.csv: an interval without its backlog drops or the testbed's share"
jq -e '.fidelity.cpu.self_mean > 0 and .fidelity.cpu.self_mean <= .fidelity.cpu.busy_mean' "$dir/summary.json" >/dev/null ||
	fail "the testbed's share $(jq -c '.fidelity.cpu' "$dir/summary.json")"
sum=$(awk -F, 'NR > 1 { s += $4 } END { print s + 0 }' "$dir/cpu.csv")
[ "$(jq '.fidelity.cpu.backlog_drops' "$dir/summary.json")" = "$sum" ] ||
	fail "summary backlog_drops $(jq '.fidelity.cpu.backlog_drops' "$dir/summary.json"), cpu.csv $sum"
note "the CPUs' input backlogs dropped $sum packets during the run; the testbed took" \
	"$(jq '.fidelity.cpu.self_mean' "$dir/summary.json") of the CPUs (mean), busy $(jq '.fidelity.cpu.busy_mean' "$dir/summary.json")"
# a folder written before the column: report reads it, the drops unknown (null)
cut -d, -f1-3 "$dir/cpu.csv" >"$TB_TMP/copy/cpu.csv"
setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" report "$TB_TMP/copy" >/dev/null 2>"$TB_TMP/report-old.err" || { cat "$TB_TMP/report-old.err"; fail "report of a 3-column cpu.csv"; }
[ "$(jq '[.fidelity.cpu.backlog_drops, .fidelity.cpu.self_mean] | map(. == null) | all' "$TB_TMP/copy/summary.json")" = true ] ||
	fail "a 3-column cpu.csv: backlog_drops $(jq '.fidelity.cpu.backlog_drops' "$TB_TMP/copy/summary.json")"
