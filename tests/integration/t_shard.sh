#!/bin/bash
# SPDX-License-Identifier: MIT
# A sweep cut into shards (issue 38): scenarios/sweep-baseline.yaml's 12 runs in virtual time
# as `testbed sim --shard 1/3` .. `3/3` into one results folder, then `testbed report` on it,
# give the comparison (comparison.txt and .json), sweep.json and every record of the sweep run
# whole, byte for byte but for measured wall times (routing.csv's decision time, cpu.csv, and
# summary.json's decision times); report names a shard that has not run and its runs (exit
# 1); a shard run again, or a folder holding another cut, is refused; a scenario of one run
# runs in one shard only; `testbed up --shard` does the same emulated; a reproduction in 2
# shards is merged by report, which names the one missing; --shard values that are not I/N
# are refused (exit 2).
. "$(dirname "$0")/lib.sh"
s=scenarios/sweep-baseline.yaml
"$TB" sim -q -j 1 --results "$TB_TMP/whole" $s >"$TB_TMP/whole.out" 2>&1 || fail "sim: $(tail -3 "$TB_TMP/whole.out")"
for i in 1 2 3; do
	j=1
	[ $i = 2 ] && j=2 # a shard's runs at once too
	"$TB" sim -j $j --shard $i/3 --results "$TB_TMP/cut" $s >"$TB_TMP/s$i.out" 2>&1 ||
		fail "sim --shard $i/3: $(tail -3 "$TB_TMP/s$i.out")"
	grep -q "shard $i/3: [0-9]* of its 12 runs" "$TB_TMP/s$i.out" || fail "shard $i/3 does not say its runs: $(head -2 "$TB_TMP/s$i.out")"
done
a=$(ls -d "$TB_TMP"/whole/*/*-sweep) b=$(ls -d "$TB_TMP"/cut/*/sweep)
[ ! -e "$b/comparison.txt" ] || fail "a shard wrote the comparison"
[ ! -e "$b/sweep.json" ] || fail "a shard wrote sweep.json"
for i in 1 2 3; do
	k=$(jq '[.runs[] | select(.status == "ok")] | length' "$b/shard-$i-of-3.json")
	[ "$k" = 4 ] || fail "shard $i/3 ran $k runs, not 4 of 12"
done
"$TB" report "$b" >"$TB_TMP/report.out" 2>&1 || fail "report: $(tail -3 "$TB_TMP/report.out")"
cmp "$a/comparison.txt" "$b/comparison.txt" || fail "comparison.txt differs from the whole sweep's"
cmp "$a/comparison.json" "$b/comparison.json" || fail "comparison.json differs from the whole sweep's"
cmp "$a/sweep.json" "$b/sweep.json" || fail "sweep.json differs from the whole sweep's"
n=$(same_records "$a" "$b" "3 shards against the whole sweep") || exit 1
[ "$n" -ge 48 ] || fail "only $n record files compared (4 a run expected)"
for f in $(cd "$a" && find . -name summary.json | sort); do
	cmp -s <(jq 'del(.. | .decide_ms_mean?, .decide_ms_max?)' "$a/$f") \
		<(jq 'del(.. | .decide_ms_mean?, .decide_ms_max?)' "$b/$f") || fail "$f differs"
done

# a shard missing: named, with its runs, and the command fails
cp -r "$b" "$TB_TMP/gap"
rm "$TB_TMP/gap/shard-2-of-3.json" "$TB_TMP/gap/sweep.json"
rc=0
"$TB" report "$TB_TMP/gap" >"$TB_TMP/gap.out" 2>"$TB_TMP/gap.err" || rc=$?
[ $rc = 1 ] || fail "report without shard 2: exit $rc, not 1"
grep -q "4 runs missing.*shard 2/3 wrote no shard-2-of-3.json: 4 runs (v" "$TB_TMP/gap.err" || fail "report: $(cat "$TB_TMP/gap.err")"
[ "$(jq '[.runs[] | select(.status == "pending")] | length' "$TB_TMP/gap/sweep.json")" = 4 ] || fail "gap: sweep.json not 4 pending"
grep -q "pending" "$TB_TMP/gap/comparison.txt" || fail "gap: the comparison does not list the runs missing"

# run again, or cut otherwise, into the same folder: refused
rc=0
out=$("$TB" sim --shard 1/3 --results "$TB_TMP/cut" $s 2>&1) || rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "is there already\|exists" || fail "shard 1/3 again: exit $rc: $out"
rc=0
out=$("$TB" sim --shard 1/4 --results "$TB_TMP/cut" $s 2>&1) || rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "cut into 3 shards" || fail "--shard 1/4 over 3 shards: exit $rc: $out"

