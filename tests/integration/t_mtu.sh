#!/bin/bash
# SPDX-License-Identifier: MIT
# shaping.mtu: scenarios/jumbo-line.yaml at MTU 9000. Every veth of every namespace has MTU
# 9000; a ping of 9000-byte packets (8972 bytes of payload) with DF set crosses the fabric,
# and one byte more does not leave the host; one TCP flow through the 100 Mbit/s leaf-spine
# link gets 93-101% of R in goodput, under htb and tbf (frames of 9014 bytes: 1 ms of data
# holds barely one, so burst, queue and quantum must count frames of the MTU). Then the
# same with an OCS layer (scenarios/ocs-small.yaml): its cross-connect ports carry the MTU too.
#
#   h0 \    s0    / h2
#       l0 <  > l1          host links 200 Mbit/s, leaf-spine links 100 Mbit/s
#   h1 /    s1    \ h3
. "$(dirname "$0")/lib.sh"
command -v ping >/dev/null || { echo "needs ping (iputils-ping: make deps)"; exit 77; }

ratio() { awk -v g="$1" -v r="$2" 'BEGIN { printf "%.4f", g / r }'; }
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
steady() { sed -n 's/.*steady_bps=\([0-9]*\).*/\1/p'; }

# every veth in every namespace of testbed NAME has MTU WANT; prints how many there are
all_mtu() { # all_mtu NAME WANT
	local ns k=0 bad
	for ns in $(ip netns list | awk -v p="tb-$1-" 'index($1, p) == 1 { print $1 }'); do
		bad=$(ip -n "$ns" -o link show type veth | awk -v m="$2" '{
			for (i = 1; i < NF; i++) if ($i == "mtu" && $(i + 1) != m) print $2, $(i + 1) }')
		[ -z "$bad" ] || fail "$ns: veth MTU not $2: $bad"
		k=$((k + $(ip -n "$ns" -o link show type veth | wc -l)))
	done
	echo "$k"
}

ping_df() { # ping_df NAME FROM TO PAYLOAD: one DF ping of PAYLOAD bytes gets its reply
	nx "$1" "$2" ping -n -q -M do -c 1 -W 1 -s "$4" "$(ep_addr "$1" "$3")" >/dev/null 2>&1
}

# the path works: a small ping gets through (veths find their carrier a moment after `up`)
wait_path() { # wait_path NAME FROM TO
	local i
	for i in $(seq 30); do ping_df "$@" 56 && return 0; done
	fail "no ping from $2 to $3"
}

line() { # line QDISC TAG: the MTU everywhere, a DF ping, one flow's goodput
	local q=$1 n=it$$m$2 f k out r
	f=$(scenario_as scenarios/jumbo-line.yaml "$n" "/^shaping:/a \\  qdisc: $q")
	tb_up "$f" "$n"
	"$TB" check "$f" | grep -q '^mtu  *9000 on every link' || fail "check does not print the MTU"
	k=$(all_mtu "$n" 9000)
	[ "$k" -eq 16 ] || fail "found $k veths, want 16 (8 links)"
	echo "$q: all $k veths at MTU 9000"
	if [ "$q" = htb ]; then
		nx "$n" l0 tc -d class show dev s0 | grep -q 'quantum 9014' ||
			fail "htb quantum is not one frame"
	fi
	wait_path "$n" h0 h3
	ping_df "$n" h0 h3 8972 || fail "a 9000-byte DF packet did not cross h0 -> h3"
	! ping_df "$n" h0 h3 8973 || fail "a 9001-byte DF packet crossed links of MTU 9000"
	echo "$q: DF ping of 8972 bytes crosses, 8973 does not"
	# one flow h0 -> h2 over a 100 Mbit/s leaf-spine link, its one bottleneck
	nx "$n" h2 taskset -c 1 "$TBPERF" serve >/dev/null 2>&1 &
	wait_listen "$n" h2
	out=$(nx "$n" h0 taskset -c 0 "$TBPERF" send "$(ep_addr "$n" h2)" --time 4 --warmup 1)
	r=$(ratio "$(echo "$out" | steady)" 100000000)
	echo "$q: single flow at 100Mbit: goodput/R = $r (load $(cut -d' ' -f1 /proc/loadavg))"
	within "$r" 0.93 1.01 || fail "single flow ($q): $r of R, want 0.93..1.01"
	"$TB" down "$n" >/dev/null
	no_leftovers "$n"
}

line htb a
line tbf b

# the OCS's ports are veths too: a circuit redirects frames as they come, so both its ends
# and the cables' far ends must take 9000-byte frames
o=it$$mo
f=$(scenario_as scenarios/ocs-small.yaml "$o" '/^topology:/i shaping: { mtu: 9000 }')
tb_up "$f" "$o"
k=$(all_mtu "$o" 9000)
nx "$o" o0 ip -o link show type veth | grep -q 'mtu 9000' || fail "OCS ports not at MTU 9000"
wait_path "$o" h0 h2
ping_df "$o" h0 h2 8972 || fail "a 9000-byte DF packet did not cross the OCS h0 -> h2"
echo "OCS layer: all $k veths at MTU 9000, DF ping of 8972 bytes crosses"
"$TB" down "$o" >/dev/null
no_leftovers "$o"
