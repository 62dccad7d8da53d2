#!/bin/bash
# SPDX-License-Identifier: MIT
# A sweep's runs at once in virtual time (issue 38): `testbed sim -j 2` runs
# scenarios/greedy-toy.yaml's 21 runs two at a time, each in a process of its own, and writes
# the same records as `-j 1` (every CSV but cpu.csv, and routing.csv but its decision times,
# which are measured), the same sweep.json and the same comparison; the default is the
# machine's cores; `testbed up -j 2` is refused (an emulated run owns the machine), and so
# are -j values that are not a count.
. "$(dirname "$0")/lib.sh"
s=scenarios/greedy-toy.yaml
t0=$(date +%s%N)
"$TB" sim -q -j 1 --results "$TB_TMP/j1" $s >"$TB_TMP/j1.out" 2>&1 || fail "sim -j 1: $(tail -3 "$TB_TMP/j1.out")"
t1=$(date +%s%N)
"$TB" sim -j 2 --results "$TB_TMP/j2" $s >"$TB_TMP/j2.out" 2>&1 || fail "sim -j 2: $(tail -3 "$TB_TMP/j2.out")"
t2=$(date +%s%N)
grep -q "21 runs\|2 runs at once" "$TB_TMP/j2.out" || fail "sim -j 2 does not say it runs 2 at once: $(head -3 "$TB_TMP/j2.out")"
a=$(ls -d "$TB_TMP"/j1/*/*-sweep) b=$(ls -d "$TB_TMP"/j2/*/*-sweep)
n=$(same_records "$a" "$b" "-j 2 against -j 1") || exit 1
[ "$n" -ge 80 ] || fail "only $n record files compared"
[ "$(jq -c '[.runs[] | [.dir, .status]]' "$a/sweep.json")" = "$(jq -c '[.runs[] | [.dir, .status]]' "$b/sweep.json")" ] ||
	fail "sweep.json: the runs differ"
[ "$(jq '[.runs[] | select(.status == "ok")] | length' "$b/sweep.json")" = 21 ] || fail "-j 2: not 21 runs ok"
cmp -s <(sed 1d "$a/comparison.txt") <(sed 1d "$b/comparison.txt") || fail "-j 2: the comparison differs"
note "greedy-toy, 21 runs: -j 1 $(((t1 - t0) / 1000000)) ms, -j 2 $(((t2 - t1) / 1000000)) ms; $n record files identical"

# the default: the machine's cores
"$TB" sim --results "$TB_TMP/jd" $s >"$TB_TMP/jd.out" 2>&1 || fail "sim: $(tail -3 "$TB_TMP/jd.out")"
cores=$(nproc)
if [ "$cores" -gt 1 ]; then
	grep -q ", $cores runs at once" "$TB_TMP/jd.out" || fail "default -j is not $cores: $(grep sweep "$TB_TMP/jd.out")"
fi

for bad in 0 x -3 257; do
	rc=0
	out=$("$TB" sim -j "$bad" $s 2>&1) || rc=$?
	[ "$rc" = 2 ] || fail "sim -j $bad: exit $rc, not 2"
	echo "$out" | grep -q -- "--jobs: expected 1 to 256 runs at once" || fail "sim -j $bad: $out"
done
rc=0
out=$("$TB" up -j 2 $s 2>&1) || rc=$?
[ "$rc" = 2 ] || fail "up -j 2: exit $rc, not 2"
echo "$out" | grep -q "emulated runs go one at a time" || fail "up -j 2: $out"
