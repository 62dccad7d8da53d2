#!/bin/bash
# SPDX-License-Identifier: MIT
# All-pairs TCP reachability on leafspine-small, then a clean teardown.
#
#        s0        s1
#     /  |  \ \ /  | \  \
#   l0   l1   l2   l3          (every leaf to every spine)
#  h0-3 h4-7 h8-11 h12-15
. "$(dirname "$0")/lib.sh"
n=it$$r
f=$(scenario_as scenarios/leafspine-small.yaml "$n")
tb_up "$f" "$n"
hosts=$(seq -f 'h%g' 0 15)
serve_on "$n" $hosts
addrs=$(for h in $hosts; do ep_addr "$n" "$h"; done)
[ "$(echo "$addrs" | sort -u | wc -l)" -eq 16 ] || fail "expected 16 distinct host addresses"
for h in $hosts; do
	out=$(nx "$n" "$h" "$TBPERF" probe $addrs) || fail "$h: $out"
done
note "16 x 16 TCP probes answered"
"$TB" down "$n" >/dev/null
no_leftovers "$n"
! ip link show type veth 2>/dev/null | grep -q . || note "(root namespace has veths, none ours)"
