#!/bin/bash
# SPDX-License-Identifier: MIT
# What the simulator's physics checks cost (issue 34; sim/phys.c, sim/exec_phys.c): `testbed
# sim` with them (as every run has them; TB_BENCH_UNCHECKED=0, so that both runs have the
# same environment) and without (TB_BENCH_UNCHECKED=1, a switch for this bench only), in
# turn, RUNS times each, on
#   - the vClos paper's CLUSTER512, one run of its sweep (ECMP on the leaf-spine, lambda 120 s:
#     5,000 jobs, 1.8 million refills of small components);
#   - Themis's 3D-FC_Ring_SW, 1,024 NPUs, one 1 GiB all-reduce in 64 chunks (the baseline:
#     5 million flows in few, large refills).
# Prints each pair's wall and CPU times (user + system) and their ratios, then the median
# ratios with their spread, against the target: under 5% of sim wall time on both. The pairs
# run back to back so that both see the same load; on a shared machine wall time swings with
# what else runs, and the CPU time's ratio is the steadier figure of the two.
# Usage: sim_checks.sh BUILD_DIR [RUNS]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
RUNS=${2:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
TMP=$(mktemp -d /tmp/tbchecks.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# run FILE [ENV...]: one `testbed sim` on a settled machine (as sim.sh runs it); prints its
# wall and CPU (user + system) seconds. A breach fails the run: the bench stops and shows it.
run() {
	local file=$1
	shift
	rm -rf "$TMP/r"
	sync
	env "$@" /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$BUILD/testbed" sim --results "$TMP/r" \
		"$file" >/dev/null 2>"$TMP/err" || { tail -3 "$TMP/err" >&2; exit 1; }
	awk '{ printf "%s %.2f", $1, $2 + $3 }' "$TMP/time"
}

# spread WHAT: the median, min and max of the ratios on stdin, against the target
spread() {
	sort -n | awk -v what="$1" '
		{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "    %s with / without: median %.4f (min %.4f, max %.4f): %+.1f%%, " \
				"target < +5%%: %s\n", what, m, v[1], v[NR], 100 * (m - 1),
				m < 1.05 ? "met" : "MISSED"
		}'
}

# least LIST...: the smallest number
least() { printf '%s\n' "$@" | sort -g | head -1; }

# pairs LABEL FILE: RUNS pairs, one after the other, each with and without the checks (which
# goes first alternates); then the ratios' spread, and the fastest run's ratio (the one the
# machine's other work slowed least)
pairs() {
	local label=$1 file=$2 i a b ww cw wo co walls=() cpus=() w1=() w0=() c1=() c0=()
	echo "  $label"
	for i in $(seq "$RUNS"); do
		if [ $((i % 2)) = 1 ]; then
			a=$(run "$file" TB_BENCH_UNCHECKED=0)
			b=$(run "$file" TB_BENCH_UNCHECKED=1)
		else
			b=$(run "$file" TB_BENCH_UNCHECKED=1)
			a=$(run "$file" TB_BENCH_UNCHECKED=0)
		fi
		read -r ww cw <<<"$a"
		read -r wo co <<<"$b"
		w1+=("$ww") w0+=("$wo") c1+=("$cw") c0+=("$co")
		walls+=("$(awk -v a="$ww" -v b="$wo" 'BEGIN { printf "%.4f", a / b }')")
		cpus+=("$(awk -v a="$cw" -v b="$co" 'BEGIN { printf "%.4f", a / b }')")
		printf '    pair %d: wall %.2f / %.2f s = %s, CPU %.2f / %.2f s = %s\n' "$i" "$ww" \
			"$wo" "${walls[-1]}" "$cw" "$co" "${cpus[-1]}"
	done
	printf '%s\n' "${walls[@]}" | spread wall
	printf '%s\n' "${cpus[@]}" | spread CPU
	awk -v a="$(least "${w1[@]}")" -v b="$(least "${w0[@]}")" -v c="$(least "${c1[@]}")" \
		-v d="$(least "${c0[@]}")" 'BEGIN { printf "    fastest with / fastest " \
		"without: wall %.2f / %.2f s = %.4f, CPU %.2f / %.2f s = %.4f\n", a, b, a / b, c,
		d, c / d }'
}

echo "sim checks: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $RUNS pairs each"
sed -e '/^sweep:/,$d' scenarios/paper/vclos-cluster512.yaml >"$TMP/c512.yaml"
pairs "vClos CLUSTER512 (512 GPUs, 5,000 jobs, ECMP, lambda 120 s)" "$TMP/c512.yaml"
sed -e '/^sweep:/,$d' scenarios/paper/themis-3d-fcrs.yaml >"$TMP/fcrs.yaml"
pairs "Themis 3D-FC_Ring_SW (1,024 NPUs, 1 GiB in 64 chunks, baseline)" "$TMP/fcrs.yaml"
