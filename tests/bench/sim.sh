#!/bin/bash
# SPDX-License-Identifier: MIT
# The virtual-time backend's speed (issue 11, acceptance 3, so far): scenarios/sim-512.yaml,
# 512 GPUs and 300 jobs, run by `testbed sim`; prints its events per second, wall time and
# peak memory. The paper-scale targets (CLUSTER512 with 5,000 jobs under 60 s, memory under
# 4 GiB) need their scenarios, which do not exist yet: this line is the engine's figure.
# Usage: sim.sh BUILD_DIR
set -eu
BUILD=$(cd "${1:-build}" && pwd)
TMP=$(mktemp -d /tmp/tbsim.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/time -f '%e %M' -o "$TMP/time" "$BUILD/testbed" sim --results "$TMP/r" \
	scenarios/sim-512.yaml >/dev/null 2>"$TMP/err" || { tail "$TMP/err"; exit 1; }
read -r wall kb <"$TMP/time"
grep '^testbed sim: [0-9]* events' "$TMP/err" | sed 's/^testbed sim: /  /'
printf '  sim-512 (512 GPUs, 300 jobs): %.2f s wall, peak memory %.0f MiB\n' "$wall" \
	"$(echo "$kb / 1024" | bc -l)"
