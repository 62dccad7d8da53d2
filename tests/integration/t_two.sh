#!/bin/bash
# SPDX-License-Identifier: MIT
# Two testbeds of the same scenario side by side under different names: both work, a third
# `up` under a taken name is refused with a message saying how to remove the old one, and
# taking one down leaves the other intact.
#
#   tb-<A>-*  leafspine-small (16 hosts)      tb-<B>-*  leafspine-small (16 hosts)
. "$(dirname "$0")/lib.sh"
a=it$$a
b=it$$b
f=$(scenario_as scenarios/leafspine-small.yaml "$a")
tb_up "$f" "$a"
tb_up "$f" "$b"
hosts=$(seq -f 'h%g' 0 15)
for n in "$a" "$b"; do
	serve_on "$n" h5 h12
	nx "$n" h0 "$TBPERF" probe "$(ep_addr "$n" h5)" "$(ep_addr "$n" h12)" >/dev/null ||
		fail "$n: probes failed"
done
rc=0
out=$("$TB" up --name "$a" "$f" 2>&1) || rc=$?
((rc == 1)) || fail "second up of $a: exit $rc, want 1"
echo "$out" | grep -q "testbed down $a" || fail "refusal does not say how to remove: $out"
note "refused: $out"
"$TB" down "$a" >/dev/null
no_leftovers "$a"
[ "$(ip netns list | grep -c "^tb-$b-")" -eq 22 ] || fail "$b lost namespaces when $a went down"
nx "$b" h0 "$TBPERF" probe "$(ep_addr "$b" h5)" "$(ep_addr "$b" h12)" >/dev/null ||
	fail "$b stopped working when $a went down"
"$TB" down "$b" >/dev/null
no_leftovers "$b"
