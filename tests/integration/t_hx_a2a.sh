#!/bin/bash
# SPDX-License-Identifier: MIT
# All-to-all on a HammingMesh through the workload runner (the small, correctness version of
# tests/bench/hx_a2a.sh): the 16-accelerator Hx2Mesh of scenarios/hxmesh-16.yaml with the
# transport and queues of scenarios/hxmesh-a2a.yaml at 10 Mbit/s per link runs one `direct`
# all-to-all of 16 ranks. The job finishes, every one of the 16 x 15 blocks arrives, and the
# fraction of injection bandwidth it reaches (HammingMesh §V-A1: (N-1) block 8 / T / 4R) lies
# between a third of the fluid prediction `testbed check` prints and that prediction itself:
# above it would mean bytes counted twice or a link running faster than shaped.
#
#   board (0,0)        board (1,0)
#   a0-0 -- a1-0  r0  a2-0 -- a3-0      r<row>, c<col>: one switch per accelerator row and
#    |        |        |        |       column, joining the boards' W/E and N/S edges
#   a0-1 -- a1-1  r1  a2-1 -- a3-1      (and board row 1: a*-2, a*-3)
. "$(dirname "$0")/lib.sh"
n=it$$x
f=$(scenario_as scenarios/hxmesh-16.yaml "$n")
cat >>"$f" <<EOF
shaping: { ack_priority: false, queue: 512KB }
transport: { window: 32KiB }
emulation: { rate_scale: 0.01 }
workload:
  jobs:
    - { gpus: 16, collective: alltoall, algorithm: direct, group: 8, bytes: 4MiB,
        compute: 1us, iterations: 1 }
EOF
check=$("$TB" check "$f")
fluid=$(echo "$check" | awk '/^alltoall/ { print $2 }')
echo "$check" | grep -q "^rate       10Mbit" || fail "expected 10 Mbit/s links: $check"
tb_up "$f" "$n"
run=$(ls -d "$TB_TMP/results/$n"/*)
grep -q '^0,custom,16,alltoall,direct,1,4194304,.*,ok,' "$run/jobs.csv" ||
	fail "the job did not finish: $(cat "$run/jobs.csv")"
blocks=$(awk -F, 'NR > 1 && $11 != "" && $9 == 262144' "$run/flows.csv" | wc -l)
[ "$blocks" -eq 240 ] || fail "$blocks of 240 blocks arrived"
frac=$(awk -F, 'NR > 1 { if (!s || $5 < s) s = $5; if ($6 > e) e = $6 }
	END { printf "%.3f", 15 * 262144 * 8 / ((e - s) / 1e9) / 40e6 }' "$run/iterations.csv")
note "all-to-all of 16: $frac of injection bandwidth, fluid prediction $fluid"
awk -v f="$frac" -v p="$fluid" 'BEGIN { exit !(f > p / 3 && f <= p) }' ||
	fail "fraction $frac outside ($fluid / 3, $fluid]"
# transport.window stands in for a lossless fabric's credits: the endpoints send no tail loss
# probes (fabric.c), which fired spuriously behind the queues, so what TCP retransmits is
# what the queues dropped (a segment each, and a few more for a timeout's burst)
read -r rtx drops <<<"$(jq -r '.fidelity.transport | "\(.retrans_segs) \(.drops)"' "$run/summary.json")"
note "retransmitted $rtx segments, $drops drops"
((rtx <= 4 * drops + 8)) || fail "retransmitted $rtx segments for $drops drops"
no_leftovers "$n"
