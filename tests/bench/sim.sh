#!/bin/bash
# SPDX-License-Identifier: MIT
# The virtual-time backend's speed (issue 11, acceptance 3): `testbed sim` on
#   - scenarios/sim-512.yaml: 512 GPUs, 300 jobs;
#   - scenarios/paper/vclos-cluster512.yaml, one run of its sweep (ECMP on the leaf-spine,
#     lambda 120 s): the vClos paper's CLUSTER512 with 5,000 jobs (target: under 60 s, and
#     memory under 4 GiB);
#   - scenarios/paper/greedy-2048.yaml: the greedy routing paper's 2,048 NICs with 5 jobs x
#     10 iterations (target: under 60 s), under its greedy controller, under ECMP, and under
#     ECMP with 8 of the 32 spines failed at time 0;
#   - one decision of the greedy controller for that mix's 1,728 commodities, model only
#     (tests/tools/greedy_time; target: under 1 ms, the paper's roughly 10 ms beside it);
#   - TACOS-Greedy synthesis on an 8x8 mesh and a 512-NPU Ring_FC_Switch (tests/tools/tacos_time,
#     the paper's 6.09 minutes beside it);
#   - Themis's six 1,024-NPU platforms (Table 2), one 1 GiB all-reduce in 64 chunks each under
#     the baseline and under Themis+SCF (scenarios/paper/themis-*.yaml; target: under 10 s).
# Prints each run's events per second, wall time and peak memory against the targets.
# Usage: sim.sh BUILD_DIR
set -eu
BUILD=$(cd "${1:-build}" && pwd)
TMP=$(mktemp -d /tmp/tbsim.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# run LABEL FILE [WALL_TARGET_S]: one `testbed sim`, its figures on two lines. Each starts on a
# settled machine: the previous run's results (hundreds of MB of CSV at paper scale) removed
# and whatever else is dirty written out, so that the kernel's writeback of earlier runs does
# not take a core during this one.
run() {
	local label=$1 file=$2 target=${3:-} wall kb
	rm -rf "$TMP/r"
	sync
	/usr/bin/time -f '%e %M' -o "$TMP/time" "$BUILD/testbed" sim --results "$TMP/r" \
		"$file" >/dev/null 2>"$TMP/err" || { tail "$TMP/err"; exit 1; }
	read -r wall kb <"$TMP/time"
	grep '^testbed sim: [0-9]* events' "$TMP/err" | sed 's/^testbed sim: /  /'
	printf '  %s: %.2f s wall%s, peak memory %.0f MiB (target < 4096)\n' "$label" "$wall" \
		"${target:+ (target < $target)}" "$(echo "$kb / 1024" | bc -l)"
}

run "sim-512 (512 GPUs, 300 jobs)" scenarios/sim-512.yaml
# one run of the sweep: ECMP on the leaf-spine at lambda 120 s
sed -e '/^sweep:/,$d' scenarios/paper/vclos-cluster512.yaml >"$TMP/c512.yaml"
run "vClos CLUSTER512 (512 GPUs, 5,000 jobs, ECMP, lambda 120 s)" "$TMP/c512.yaml" 60
# the greedy routing paper's cluster: the greedy controller, then ECMP with 32 spines and with
# 8 of them failed at time 0 (rerouted)
sed -e '/^sweep:/,$d' scenarios/paper/greedy-2048.yaml >"$TMP/g2048.yaml"
run "greedy routing, 2,048 NICs, 5 jobs x 10 iterations, greedy controller" "$TMP/g2048.yaml" 60
sed -i 's/^  policy: greedy/  policy: ecmp/' "$TMP/g2048.yaml"
run "the same under ECMP" "$TMP/g2048.yaml" 60
{
	cat "$TMP/g2048.yaml"
	echo "failures:"
	for s in 24 25 26 27 28 29 30 31; do echo "  - {at: 0s, node: s$s}"; done
} >"$TMP/g2048f.yaml"
run "the same, spines s24-s31 failed at time 0" "$TMP/g2048f.yaml" 60
# one decision of the controller, model only (greedy routing §5.3: "roughly 10 ms")
"$BUILD/tools/greedy_time" | sed 's/^/  /'
# TACOS-Greedy synthesis of an all-gather, 64 and 512 NPUs (TACOS Table I: 6.09 min at 512)
"$BUILD/tools/tacos_time" | sed 's/^/  /'
# Themis's six paper-scale platforms: one all-reduce per run, the sweep's baseline, then SCF
for p in 2d-swsw 3d-homo 3d-het 3d-fcrs 4d-rsss 4d-rfrs; do
	sed -e '/^sweep:/,$d' "scenarios/paper/themis-$p.yaml" >"$TMP/t.yaml"
	run "Themis $p, 1,024 NPUs, 1 GiB in 64 chunks, baseline" "$TMP/t.yaml" 10
	sed -i 's/^  schedule: baseline/  schedule: themis\n  intra: scf/' "$TMP/t.yaml"
	run "the same under Themis+SCF" "$TMP/t.yaml" 10
done
