#!/bin/bash
# SPDX-License-Identifier: MIT
# Per-packet spraying (routing.spray) on the 16-accelerator Hx2Mesh (scenarios/hxmesh-16.yaml):
# the ECMP groups use `numgen random` instead of jhash, one TCP flow from a0-0 to a1-1 leaves
# by both next hops a1-0 and a0-1 (about half each), a DSCP tag still pins it to one, and every
# accelerator still reaches every other.
#
#   board (0,0)        board (1,0)
#   a0-0 -- a1-0  r0  a2-0 -- a3-0      r<row>: row networks (W and E edge ports)
#    |        |        |        |       c<col>: column networks (N and S edge ports)
#   a0-1 -- a1-1  r1  a2-1 -- a3-1
#   c0       c1        c2       c3      and the same again for board row 1 (a*-2, a*-3)
. "$(dirname "$0")/lib.sh"
n=it$$s
f=$(scenario_as scenarios/hxmesh-16.yaml "$n")
printf 'routing:\n  spray: true\n' >>"$f"
tb_up "$f" "$n"
rules=$(nx "$n" a0-0 nft list chain ip testbed g0_out)
echo "$rules" | grep -q "numgen random mod 2 map @g0_hash" || fail "no numgen rule: $rules"
! echo "$rules" | grep -q jhash || fail "jhash left in a spraying ruleset"

accels=$(for y in 0 1 2 3; do for x in 0 1 2 3; do echo "a$x-$y"; done; done)
serve_on "$n" $accels
dst=$(ep_addr "$n" a1-1)
tx() { ifstat "$n" a0-0 "$1" tx_bytes; }
b1=$(tx a1-0)
b2=$(tx a0-1)
nx "$n" a0-0 "$TBPERF" send "$dst" --sport 42001 --bytes 4000000 >/dev/null
d1=$(($(tx a1-0) - b1))
d2=$(($(tx a0-1) - b2))
note "one flow, 4 MB: $d1 bytes via a1-0, $d2 via a0-1"
for d in "$d1" "$d2"; do
	[ "$d" -ge 1200000 ] || fail "a next hop carried $d bytes of 4 MB: not sprayed"
done
b1=$(tx a1-0)
b2=$(tx a0-1)
nx "$n" a0-0 "$TBPERF" send "$dst" --sport 42001 --tos 8 --bytes 1000000 >/dev/null
[ $(($(tx a1-0) - b1)) -lt 10000 ] && [ $(($(tx a0-1) - b2)) -ge 1000000 ] ||
	fail "tag 2 did not pin the flow to a0-1 under spraying"

addrs=$(for a in $accels; do ep_addr "$n" "$a"; done)
for a in $accels; do
	out=$(nx "$n" "$a" "$TBPERF" probe $addrs) || fail "$a: $out"
done
note "16 x 16 TCP probes answered while spraying"
"$TB" down "$n" >/dev/null
no_leftovers "$n"
