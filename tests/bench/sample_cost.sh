#!/bin/bash
# SPDX-License-Identifier: MIT
# Sampling cost (issue 4, acceptance 2): every link direction's counters and the CPU
# sampled at 10 Hz, as a run samples them, on a leaf-spine of 1,024 links (2,048
# directions, 560 namespaces: 32 leaves x 16 hosts, 16 spines) with no traffic; the CPU time
# `testbed sample` spends over 20 s (user + system), as a share of one core. Target: below 5%.
# Shapers are read by BPF where the kernel lets it (kernel/qstat.h), one call a round for all;
# the same spans are measured with netlink (--netlink) beside them. With no traffic the
# netlink way's device counter dumps find every link idle, so only the periodic refresh reads
# shapers (sample/sample_plan.h); --full reads every direction every round and every
# endpoint's TCP counters every second, the cost with every link busy.
# Usage: sample_cost.sh BUILD_DIR [SECONDS]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
SECS=${2:-20}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "sample_cost: needs root"; exit 1; }
TB=$BUILD/testbed
TMP=$(mktemp -d /tmp/tbsample.XXXXXX)
NAME=bs$$
cleanup() {
	"$TB" -q down "$NAME" >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

cat >"$TMP/s.yaml" <<EOS
name: $NAME
topology:
  kind: leafspine
  hosts_per_leaf: 16
  leaves: 32
  spines: 16
  host_rate: 100Gbit
emulation:
  rate_scale: 0.001
EOS
"$TB" up "$TMP/s.yaml" >"$TMP/up.log" 2>&1 || { cat "$TMP/up.log"; exit 1; }

# The machine should be quiet: say what else was running.
others=$(pgrep -c -f 'emu-node|iperf3|tbperf|testbed (up|sample)' || true)
load=$(cut -d' ' -f1 /proc/loadavg)
share() { sed -n 's/.* = \([0-9.]*\)% of one core.*/\1/p'; }
# measure TAG [OPTIONS]: one span, its lines tagged, its share in $TMP/TAG
measure() {
	local tag=$1 out
	shift
	out=$("$TB" sample "$NAME" --seconds "$SECS" --interval 100ms "$@")
	echo "$out" | sed "s/^sample:/$tag/"
	echo "$out" | share >"$TMP/$tag"
}
# the two ways side by side, alternated: shapers read by BPF (the default), and by netlink
measure "idle bpf:    "
measure "idle netlink:" --netlink
measure "busy bpf:    " --full
measure "busy netlink:" --full --netlink
echo "conditions:   $(nproc) cores, load $load before, $others other testbed/emu-node/iperf3 processes," \
	"load $(cut -d' ' -f1 /proc/loadavg) after"
ratio() { awk -v a="$(cat "$TMP/$1")" -v b="$(cat "$TMP/$2")" 'BEGIN { printf "%.1fx", (a > 0 ? b / a : 0) }'; }
echo "ratios:       netlink / BPF: idle $(ratio "idle bpf:    " "idle netlink:"), busy $(ratio "busy bpf:    " "busy netlink:")"
verdict() { awk -v s="$1" -v t="$2" 'BEGIN { print (s < t ? "met" : "MISSED") }'; }
idle=$(cat "$TMP/idle bpf:    ")
busy=$(cat "$TMP/busy bpf:    ")
echo "targets:      sampling 2,048 directions at 10 Hz: links idle below 2% of one core" \
	"$(verdict "$idle" 2) (${idle}%), every link busy (--full) below 5%" \
	"$(verdict "$busy" 5) (${busy}%)"