# one run: one shard runs it, the others say so
one=scenarios/quickstart.yaml
ran=0
for i in 1 2; do
	"$TB" sim --shard $i/2 --results "$TB_TMP/one" $one >"$TB_TMP/one$i.out" 2>&1 || fail "one run, shard $i/2: $(tail -3 "$TB_TMP/one$i.out")"
	grep -q "nothing to do here" "$TB_TMP/one$i.out" || ran=$((ran + 1))
done
[ $ran = 1 ] || fail "one run: $ran shards of 2 ran it"
[ -s "$TB_TMP/one/quickstart/run/summary.json" ] || fail "one run: no run/summary.json ($(ls -R "$TB_TMP/one" | head -5))"

for bad in 0/3 4/3 x 1/0 3 1/ /2 -1/2 1/-2 1/20000; do
	rc=0
	out=$("$TB" sim --shard "$bad" $s 2>&1) || rc=$?
	[ "$rc" = 2 ] || fail "sim --shard $bad: exit $rc, not 2"
	echo "$out" | grep -q -- "--shard: expected I/N" || fail "sim --shard $bad: $out"
done
rc=0
out=$("$TB" up --keep --shard 1/2 $s 2>&1) || rc=$?
[ "$rc" = 2 ] || fail "up --keep --shard: exit $rc, not 2: $out"
# emulated: scenarios/msccl-mesh.yaml's 2 runs as `testbed up --shard 1/2` and `2/2`
for i in 1 2; do
	"$TB" up --shard $i/2 --results "$TB_TMP/emu" scenarios/msccl-mesh.yaml >"$TB_TMP/emu$i.out" 2>&1 ||
		fail "up --shard $i/2: $(tail -3 "$TB_TMP/emu$i.out")"
	grep -q "shard $i/2: 1 of its 2 runs" "$TB_TMP/emu$i.out" || fail "up --shard $i/2: $(head -3 "$TB_TMP/emu$i.out")"
done
"$TB" report "$TB_TMP/emu/msccl-mesh/sweep" >"$TB_TMP/emu.out" 2>&1 || fail "report of up's shards: $(tail -3 "$TB_TMP/emu.out")"
[ "$(jq '[.runs[] | select(.status == "ok")] | length' "$TB_TMP/emu/msccl-mesh/sweep/sweep.json")" = 2 ] ||
	fail "up's shards: not 2 runs ok"
[ "$(ip netns list | grep -c '^tb-')" = 0 ] || fail "up --shard left namespaces"

# a reproduction (two papers) in 2 shards: with one run, report names the other and marks what it lacks
rc=0
out=$("$TB" reproduce --sim --quick --shard 1/2 2>&1) || rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "give --results DIR" || fail "reproduce --shard without --results: exit $rc: $out"
"$TB" reproduce --sim --quick --shard 1/2 --results "$TB_TMP/rep" tacos themis >"$TB_TMP/rep1.out" 2>&1 || fail "reproduce --shard 1/2: $(tail -3 "$TB_TMP/rep1.out")"
grep -q "shard 1/2 done" "$TB_TMP/rep1.out" || fail "reproduce --shard 1/2: $(tail -3 "$TB_TMP/rep1.out")"
rc=0
"$TB" report "$TB_TMP/rep" >"$TB_TMP/rep.out" 2>"$TB_TMP/rep.err" || rc=$?
[ $rc = 1 ] || fail "report of half a reproduction: exit $rc, not 1"
grep -q "shard 2/2 wrote no reproduce-shard-2-of-2.json" "$TB_TMP/rep.err" || fail "report: $(cat "$TB_TMP/rep.err")"
grep -q "runs missing (their shard has not run)" "$TB_TMP/rep/report.md" || fail "report.md does not mark the runs missing"
rc=0
out=$("$TB" reproduce --sim --quick --shard 2/3 --results "$TB_TMP/rep" tacos themis 2>&1) || rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "cut otherwise" || fail "reproduce --shard 2/3 over 2 shards: exit $rc: $out"
"$TB" reproduce --sim --quick --shard 2/2 --results "$TB_TMP/rep" tacos themis >"$TB_TMP/rep2.out" 2>&1 || fail "reproduce --shard 2/2: $(tail -3 "$TB_TMP/rep2.out")"
"$TB" report "$TB_TMP/rep" >"$TB_TMP/rep.out" 2>&1 || fail "report of the whole reproduction: $(tail -3 "$TB_TMP/rep.out")"
! grep -q "missing\|not run" "$TB_TMP/rep/report.md" || fail "report.md still has runs missing"
[ "$(grep -c ' runs ok | ' "$TB_TMP/rep/report.md")" = 2 ] || fail "report.md: not 2 scenarios ok: $(grep '^| ' "$TB_TMP/rep/report.md" | head -8)"

note "sweep-baseline, 12 runs in 3 shards: comparison, sweep.json and $n record files identical to the whole sweep's"
