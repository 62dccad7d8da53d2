#!/bin/bash
# SPDX-License-Identifier: MIT
# A wrong result fails its job and the run (issue 34): with verify on and the test-only fault
# switch (TESTBED_TEST_VERIFY_FAULT=0: the last rank of job 0 adds one to one element of its
# result), job 0 fails naming the rank, the chunk, the element, the value found and the one
# expected; job 1 verifies; `up` exits 1 and its last lines name job 0. Without the switch
# the same file exits 0 with both jobs verified.
#
#      s0
#   l0    l1        job 0 on h0..h3, job 1 on h4..h7 (placement: first free)
#  h0-h3 h4-h7
. "$(dirname "$0")/lib.sh"
n=it$$q
f=$TB_TMP/$n.yaml
cat >"$f" <<YAML
name: $n
topology: { kind: leafspine, hosts_per_leaf: 4, leaves: 2, spines: 1, host_rate: 500Mbit }
workload:
  verify: true
  iterations: 2
  jobs:
    - { gpus: 4, bytes: 1MiB, compute: 1ms }
    - { gpus: 4, bytes: 1MiB, compute: 1ms }
YAML
TB_NAMES+=("$n")

rc=0
TESTBED_TEST_VERIFY_FAULT=0 "$TB" up --results "$TB_TMP/bad" "$f" >"$TB_TMP/bad.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "up exited $rc with a wrong result, not 1: $(tail -5 "$TB_TMP/bad.log")"
tail -2 "$TB_TMP/bad.log" |
	grep -Eq 'job 0 .* failed: .*verify: rank 3, chunk [0-9]+ of 4, element [0-9]+: found [0-9.]+, expected [0-9.]+' ||
	fail "the last lines do not name job 0's wrong element: $(tail -5 "$TB_TMP/bad.log")"
jobs=$(ls "$TB_TMP"/bad/"$n"/*/jobs.csv)
awk -F, '$1 == 0' "$jobs" | grep -q ',failed,' || fail "job 0 is not failed: $(cat "$jobs")"
awk -F, '$1 == 1' "$jobs" | grep -q ',ok,1,' || fail "job 1 is not ok and verified: $(cat "$jobs")"
no_leftovers "$n"
note "$(tail -1 "$TB_TMP/bad.log")"

rc=0
"$TB" up --results "$TB_TMP/good" "$f" >"$TB_TMP/good.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "up exited $rc without the fault: $(tail -5 "$TB_TMP/good.log")"
jobs=$(ls "$TB_TMP"/good/"$n"/*/jobs.csv)
[ "$(grep -c ',ok,1,' "$jobs")" = 2 ] || fail "both jobs should verify: $(cat "$jobs")"
no_leftovers "$n"
