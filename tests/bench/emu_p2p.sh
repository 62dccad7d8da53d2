#!/bin/bash
# SPDX-License-Identifier: MIT
# emu-node's point-to-point goodput against iperf3's, side by side over the same 4-hop path,
# h0 -> l0 -> s0 -> l1 -> h2 of scenarios/shaping-line.yaml: unshaped (qdisc none, so the
# machine is the limit) and shaped (tbf, 1 Gbit/s fabric, 2 Gbit/s host links).
#
# Every collective on two ranks sends both ways at once, so both tools run bidirectional:
# iperf3 --bidir (one stream each way) against a 2-rank ring all-gather (M/2 each way per
# iteration, back to back on the same connections). Goodput is summed over the two
# directions. iperf3: its receivers' rates after a 1 s warm-up. emu-node, two ways, the
# first iteration left out as the warm-up: "flows", per direction the bytes of its flows
# over their completion times (send issued to last byte received, from the records), which
# is what FCT-based figures see but counts a direction finishing early as if the other had
# then run alone; and "wall", all bytes over the iterations' wall time, which is stricter
# than iperf3 (a direction that finishes first idles until the iteration ends). M is picked
# from iperf3's rate so an iteration lasts about 1.5 s. Both tools run on the same two CPUs
# (h0 on CPU 0, h2 on CPU 1), as the runner pins emu-nodes. Shaped TCP loses packets at the
# tbf queues now and then, which moves single runs by several percent, so each figure is
# the median of five runs (EMU_P2P_ROUNDS), the tools taking turns.
# Usage: emu_p2p.sh BUILD_DIR   (as root; prints the figures and their ratios; KEEP=1 keeps
# the raw tool outputs in /tmp/tbp2p.*)
set -eu
BUILD=$(cd "${1:-build}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "emu_p2p: needs root"; exit 1; }
TB=$BUILD/testbed
DRIVE=$BUILD/tools/emu_drive
TMP=$(mktemp -d /tmp/tbp2p.XXXXXX)
NAME=p2p$$
SECS=${EMU_P2P_SECONDS:-4}
ROUNDS=${EMU_P2P_ROUNDS:-5}
server=
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
	"$TB" -q down "$NAME" >/dev/null 2>&1 || true
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
	return 0
}
trap cleanup EXIT

nx() { local node=$1; shift; ip netns exec "tb-$NAME-$node" "$@"; }
addr() { nx "$1" ip -4 -o addr show dev lo | awk '$4 !~ /^127/ { split($4, a, "/"); print a[1] }'; }
# bits/s from iperf3's two "receiver" summary lines (one per direction), summed
iperf_bps() {
	awk '/receiver/ { for (i = 2; i <= NF; i++) if ($i ~ /bits\/sec$/) {
		m = $i ~ /^G/ ? 1e9 : $i ~ /^M/ ? 1e6 : $i ~ /^K/ ? 1e3 : 1; s += $(i - 1) * m } }
		END { printf "%.0f", s }'
}
# bits/s from emu_drive --flows after the first iteration, per direction, summed:
# "flow 1 0->1 #0: 166312500 bytes, 712.345 ms, 1.868 Gbit/s"
emu_bps() {
	awk '/^flow / && $2 != "0" { b[$3] += $5; ms[$3] += $7 }
		END { for (d in b) s += b[d] * 8 / (ms[d] / 1e3); printf "%.0f", s }'
}
# bits/s over the iterations' wall time after the first: "iter 1: 1234.5 ms, N bytes ..."
wall_bps() {
	awk '/^iter [0-9]+:/ && $2 != "0:" { ms += $3; b += $5 } END { printf "%.0f", b * 8 / (ms / 1e3) }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v e="$1" -v i="$2" 'BEGIN { printf "%.3f", e / i }'; }
gbit() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e9 }'; }

run_iperf() {
	nx h2 taskset -c 1 iperf3 -s -1 >/dev/null 2>&1 &
	server=$!
	for _ in $(seq 100); do
		nx h2 ss -Hltn 'sport = :5201' | grep -q LISTEN && break
		sleep 0.05
	done
	nx h0 taskset -c 0 iperf3 -c "$(addr h2)" --bidir -t "$SECS" -O 1 >"$TMP/iperf"
	wait "$server" || true
	server=
	iperf_bps <"$TMP/iperf"
}

run_emu() { # run_emu BPS: M sized for ~1.5 s per iteration at iperf3's rate
	local bytes iters=$((SECS * 2 / 3 + 2))
	bytes=$(awk -v b="$1" 'BEGIN { m = b / 8 * 1.5; printf "%.0f", m - m % 8 }')
	"$DRIVE" "$NAME" h0,h2 --kind allgather --algo ring --bytes "$bytes" --iters "$iters" \
		--pin --flows --timeout 120s >"$TMP/emu" 2>&1 || { cat "$TMP/emu"; exit 1; }
	echo "$(emu_bps <"$TMP/emu") $(wall_bps <"$TMP/emu")"
}

measure() { # measure LABEL SED-EXPR...
	local label=$1 f="$TMP/$NAME.yaml" ib eb
	shift
	sed "s/^name: .*/name: $NAME/" scenarios/shaping-line.yaml >"$f"
	for e in "$@"; do sed -i "$e" "$f"; done
	"$TB" up --name "$NAME" "$f" >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; exit 1; }
	rm -f "$TMP/i" "$TMP/e"
	for ((k = 0; k < ROUNDS; k++)); do
		ib=$(run_iperf)
		echo "$ib" >>"$TMP/i"
		run_emu "$ib" >>"$TMP/e"
	done
	ib=$(median <"$TMP/i")
	eb=$(cut -d' ' -f1 "$TMP/e" | median)
	wb=$(cut -d' ' -f2 "$TMP/e" | median)
	printf '%-31s %8s %8s %8s %8s %8s\n' "$label" "$(gbit "$ib")" "$(gbit "$eb")" \
		"$(ratio "$eb" "$ib")" "$(gbit "$wb")" "$(ratio "$wb" "$ib")"
	"$TB" -q down "$NAME" >/dev/null 2>&1
}

echo "emu_p2p: h0 -> l0 -> s0 -> l1 -> h2, both directions, medians of $ROUNDS runs of ~$SECS s" \
	"($(nproc) cores)"
printf '\n%-31s %8s %8s %8s %8s %8s\n' "Gbit/s, both directions" iperf3 "emu" "/iperf3" "emu" \
	"/iperf3"
printf '%-31s %8s %8s %8s %8s %8s\n' "" "" "flows" "" "wall" ""
measure "unshaped (qdisc none)" "s/qdisc: .*/qdisc: none/"
measure "shaped (tbf, fabric 1 Gbit/s)" "s/fabric_rate: .*/fabric_rate: 1Gbit/" \
	"s/host_rate: .*/host_rate: 2Gbit/"
echo "targets: emu/iperf3 >= 0.95 unshaped, >= 0.97 shaped"
