#!/bin/bash
# SPDX-License-Identifier: MIT
# Themis-style multidim platform (issue 5, acceptance 5): the 4x2x2 of three switch
# dimensions at equal rates (scenarios/multidim-4x2x2.yaml) comes up with three shaped
# interfaces per node, one per dimension; a flow between two nodes of one dimension-0 group
# moves only dimension-0 counters; every node reaches every other. Then ring and fully
# connected dimensions (4 ring x 3 fc) are reachable too.
#
#   dim 0 (size 4): d0s0 joins n0 n1 n2 n3, d0s1 joins n4..n7, ...
#   dim 1 (size 2): d1s0 joins n0 n4, d1s1 joins n1 n5, ...
#   dim 2 (size 2): d2s0 joins n0 n8, d2s1 joins n1 n9, ...
#   each node: three interfaces (named after their switch), each shaped at 400 Mbit/s
. "$(dirname "$0")/lib.sh"
n=it$$m
f=$(scenario_as scenarios/multidim-4x2x2.yaml "$n")
tb_up "$f" "$n"
nodes=$(seq -f 'n%g' 0 15)
for node in $nodes; do
	ifs=$(nx "$n" "$node" ls /sys/class/net | grep -v '^lo$' | sort | tr '\n' ' ')
	[ "$(echo "$ifs" | wc -w)" -eq 3 ] || fail "$node has interfaces '$ifs', not 3"
	for i in $ifs; do
		nx "$n" "$node" tc class show dev "$i" | grep -q "rate 400Mbit" ||
			fail "$node:$i is not shaped at 400 Mbit/s"
	done
done
note "16 nodes x 3 interfaces, each shaped at 400 Mbit/s"

# n0 -> n1 differ in coordinate 0 only: n0:d0s0 -> d0s0 -> n1:d0s0
rx() { ifstat "$n" "$1" "$2" rx_bytes; }
tx() { ifstat "$n" "$1" "$2" tx_bytes; }
serve_on "$n" n1
before="$(tx n0 d0s0) $(tx n0 d1s0) $(tx n0 d2s0) $(rx n1 d0s0) $(rx n1 d1s1) $(rx n1 d2s1)"
nx "$n" n0 "$TBPERF" send "$(ep_addr "$n" n1)" --bytes 2000000 >/dev/null
after="$(tx n0 d0s0) $(tx n0 d1s0) $(tx n0 d2s0) $(rx n1 d0s0) $(rx n1 d1s1) $(rx n1 d2s1)"
read -r -a b <<<"$before"
read -r -a a <<<"$after"
note "n0 tx d0/d1/d2 +$((a[0] - b[0]))/+$((a[1] - b[1]))/+$((a[2] - b[2])), n1 rx d0/d1/d2" \
	"+$((a[3] - b[3]))/+$((a[4] - b[4]))/+$((a[5] - b[5]))"
[ $((a[0] - b[0])) -ge 2000000 ] && [ $((a[3] - b[3])) -ge 2000000 ] ||
	fail "the flow did not cross dimension 0"
for k in 1 2 4 5; do
	[ "${a[$k]}" -eq "${b[$k]}" ] || fail "a dimension-1/2 counter moved: '$before' -> '$after'"
done
for sw in d1s0 d1s1 d2s0 d2s1; do
	for i in $(nx "$n" "$sw" ls /sys/class/net | grep -v '^lo$'); do
		[ "$(ifstat "$n" "$sw" "$i" tx_bytes)" -eq 0 ] || fail "switch $sw:$i forwarded bytes"
	done
done

probe_all "$n" $nodes
note "16 x 16 TCP probes answered"
"$TB" down "$n" >/dev/null
no_leftovers "$n"

n2=it$$r
f=$(scenario_as scenarios/multidim-4x2x2.yaml "$n2" '/- { type/d' \
	's/^    dims:/    dims: [ { type: ring, size: 4 }, { type: fc, size: 3, rate: 200Gbit } ]/')
tb_up "$f" "$n2"
nodes=$(seq -f 'n%g' 0 11)
probe_all "$n2" $nodes
note "ring 4 x fc 3: 12 x 12 TCP probes answered"
"$TB" down "$n2" >/dev/null
no_leftovers "$n2"
