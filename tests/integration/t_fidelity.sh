#!/bin/bash
# SPDX-License-Identifier: MIT
# A run that over-drives the machine is flagged degraded, with the reason, in summary.json,
# summary.txt and loudly on the terminal (issue 4, acc. 3), and under --strict fails the
# command with exit 3 (issue 34): scenarios/overdrive.yaml asks
# 16 endpoints at 10 Gbit/s, scale 1, for an all-to-all, far beyond what two cores forward.
# (That the quickstart is ok is t_results.sh's.)
#
#              sw                 one switch, every link 10 Gbit/s
#      /  /  /    \  \  \
#    h0  h1 ...  h14  h15         all-to-all, 64 MB per rank, 6 iterations
. "$(dirname "$0")/lib.sh"
n=it$$f
f=$(scenario_as scenarios/overdrive.yaml "$n")
TB_NAMES+=("$n")
rc=0 # --strict: a degraded run is exit 3 (issue 34), every job having ended well
"$TB" up --strict --results "$TB_TMP/results" "$f" >"$TB_TMP/up.out" 2>"$TB_TMP/up.err" || rc=$?
[ "$rc" = 3 ] || { tail -30 "$TB_TMP/up.err"; fail "up --strict exited $rc, not 3"; }
tail -1 "$TB_TMP/up.err" | grep -q -- '--strict: 1 of 1 runs degraded by the machine (exit 3)' ||
	fail "the last line does not say why: $(tail -2 "$TB_TMP/up.err")"
no_leftovers "$n"
dir=$(ls -d "$TB_TMP"/results/"$n"/*)

[ "$(jq -r '.fidelity.verdict' "$dir/summary.json")" = degraded ] ||
	fail "overdrive is not degraded: $(jq -c '.fidelity' "$dir/summary.json")"
kinds=$(jq -r '[.fidelity.reasons[].kind] | join(",")' "$dir/summary.json")
note "reasons: $kinds"
echo "$kinds" | grep -Eq 'cpu_busy|cpu_softirq|backlog_slow' ||
	fail "no reason says the machine was the bottleneck: $kinds"
grep -q '^fidelity: DEGRADED' "$dir/summary.txt" || fail "summary.txt does not say DEGRADED"
grep -q '^  - ' "$dir/summary.txt" || fail "summary.txt lists no reason"
grep -q 'DEGRADED (.*): the machine, not the emulated network' "$TB_TMP/up.err" ||
	fail "the terminal does not say it: $(tail -5 "$TB_TMP/up.err")"
"$TB_BUILD/tools/schema_check" docs/summary.schema.json "$dir/summary.json" >/dev/null ||
	fail "summary.json does not validate"
