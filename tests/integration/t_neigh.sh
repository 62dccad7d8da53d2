#!/bin/bash
# SPDX-License-Identifier: MIT
# Every link end knows its peer as a permanent neighbour (fabric/fabric_node.c): the kernel's
# neighbour table, which all namespaces of the machine share, holds 1,024 entries by default
# (gc_thresh3), and past it the kernel drops packets where no counter the fidelity verdict
# reads shows them. On a leaf-spine of 1,024 links (2,048 link ends), all 512 hosts ping a
# host five leaves away at once: every ping is answered (with ARP, about 70% of them were
# lost on this machine). Each end's neighbour is its peer, PERMANENT, at the peer's address.
# A cable down for a second and back (a scenario failure) has its neighbours back, permanent.
#
#   s0 .. s15            32 leaves x 16 hosts under 16 spines (560 namespaces), no shaping
#   l0 .. l31            h_i pings h_(i+85) from its endpoint address, 3 times 0.2 s apart
#   h0 .. h511
. "$(dirname "$0")/lib.sh"

n=it$$nb
f=$TB_TMP/$n.yaml
cat >"$f" <<EOF
name: $n
topology: {kind: leafspine, hosts_per_leaf: 16, leaves: 32, spines: 16, host_rate: 100Gbit}
emulation: {rate_scale: 0.001}
EOF
tb_up "$f" "$n"

# 1. every end's neighbour is its peer, at the peer's address and Ethernet address
for node in h0 l0 s0; do
	while read -r dev peer_ns; do
		peer_if=$(ip -n "tb-$n-$node" -o link show "$dev" | sed -n 's/.*@if\([0-9]*\).*/\1/p')
		mac=$(ip -n "$peer_ns" -o link show | awk -v i="$peer_if" -F': ' '$1 == i' | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
		addr=$(ip -n "$peer_ns" -o -4 addr show | awk -v i="$peer_if" '$1 == i":" { sub("/.*", "", $4); print $4 }')
		got=$(ip -n "tb-$n-$node" neigh show dev "$dev" "$addr")
		[[ $got == *"lladdr $mac PERMANENT"* ]] || fail "$node $dev: neighbour '$got', want $addr at $mac, PERMANENT"
	done < <(ip -n "tb-$n-$node" -o link show | sed -n 's/^[0-9]*: \([a-z0-9]*\)@if[0-9]*:.*link-netns \([^ ]*\).*/\1 \2/p')
done
note "h0, l0 and s0: every port's peer a permanent neighbour"

# 2. all at once, every ping answered
for i in $(seq 0 511); do
	j=$(((i + 85) % 512))
	nsenter --net="/run/netns/tb-$n-h$i" ping -I "198.18.$((i / 256)).$((i % 256))" -c 3 -i 0.2 -W 2 -q \
		"198.18.$((j / 256)).$((j % 256))" >/dev/null 2>&1 || echo "$i" >>"$TB_TMP/lost" &
done
wait
lost=$(cat "$TB_TMP/lost" 2>/dev/null | wc -l)
note "512 hosts pinging at once: $lost without an answer"
[ "$lost" -eq 0 ] || fail "$lost of 512 hosts had no answer (the first: h$(head -1 "$TB_TMP/lost"))"
"$TB" down "$n" >/dev/null
no_leftovers "$n"

# 3. a cable down for a second and back: its neighbours permanent again
c=it$$nc
f=$TB_TMP/$c.yaml
cat >"$f" <<EOF
name: $c
topology: {kind: leafspine, hosts_per_leaf: 2, leaves: 2, spines: 2, host_rate: 100Mbit}
workload:
  jobs: [{gpus: 4, bytes: 2MiB, compute: 20ms, iterations: 20}]
failures:
  - {at: 1s, link: [h0, l0], for: 1s}
EOF
TB_NAMES+=("$c")
"$TB" up --keep --results "$TB_TMP/res" "$f" >"$TB_TMP/$c.log" 2>&1 || { cat "$TB_TMP/$c.log"; fail "up $c"; }
grep -q "^[0-9]*,link,up,h0-l0,.*,ok$" "$(find "$TB_TMP/res" -name failures.csv)" || fail "the cable did not come back"
for end in "h0 l0" "l0 h0"; do
	set -- $end
	got=$(ip -n "tb-$c-$1" neigh show dev "$2")
	[[ $got == *PERMANENT* ]] || fail "$1 $2 after the repair: '$got', want PERMANENT"
done
note "h0-l0 after down and up: both neighbours permanent"
"$TB" down "$c" >/dev/null
no_leftovers "$c"
