#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every tests/integration/t_*.sh as root, each under a timeout, and counts
# PASS / FAIL / SKIP (exit 77 = the environment lacks a capability, said by the test).
# Usage: run.sh BUILD_DIR [TEST...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TB_BUILD=$(cd "${1:-build}" && pwd)
shift || true
export TB_ROOT=$(cd "$here/../.." && pwd)
timeout_s=${TB_TEST_TIMEOUT:-300}

tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=("$here"/t_*.sh)

# Only namespaces this run leaves count against it: the tests name their testbeds it<pid>...
# (namespaces tb-it...), and the set present before the run is excluded, so experiments
# running beside the suite on a shared machine do not count.
tb_netns() { ip netns list 2>/dev/null | awk '/^tb-it/ {print $1}' | sort; }
before=$(mktemp)
trap 'rm -f "$before"' EXIT
tb_netns >"$before"

pass=0 fail=0 skip=0 failed=()
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	start=$(date +%s.%N)
	out=$(timeout -s TERM -k 10 "$timeout_s" bash "$t" 2>&1)
	rc=$?
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS %-28s %6.1fs\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'SKIP %-28s %s\n' "$name" "$(printf '%s\n' "$out" | tail -1)" ;;
	*) fail=$((fail + 1)); failed+=("$name")
	   printf 'FAIL %-28s (exit %d)\n' "$name" "$rc"; printf '%s\n' "$out" | tail -25 | sed 's/^/    /' ;;
	esac
	if [ "${TB_VERBOSE:-0}" = 1 ] && [ $rc -ne 77 ]; then printf '%s\n' "$out" | sed 's/^/    /'; fi
done
echo "integration: $pass passed, $fail failed, $skip skipped"
left=$(tb_netns | comm -13 "$before" - | wc -l)
if [ "$left" -gt 0 ]; then
	echo "integration: $left testbed namespaces left behind:"
	tb_netns | comm -13 "$before" - | head -5 | sed 's/^/    /'
	fail=$((fail + 1))
fi
others=$(wc -l <"$before")
[ "$others" -gt 0 ] && echo "integration: note: $others tb-it namespaces existed before the run (not counted)"
[ $fail -eq 0 ]
