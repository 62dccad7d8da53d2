#!/bin/bash
# SPDX-License-Identifier: MIT
# HammingMesh (issue 5, acceptance 2): the 4x4 Hx2Mesh of 2x2 boards (64 accelerators,
# scenarios/hxmesh-64.yaml) comes up (the time is printed here; the 3 s target is judged by
# `make bench`, since timed assertions fail on a busy machine), every accelerator reaches
# every other over TCP, and it tears down to nothing. On an accelerator, locally generated flows with two
# shortest next hops are hashed by the nft output chain as `testbed path` predicts, and DSCP
# path tags pin them. Then a 4x2 grid whose 8-port row networks are fat trees of 4-port
# switches (radix 4) is reachable too.
#
#          r0 (row network of accelerator row 0: W and E edge ports of board row 0)
#     +-----+-----+-----+-----+
#   +-------+ +-------+         board (bx, by) holds a(2bx..2bx+1)-(2by..2by+1);
#   | a0-0 a1-0 | a2-0 a3-0 ... each W/E edge port goes to its row network r<row>,
#   | a0-1 a1-1 | a2-1 a3-1 ... each N/S edge port to its column network c<col>
#   +-------+ +-------+
#     |  c0  c1  c2 ...          (x = y = 4: 8 row and 8 column switches of 8 ports)
. "$(dirname "$0")/lib.sh"
n=it$$h
f=$(scenario_as scenarios/hxmesh-64.yaml "$n")
t0=$(date +%s.%N)
tb_up "$f" "$n"
t1=$(date +%s.%N)
up=$(echo "$t1 - $t0" | bc)
note "64-accelerator Hx2Mesh up in ${up} s"
[ "$(ip netns list | grep -c "^tb-$n-")" -eq 80 ] || fail "expected 80 namespaces"

accels=$(for y in 0 1 2 3 4 5 6 7; do for x in 0 1 2 3 4 5 6 7; do echo "a$x-$y"; done; done)
serve_on "$n" $accels
addrs=$(for a in $accels; do ep_addr "$n" "$a"; done)
[ "$(echo "$addrs" | sort -u | wc -l)" -eq 64 ] || fail "expected 64 distinct addresses"
for a in $accels; do
	out=$(nx "$n" "$a" "$TBPERF" probe $addrs) || fail "$a: $out"
done
note "64 x 64 TCP probes answered"

# a0-0 -> a1-1 (diagonal on board 0): next hops a1-0 and a0-1, chosen in a0-0's output chain
dst=$(ep_addr "$n" a1-1)
tx() { ifstat "$n" a0-0 "$1" tx_bytes; }
send_via() { # send_via SPORT TOS: prints the next hop whose counter moved by the flow
	local b1 b2 d1 d2
	b1=$(tx a1-0)
	b2=$(tx a0-1)
	nx "$n" a0-0 "$TBPERF" send "$dst" --sport "$1" --tos "$2" --bytes 500000 >/dev/null
	d1=$(($(tx a1-0) - b1))
	d2=$(($(tx a0-1) - b2))
	if [ "$d1" -ge 500000 ] && [ "$d2" -lt 10000 ]; then echo a1-0
	elif [ "$d2" -ge 500000 ] && [ "$d1" -lt 10000 ]; then echo a0-1
	else echo "split($d1/$d2)"; fi
}
seen=""
for sp in 41001 41002 41003 41004 41005 41006 41007 41008; do
	want=$("$TB" path "$n" a0-0 a1-1 --sport "$sp" --dport 5201 | awk '{ print $2 }')
	got=$(send_via "$sp" 0)
	[ "$got" = "$want" ] || fail "sport $sp: left by $got, testbed path says $want"
	seen="$seen $got"
done
echo "$seen" | grep -q a1-0 && echo "$seen" | grep -q a0-1 || fail "8 flows all hashed one way:$seen"
[ "$(send_via 41001 4)" = a1-0 ] || fail "tag 1 did not pin next hop a1-0"
[ "$(send_via 41001 8)" = a0-1 ] || fail "tag 2 did not pin next hop a0-1"
note "output chain: 8 flows hashed as predicted, tags 1 and 2 pinned"

"$TB" down "$n" >/dev/null
no_leftovers "$n"

# two-level row networks: 8 ports of 4-port switches -> 4 leaves (2 down, 2 up), 2 spines
n2=it$$f
f=$(scenario_as scenarios/hxmesh-64.yaml "$n2" "s/x: 4 .*/x: 4/" "s/y: 4 .*/y: 2/" \
	"s/radix: 64 .*/radix: 4/")
"$TB" check "$f" | grep -q "fat trees of 4 leaves (2 down, 2 up) and 2 spines" ||
	fail "radix 4: expected fat-tree row networks"
tb_up "$f" "$n2"
accels=$(for y in 0 1 2 3; do for x in 0 1 2 3 4 5 6 7; do echo "a$x-$y"; done; done)
probe_all "$n2" $accels
note "32 x 32 TCP probes answered through fat-tree row networks"
"$TB" down "$n2" >/dev/null
no_leftovers "$n2"
