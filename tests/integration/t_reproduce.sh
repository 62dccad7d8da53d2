#!/bin/bash
# SPDX-License-Identifier: MIT
# `testbed reproduce`: the quick set in virtual time as a user without root (every paper's
# scenario runs, report.md lists each with its verdict, the paper's figures beside the
# measured ones, links that resolve inside the report's folder); the emulated quick set
# refused without root, naming --sim; an unknown paper refused with the known ones.
. "$(dirname "$0")/lib.sh"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user true 2>/dev/null || { echo "setpriv cannot drop to nobody here"; exit 77; }
chmod 0777 "$TB_TMP"
R=$TB_TMP/rep

as_user "$TB" reproduce --sim --quick --results "$R" >"$TB_TMP/out" 2>&1 || { cat "$TB_TMP/out"; fail "reproduce --sim --quick"; }
[ -s "$R/report.md" ] || fail "no report.md"
rows=$(grep -c '^| [a-z]* | `[^`]*` | virtual time | [0-9]* runs ok |' "$R/report.md")
((rows == 5)) || { cat "$R/report.md"; fail "report: $rows scenarios ran ok, want 5 (one per paper)"; }
for p in "Routing for Large ML Models" "vClos" "TACOS" "Themis" "HammingMesh"; do
	grep -q "^## .*$p" "$R/report.md" || fail "report: no section for $p"
done
# a figure the paper gives, beside the measured one and their ratio (vClos Fig. 6's all-to-all)
grep -Eq '^\| model=moe .* \| avg_jrt \| 2\.5 \| [0-9.]+ \| [0-9.]+ \|$' "$R/report.md" ||
	fail "report: no paper figure beside a measured one"
# every link in the report resolves inside its folder
grep -o '](\([^)]*\))' "$R/report.md" | sed 's/^](//; s/)$//' | sort -u | while read -r l; do
	[ -e "$R/$l" ] || fail "report links to $l, which is not there"
done
note "$(grep -c '^### ' "$R/report.md") scenarios reported; $(tail -1 "$TB_TMP/out")"

rc=0
out=$(as_user "$TB" reproduce --quick --results "$TB_TMP/r2" 2>&1) || rc=$?
((rc == 1)) && [[ $out == *"needs root"*"--sim"* ]] || fail "emulated reproduce as nobody: exit $rc: $out"
rc=0
out=$("$TB" reproduce --sim nosuchpaper 2>&1) || rc=$?
((rc == 2)) && [[ $out == *"unknown paper 'nosuchpaper' (known: greedy, vclos, tacos, themis, hammingmesh)"* ]] ||
	fail "unknown paper: exit $rc: $out"
