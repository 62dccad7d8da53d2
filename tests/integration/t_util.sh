#!/bin/bash
# SPDX-License-Identifier: MIT
# Link utilization as the sampler measures it (issue 4, acc. 4): one long TCP flow h0 -> h2
# over a path whose one bottleneck is l0 -> s0 -> l1 at R; sampled for 3 s of its steady
# state, the bottleneck's directions read 95-101% of R (the shaper's byte counter: frames
# with their headers, so 100% at saturation while the goodput is 1448/1514 of it), the host
# links (2R) half that, the reverse directions only the ACKs, and every other direction
# nothing. Same with tbf. The counters come from `testbed sample NAME --out DIR`, which
# writes a results folder of the span. tcp.csv: the flow's two endpoints read every second,
# the two quiet ones at the first and last sample only (sample_plan_tcp).
#
#   h0 \           / h2
#       l0 -- s0 -- l1          host links 2R, l0-s0-l1 at R = 100 Mbit/s
#   h1 /           \ h3
. "$(dirname "$0")/lib.sh"

within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# util FROM TO: utilization of the direction FROM -> TO in $S
util() {
	jq -r --arg a "$1" --arg b "$2" '
		(.[0].links[] | select((.ends[0].node == $a and .ends[1].node == $b) or
		                       (.ends[1].node == $a and .ends[0].node == $b))) as $l
		| ($l.ends[0].node == $a | if . then 0 else 1 end) as $d
		| .[1].links[] | select(.link == $l.id and .dir == $d) | .util_mean' \
		<(jq -s . "$OUT/topology.json" "$OUT/summary.json")
}

# rows NODE: readings of endpoint NODE in $OUT/tcp.csv
rows() {
	local id
	id=$(jq --arg a "$1" '.nodes[] | select(.name == $a) | .id' "$OUT/topology.json")
	awk -F, -v id="$id" 'NR > 1 && $2 == id { n++ } END { print n + 0 }' "$OUT/tcp.csv"
}

run_qdisc() { # run_qdisc QDISC TAG
	local q=$1 n=it$$u$2 pid before u path others
	OUT=$TB_TMP/out-$q
	f=$(scenario_as scenarios/shaping-line.yaml "$n" "s/qdisc: .*/qdisc: $q/")
	tb_up "$f" "$n"
	nx "$n" h2 "$TBPERF" serve >/dev/null 2>&1 &
	wait_listen "$n" h2
	nx "$n" h0 "$TBPERF" send "$(ep_addr "$n" h2)" --time 9 >"$TB_TMP/flow-$q" &
	pid=$!
	# steady state: the bottleneck has been sending for a second
	before=$(ifstat "$n" l0 s0 tx_bytes)
	for i in $(seq 100); do
		[ "$(ifstat "$n" l0 s0 tx_bytes)" -gt $((before + 12500000)) ] && break
		sleep 0.05
	done
	"$TB" sample "$n" --seconds 3 --out "$OUT" >/dev/null || fail "sample $n"
	wait $pid
	note "$q: $(cat "$TB_TMP/flow-$q")"
	for path in "l0 s0" "s0 l1"; do
		u=$(util $path)
		note "$q: ${path/ />} $u"
		within "$u" 0.95 1.01 || fail "$q: ${path/ />} at $u of R, want 0.95..1.01"
	done
	for path in "h0 l0" "l1 h2"; do
		u=$(util $path)
		note "$q: ${path/ />} $u (rate 2R)"
		within "$u" 0.45 0.53 || fail "$q: ${path/ />} at $u of 2R, want 0.45..0.53"
	done
	for path in "s0 l0" "l1 s0" "l0 h0" "h2 l1"; do
		u=$(util $path)
		within "$u" 0.0005 0.05 || fail "$q: ${path/ />} (ACKs only) at $u"
	done
	# the path's 8 directions carry something (data or ACKs), the other 4 nothing
	others=$(jq '[.links[] | select(.util_mean > 0.0005)] | length' "$OUT/summary.json")
	[ "$others" -eq 8 ] || fail "$q: $others directions above 0.05%, want the 8 of the path"
	for path in h0:4 h2:4 h1:2 h3:2; do
		u=$(rows "${path%:*}")
		note "$q: tcp.csv rows of ${path%:*}: $u"
		if [ "${path#*:}" = 2 ]; then [ "$u" -eq 2 ]; else [ "$u" -ge 4 ]; fi ||
			fail "$q: ${path%:*} has $u rows in tcp.csv, want ${path#*:}$([ "${path#*:}" = 2 ] || echo ' or more')"
	done
	"$TB" down "$n" >/dev/null
	no_leftovers "$n"
}

run_qdisc htb a
run_qdisc tbf b
