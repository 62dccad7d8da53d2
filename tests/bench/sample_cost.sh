#!/bin/bash
# SPDX-License-Identifier: MIT
# Sampling cost (issue 4, acceptance 2): every link direction's counters and the CPU
# sampled at 10 Hz, as a run samples them, on a leaf-spine of 1,024 links (2,048
# directions, 560 namespaces: 32 leaves x 16 hosts, 16 spines) with no traffic; the CPU time
# `testbed sample` spends over 20 s (user + system), as a share of one core. Target: below 5%.
# With no traffic the leaves' device counter dumps find every link idle, so only the periodic
# refresh reads shapers (sample/sample_plan.h); the second measurement reads every
# direction every round (--full), the cost with every link busy, for reference.
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
out=$("$TB" sample "$NAME" --seconds "$SECS" --interval 100ms)
echo "$out"
share=$(echo "$out" | sed -n 's/.* = \([0-9.]*\)% of one core.*/\1/p')
full=$("$TB" sample "$NAME" --seconds "$SECS" --interval 100ms --full)
echo "$full" | sed 's/^sample:/full:  /'
fshare=$(echo "$full" | sed -n 's/.* = \([0-9.]*\)% of one core.*/\1/p')
echo "conditions:   $(nproc) cores, load $load before, $others other testbed/emu-node/iperf3 processes," \
	"load $(cut -d' ' -f1 /proc/loadavg) after"
verdict() { awk -v s="$1" -v t="$2" 'BEGIN { print (s < t ? "met" : "MISSED") }'; }
echo "targets:      sampling 2,048 directions at 10 Hz: links idle below 2% of one core" \
	"$(verdict "$share" 2) (${share}%), every link busy (--full) below 5%" \
	"$(verdict "$fshare" 5) (${fshare}%)"
