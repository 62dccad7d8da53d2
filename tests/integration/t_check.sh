#!/bin/bash
# SPDX-License-Identifier: MIT
# `testbed check` works without root: every scenario in scenarios/ passes (exit 0), every bad
# fixture fails with exit 2 and exactly its expected file:line:col message.
. "$(dirname "$0")/lib.sh"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user true 2>/dev/null || { echo "setpriv cannot drop to nobody here"; exit 77; }
for f in scenarios/*.yaml; do
	as_user "$TB" check "$f" >/dev/null || fail "check $f as nobody"
done
n=0
for f in tests/fixtures/bad/*.yaml; do
	rc=0
	out=$(as_user "$TB" check "$f" 2>&1 >/dev/null) || rc=$?
	((rc == 2)) || fail "$f: exit $rc, want 2 ($out)"
	want="testbed check: $(cat "${f%.yaml}.expect")"
	[ "$out" = "$want" ] || fail "$f:\n got: $out\nwant: $want"
	n=$((n + 1))
done
note "$(ls scenarios/*.yaml | wc -l) scenarios valid, $n bad fixtures rejected with their messages"
