#!/bin/bash
# SPDX-License-Identifier: MIT
# Emulation capacity (issue 40, acceptance 4): the fastest emulated link rate at which an
# all-to-all keeps a fidelity verdict of ok, on the 4x4 Hx2Mesh of scenarios/hxmesh-a2a.yaml
# (64 accelerators, four ports each) and on a non-blocking leaf-spine of 32 hosts (4 leaves
# of 8 under 4 spines), with what it carries there: the emulated Gbit/s summed over every
# link direction (bytes the shapers sent over the run's span), and the machine's CPU seconds
# per emulated GB carried. Capacity = endpoints x link rate.
#
# The search doubles the file's rate_scale while the verdict is ok and halves it while it is
# not (at most MAX_STEPS each way); size_scale follows rate_scale, so the time dilation, the
# emulated run's length and the paper-time result stay the same at every rate, and the
# paper-time Avg.JRT of every ok run is printed beside the first ok one's (it should agree
# within 3%: the emulation is the same experiment at a different speed).
# Usage: capacity.sh BUILD_DIR [MAX_STEPS]   (as root; default 3)
set -eu
BUILD=$(cd "${1:-build}" && pwd)
MAX_STEPS=${2:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "capacity: needs root"; exit 1; }
TB=$BUILD/testbed
TMP=$(mktemp -d /tmp/tbcap.XXXXXX)
NAME=cap$$
cleanup() {
	"$TB" -q down "$NAME" >/dev/null 2>&1 || true
	rm -rf "$TMP"
	return 0
}
trap cleanup EXIT

cpu() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }

# The leaf-spine: every host sends 256 KiB to each of the 32 (one to itself), four sends
# outstanding at a time (with all 31 at once, the incast on every host's link fired spurious
# timeouts at every rate tried, 5 to 20 Mbit/s: degraded by transport).
cat >"$TMP/ls.yaml" <<EOS
name: $NAME
topology:
  kind: leafspine
  hosts_per_leaf: 8
  leaves: 4
  spines: 4
  host_rate: 100Gbit
routing:
  seed: 1
emulation:
  rate_scale: 0.0001
  size_scale: 1
workload:
  iterations: 2
  jobs:
    - gpus: 32
      collective: alltoall
      algorithm: direct
      group: 4
      bytes: 8MiB
      compute: 1us
EOS

# variant SRC SCALE SIZE: the file with its name, rate_scale and size_scale set
variant() {
	sed -e "s/^name: .*/name: $NAME/" -e "s/^  rate_scale: .*/  rate_scale: $2/" \
		-e "/^  size_scale: /d" -e "s/^\(  rate_scale: .*\)$/\1\n  size_scale: $3/" \
		"$1" >"$TMP/v.yaml"
	echo "$TMP/v.yaml"
}

# run SRC SCALE SIZE: one run; prints "VERDICT RATE_BPS JRT_PAPER_S GBPS CPU_S_PER_GB ENDPOINTS
# REASONS" (the verdict's reason kinds, joined by +, or - when ok)
run() {
	local f c0 c1 dir
	f=$(variant "$@")
	rm -rf "$TMP/results"
	c0=$(cpu)
	"$TB" up --results "$TMP/results" "$f" >"$TMP/up.log" 2>&1 || true
	c1=$(cpu)
	dir=$(ls -d "$TMP/results/$NAME"/* 2>/dev/null | tail -1)
	if [ -z "$dir" ] || [ ! -f "$dir/summary.json" ]; then
		echo "failed 0 0 0 0 0 -"
		return 0
	fi
	jq -r --arg c0 "$c0" --arg c1 "$c1" --argjson cores "$(nproc)" '
		($c0 | split(" ") | map(tonumber)) as $a | ($c1 | split(" ") | map(tonumber)) as $b
		| ([.links[] | .tx_bytes] | add) as $bytes
		| ([.links[] | .span_s] | max) as $span
		| (1 - ($b[1] - $a[1]) / ($b[0] - $a[0])) as $busy
		| [ (if .totals.ok == .totals.jobs then .fidelity.verdict else "failed" end),
		    ([.links[] | .rate_bps] | max),
		    .totals.avg_jrt_paper_s,
		    ($bytes * 8 / $span / 1e9),
		    ($busy * $cores * $span / ($bytes / 1e9)),
		    (.jobs | map(.gpus) | add),
		    ([.fidelity.reasons[].kind] | unique | join("+") | if . == "" then "-" else . end) ]
		| map(tostring) | join(" ")' "$dir/summary.json"
}

# search LABEL FILE: the largest rate_scale with verdict ok
search() {
	local label=$1 src=$2 r0 s0 r s out v best="" best_out="" ref="" step dir
	r0=$(awk '/^  rate_scale:/ { print $2 }' "$src")
	s0=$(awk '/^  size_scale:/ { print $2 }' "$src")
	s0=${s0:-1}
	printf '%-12s %12s %10s %8s %14s %10s %12s  %s\n' "$label" "rate_scale" "link rate" "verdict" \
		"Avg.JRT (ps)" "Gbit/s" "CPU s / GB" "why"
	r=$r0
	s=$s0
	out=$(run "$src" "$r" "$s")
	v=${out%% *}
	[ "$v" = ok ] && dir=up || dir=down
	for step in $(seq 0 "$MAX_STEPS"); do
		[ "$step" -eq 0 ] || out=$(run "$src" "$r" "$s")
		v=${out%% *}
		set -- $out
		printf '%-12s %12s %7.2f Mb %8s %14.6g %10.3f %12.3f  %s\n' "" "$r" \
			"$(awk -v b="$2" 'BEGIN { print b / 1e6 }')" "$v" "$3" "$4" "$5" "$7"
		if [ "$v" = ok ]; then
			best=$r
			best_out=$out
			[ -n "$ref" ] || ref=$3
			[ "$dir" = up ] || break
		elif [ "$dir" = up ]; then
			break
		fi
		if [ "$dir" = up ]; then
			r=$(awk -v x="$r" 'BEGIN { printf "%.6g", x * 2 }')
			s=$(awk -v x="$s" 'BEGIN { printf "%.6g", x * 2 }')
		else
			r=$(awk -v x="$r" 'BEGIN { printf "%.6g", x / 2 }')
			s=$(awk -v x="$s" 'BEGIN { printf "%.6g", x / 2 }')
		fi
	done
	if [ -z "$best" ]; then
		echo "capacity:    $label: no rate tried kept the verdict ok (lowest $r)"
		return 0
	fi
	set -- $best_out
	awk -v l="$label" -v n="$6" -v b="$2" -v g="$4" -v c="$5" -v j="$3" -v ref="$ref" 'BEGIN {
		printf "capacity:    %s: %d endpoints x %.2f Mbit/s = %.2f Gbit/s of injection links,", l, n, b / 1e6, n * b / 1e9
		printf " %.3f Gbit/s carried, %.3f CPU s per emulated GB;", g, c
		printf " Avg.JRT %.6g paper s (%+.1f%% from the first ok rate)\n", j, (j / ref - 1) * 100 }'
}

echo "capacity: all-to-all, verdict ok, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
search "Hx2Mesh-64" scenarios/hxmesh-a2a.yaml
search "leafspine-32" "$TMP/ls.yaml"
