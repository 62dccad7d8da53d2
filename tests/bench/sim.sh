#!/bin/bash
# SPDX-License-Identifier: MIT
# The virtual-time backend's speed (issue 11, acceptance 3): `testbed sim` on
#   - scenarios/sim-512.yaml: 512 GPUs, 300 jobs;
#   - scenarios/paper/vclos-cluster512.yaml, one run of its sweep (ECMP on the leaf-spine,
#     lambda 120 s): the vClos paper's CLUSTER512 with 5,000 jobs (target: under 60 s, and
#     memory under 4 GiB).
# Prints each run's events per second, wall time and peak memory against the targets.
# Usage: sim.sh BUILD_DIR
set -eu
BUILD=$(cd "${1:-build}" && pwd)
TMP=$(mktemp -d /tmp/tbsim.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# run LABEL FILE [WALL_TARGET_S]: one `testbed sim`, its figures on two lines
run() {
	local label=$1 file=$2 target=${3:-} wall kb
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
