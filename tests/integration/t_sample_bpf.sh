#!/bin/bash
# SPDX-License-Identifier: MIT
# The shapers read by BPF (kernel/qstat.h) against the same counters read by netlink
# (`testbed sample --netlink`): every one of the 12 directions is located; under two flows
# that overfill the l0 -> s0 queue both readings give the same utilization; at rest both give
# the same byte, packet, drop and backlog counts to the unit; when the root qdisc of l0 -> s0
# is replaced under a running sampler, BPF reads the new one again (located anew) and still
# agrees with netlink.
# Skips (77) where the kernel will not load the programs, saying why.
#
#   h0 \           / h2
#       l0 -- s0 -- l1          host links 2R, l0-s0-l1 at R = 100 Mbit/s, htb
#   h1 /           \ h3
. "$(dirname "$0")/lib.sh"

n=it$$qb
f=$(scenario_as scenarios/shaping-line.yaml "$n" "s/qdisc: .*/qdisc: htb/")
tb_up "$f" "$n"

out=$("$TB" sample "$n" --seconds 0.2) || fail "sample $n"
if echo "$out" | grep -q "no shaper read by BPF"; then
	echo "SKIP: this kernel does not let the sampler read shapers by BPF:" \
		"$(echo "$out" | sed -n 's/.*no shaper read by BPF: //p')"
	exit 77
fi
echo "$out" | grep -q "^sample: 12 shapers registered for BPF" ||
	fail "want all 12 directions located: $out"

# last COLUMNS of every direction in DIR/links.csv, one line per direction
last_rows() {
	awk -F, 'NR > 1 { v[$2 "," $3] = $4 "," $5 "," $6 "," $7 } END { for (k in v) print k, v[k] }' \
		"$1/links.csv" | sort
}

# util DIR LINK DIR: util_mean of a direction in DIR/summary.json
util() {
	jq -r --argjson l "$2" --argjson d "$3" '.links[] | select(.link == $l and .dir == $d) | .util_mean' \
		"$1/summary.json"
}

# direction ids of l0 -> s0 from the topology
link=$(jq '.links[] | select((.ends[0].node == "l0" and .ends[1].node == "s0") or
                             (.ends[0].node == "s0" and .ends[1].node == "l0")) | .id' \
	<("$TB" sample "$n" --seconds 0.1 --out "$TB_TMP/topo" >/dev/null && cat "$TB_TMP/topo/topology.json"))
dir=$(jq --argjson l "$link" '.links[] | select(.id == $l) | if .ends[0].node == "l0" then 0 else 1 end' \
	"$TB_TMP/topo/topology.json")
port=$(jq -r --argjson l "$link" '.links[] | select(.id == $l) | .ends[] | select(.node == "l0") | .ifname' \
	"$TB_TMP/topo/topology.json")

# 1. Busy: both readings of the same seconds, side by side.
for h in h2 h3; do nx "$n" "$h" "$TBPERF" serve >/dev/null 2>&1 & done
wait_listen "$n" h2
wait_listen "$n" h3
nx "$n" h0 "$TBPERF" send "$(ep_addr "$n" h2)" --time 4 --flows 4 >/dev/null &
p0=$!
nx "$n" h1 "$TBPERF" send "$(ep_addr "$n" h3)" --time 4 --flows 4 >/dev/null &
p1=$!
sleep 1 # the flows past their start
"$TB" sample "$n" --seconds 2 --out "$TB_TMP/busy-bpf" >"$TB_TMP/busy-bpf.txt" &
s0=$!
"$TB" sample "$n" --seconds 2 --netlink --out "$TB_TMP/busy-nl" >/dev/null || fail "sample --netlink"
wait $s0 || fail "sample (BPF)"
wait $p0 $p1
grep -q "and 12.0 shapers read by BPF" "$TB_TMP/busy-bpf.txt" ||
	fail "busy: not every direction read by BPF every round: $(cat "$TB_TMP/busy-bpf.txt")"
ub=$(util "$TB_TMP/busy-bpf" "$link" "$dir")
un=$(util "$TB_TMP/busy-nl" "$link" "$dir")
note "l0 -> s0 busy: BPF $ub, netlink $un of R"
awk -v a="$ub" -v b="$un" 'BEGIN { exit !(a >= 0.9 && a <= 1.01 && (a - b < 0.03 && b - a < 0.03)) }' ||
	fail "l0 -> s0: BPF reads $ub of R, netlink $un"

# 2. At rest: the same counts to the unit, drops included.
rest() { # rest TAG: the two readings' last rows must be equal
	"$TB" sample "$n" --seconds 0.5 --out "$TB_TMP/$1-bpf" >/dev/null || fail "sample $1"
	"$TB" sample "$n" --seconds 0.5 --netlink --out "$TB_TMP/$1-nl" >/dev/null || fail "sample $1"
	diff <(last_rows "$TB_TMP/$1-bpf") <(last_rows "$TB_TMP/$1-nl") >"$TB_TMP/$1.diff" ||
		fail "$1: BPF and netlink differ: $(cat "$TB_TMP/$1.diff")"
}
rest rest
drops=$(last_rows "$TB_TMP/rest-bpf" | awk -v k="$link,$dir" '$1 == k { split($2, v, ","); print v[3] }')
note "l0 -> s0 at rest: $(last_rows "$TB_TMP/rest-bpf" | awk -v k="$link,$dir" '$1 == k { print $2 }') (bytes,packets,drops,backlog)"
[ "${drops:-0}" -gt 0 ] || fail "l0 -> s0 dropped nothing: the drop counter was not exercised"

# 3. A shaper replaced while the sampler runs: BPF stops reading its old qdisc (the device's
# root is another), netlink reads it meanwhile, and at the namespace's next refresh (within
# 10 rounds) BPF reads the new one. Without that, 12 - 25/31 a round; with it, above 11.5.
"$TB" sample "$n" --seconds 3 >"$TB_TMP/replace.txt" &
s0=$!
sleep 0.5
nx "$n" l0 tc qdisc replace dev "$port" root handle 2: htb default 20 || fail "tc replace"
wait $s0 || fail "sample while replacing"
note "while replacing: $(sed -n 2p "$TB_TMP/replace.txt")"
bpf=$(sed -n 's/.* and \([0-9.]*\) shapers read by BPF/\1/p' "$TB_TMP/replace.txt")
awk -v x="$bpf" 'BEGIN { exit !(x > 11.5) }' ||
	fail "the replaced shaper was not read by BPF again ($bpf a round, want above 11.5)"
rest replaced

"$TB" down "$n" >/dev/null
no_leftovers "$n"
