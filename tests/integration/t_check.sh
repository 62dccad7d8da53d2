#!/bin/bash
# SPDX-License-Identifier: MIT
# `testbed check` works without root: every scenario in scenarios/ and scenarios/paper/ passes
# (exit 0), every bad
# fixture (the parser's, and what only the built model, jobs or trace show) fails with exit 2
# and exactly its expected file:line:col message.
. "$(dirname "$0")/lib.sh"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user true 2>/dev/null || { echo "setpriv cannot drop to nobody here"; exit 77; }
for f in scenarios/*.yaml scenarios/paper/*.yaml scenarios/validate/*.yaml; do
	as_user "$TB" check "$f" >/dev/null || fail "check $f as nobody"
done
n=0
for f in tests/fixtures/bad/*.yaml tests/fixtures/bad-world/*.yaml; do
	rc=0
	out=$(as_user "$TB" check "$f" 2>&1 >/dev/null) || rc=$?
	((rc == 2)) || fail "$f: exit $rc, want 2 ($out)"
	want="testbed check: $(cat "${f%.yaml}.expect")"
	[ "$out" = "$want" ] || fail "$f:\n got: $out\nwant: $want"
	n=$((n + 1))
done
# --loads: one row per shaped direction of the all-to-all scenario, every flow counted once
# per hop (64 x 63 flows over 2-6 hops); any other workload is refused.
loads=$(as_user "$TB" check --loads scenarios/hxmesh-a2a.yaml) || fail "check --loads hxmesh-a2a"
[ "$(echo "$loads" | head -1)" = "link,dir,from,to,flows,blocks" ] || fail "--loads header: $(echo "$loads" | head -1)"
rows=$(echo "$loads" | tail -n +2 | wc -l)
hops=$(echo "$loads" | awk -F, 'NR > 1 { s += $5 } END { print s }')
((rows == 384)) || fail "--loads: $rows directions, want 384"
((hops >= 2 * 4032 && hops <= 6 * 4032)) || fail "--loads: $hops flow-hops for 4,032 flows"
# one connection per pair: each flow carries one block
echo "$loads" | awk -F, 'NR > 1 && $5 != $6 { bad = 1 } END { exit bad }' || fail "--loads: blocks differ from flows with one channel"
rc=0
out=$(as_user "$TB" check --loads scenarios/quickstart.yaml 2>&1 >/dev/null) || rc=$?
((rc == 2)) || fail "--loads on quickstart: exit $rc, want 2"
[[ $out == *"needs a workload of one all-to-all job"* ]] || fail "--loads on quickstart: $out"
note "$(ls scenarios/*.yaml scenarios/paper/*.yaml scenarios/validate/*.yaml | wc -l) scenarios valid, $n bad fixtures rejected with their messages," \
	"--loads: $rows directions, $hops flow-hops"
