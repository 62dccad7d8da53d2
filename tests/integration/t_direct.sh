#!/bin/bash
# SPDX-License-Identifier: MIT
# Direct networks (issue 5, acceptance 7): every shape of `kind: direct` comes up at a small
# size and every NPU reaches every other over TCP through the forwarding NPUs, then tears
# down to nothing: scenarios/direct-torus-4x4.yaml as written, and from it a 3x3 mesh, a
# 2x2x3 torus, a ring of 6, a 3-cube and an unwound 4x3 switch pair (degree max and 1).
#
#   n0 - n1 - n2 - n3 -(wrap to n0)      torus2d 4x4: axis 0 varies fastest,
#   |    |    |    |                     n4..n7 the next row, wrap-around on both axes
#   n4 - n5 - n6 - n7 - ...
. "$(dirname "$0")/lib.sh"

reach() { # reach NAME COUNT: all-pairs TCP among n0..n(COUNT-1)
	local n=$1 nodes addrs node out
	nodes=$(seq -f 'n%g' 0 $(($2 - 1)))
	serve_on "$n" $nodes
	addrs=$(for node in $nodes; do ep_addr "$n" "$node"; done)
	for node in $nodes; do
		out=$(nx "$n" "$node" "$TBPERF" probe $addrs) || fail "$n: $node: $out"
	done
}

shape() { # shape LABEL NODES DIRECT-MAPPING
	local n=it$$d$((++k)) f
	f=$(scenario_as scenarios/direct-torus-4x4.yaml "$n" '/^    shape:/d' \
		"s/^    size: .*//" "s/^  direct:.*/  direct: $3/")
	"$TB" check "$f" | grep -q "^nodes      $2: $2 endpoints" || fail "$1: not $2 nodes"
	tb_up "$f" "$n"
	reach "$n" "$2"
	"$TB" down "$n" >/dev/null
	no_leftovers "$n"
	note "$1: $2 x $2 TCP probes answered"
}

k=0
n=it$$d0
tb_up "$(scenario_as scenarios/direct-torus-4x4.yaml "$n")" "$n"
reach "$n" 16
"$TB" down "$n" >/dev/null
no_leftovers "$n"
note "torus2d 4x4 (scenarios/direct-torus-4x4.yaml): 16 x 16 TCP probes answered"
shape "mesh2d 3x3" 9 "{ shape: mesh2d, size: [3, 3] }"
shape "torus3d 2x2x3" 12 "{ shape: torus3d, size: [2, 2, 3] }"
shape "ring 6" 6 "{ shape: ring, size: 6 }"
shape "hypercube 3" 8 "{ shape: hypercube, size: 3 }"
shape "unwound 4x3" 12 \
	"{ shape: unwound, dims: [ { size: 4 }, { size: 3, degree: 1, rate: 50Gbit } ] }"
