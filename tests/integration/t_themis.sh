#!/bin/bash
# SPDX-License-Identifier: MIT
# Themis's chunked multi-dimensional all-reduce (scenarios/themis-*.yaml): in virtual time the
# S2 sweep (4x2x2, equal bandwidths) gives Themis+SCF a higher utilization than the baseline
# and a shorter all-reduce; emulated, the same platform with real floats (verify: true) under
# the baseline, Themis+FIFO and Themis+SCF: every rank's result right, schedule.json holds each chunk's
# order and each dimension's op order, summary.json's multidim object has the utilization and
# per-dimension activity, and Themis's all-reduce is faster than the baseline's; a
# reduce-scatter and an all-gather alone under Themis+SCF, every node's share right; with a
# ring dimension, its rings run both ways round (every ring link direction equally busy); with
# halving-doubling in the switches, every result right and schedule.json naming it; `testbed
# schedule` prints S3's predicted utilizations.
. "$(dirname "$0")/lib.sh"

"$TB" sim --results "$TB_TMP/sim" scenarios/themis-s2.yaml >"$TB_TMP/sim.log" 2>&1 ||
	{ tail -20 "$TB_TMP/sim.log"; fail "sim themis-s2"; }
sw=$(ls -d "$TB_TMP"/sim/themis-s2/*-sweep)
util() { jq '.multidim[0].utilization' "$1/summary.json"; }
b=$(util "$sw/v0-s0")
t=$(util "$sw/v2-s0")
jq -en "$b > 0 and $t > 1.3 * $b" >/dev/null ||
	fail "virtual time: utilization baseline $b, Themis+SCF $t"
note "virtual time: utilization baseline $b, Themis+SCF $t"
# testbed schedule prints each variant's prediction: S3's 71.4 / 96.2 / 98.0%, the paper's
# algorithm on that platform (bandwidth only)
pred=$("$TB" schedule scenarios/themis-s3.yaml | awk '/^  predicted/ { printf "%s ", $(NF - 4) }')
[ "$pred" = "71.4% 96.2% 98.0% " ] || fail "schedule themis-s3: predicted $pred"
# themis-rsag in virtual time: Themis+SCF's reduce-scatter and all-gather (v2, v5) take under
# half their baselines' time (predicted 0.425, 0.416)
"$TB" sim --results "$TB_TMP/sim" scenarios/themis-rsag.yaml >"$TB_TMP/sim.log" 2>&1 ||
	{ tail -20 "$TB_TMP/sim.log"; fail "sim themis-rsag"; }
sw=$(ls -d "$TB_TMP"/sim/themis-rsag/*-sweep)
for v in 2 5; do
	r=$(jq --argjson v "$v" '.variants[$v].metrics.avg_comm.ratio' "$sw/comparison.json")
	jq -en "$r < 0.5" >/dev/null || fail "virtual time themis-rsag v$v: avg_comm ratio $r"
done

# run TAG SED...: S2 without its sweep, 128 MiB (3.2 MiB emulated) and real floats, edited
run() {
	local n=th$$$1
	shift
	up_edited scenarios/themis-s2.yaml "$n" 1 '/^sweep:/,$d' 's/bytes: 1GiB/bytes: 128MiB/' \
		's/^  iterations: 3/  iterations: 2\n  verify: true/' "$@"
}
run b
base=$RUN_DIR
run f 's/^  schedule: baseline/  schedule: themis\n  intra: fifo/'
fifo=$RUN_DIR
run t 's/^  schedule: baseline/  schedule: themis/'
for d in "$base" "$fifo" "$RUN_DIR"; do
	[ "$(jq -r '.jobs[0].verified' "$d/summary.json")" = true ] || fail "$d: not verified"
	jq -e '.jobs[0].orders | length == 64' "$d/schedule.json" >/dev/null ||
		fail "$d: schedule.json has no 64 chunk orders"
	jq -e '.jobs[0].dim_order | length == 3 and all(length == 128)' "$d/schedule.json" \
		>/dev/null || fail "$d: schedule.json's dimension orders"
	jq -e '.multidim[0].dim_activity | length == 3' "$d/summary.json" >/dev/null ||
		fail "$d: summary.json has no per-dimension activity"
done
ar() { jq '.multidim[0].collective_s' "$1/summary.json"; }
jq -en "$(ar "$RUN_DIR") < $(ar "$base")" >/dev/null ||
	fail "emulated: Themis+SCF $(ar "$RUN_DIR") s, baseline $(ar "$base") s"
note "emulated 128 MiB: all-reduce baseline $(ar "$base") s (utilization $(util "$base")), Themis+FIFO $(ar "$fifo") s ($(util "$fifo")), Themis+SCF $(ar "$RUN_DIR") s ($(util "$RUN_DIR"))"

# a reduce-scatter and an all-gather alone under Themis+SCF: each node's share right, each
# chunk's order three stages long, each dimension 64 operations
for kind in reducescatter allgather; do
	run "${kind:0:1}" 's/^  schedule: baseline/  schedule: themis/' \
		"s/compute: 1ms}/compute: 1ms, collective: $kind}/"
	[ "$(jq -r '.jobs[0].verified' "$RUN_DIR/summary.json")" = true ] || fail "$kind: not verified"
	jq -e --arg k "$kind" '.jobs[0] | .collective == $k and (.orders | length == 64 and
		all(length == 3)) and (.dim_order | all(length == 64))' "$RUN_DIR/schedule.json" \
		>/dev/null || fail "$kind: schedule.json"
	note "emulated 128 MiB $kind, Themis+SCF: $(jq -c '.multidim[0] | [.collective_s, .utilization]' "$RUN_DIR/summary.json")"
done

# dimension 0 as a ring of 4: its all-reduce stages run a ring each way round, so every node
# sends on both of its ring links, about as much on each (links.csv: fabric bytes per link and
# direction), and every rank's result is right
run ring 's/^  schedule: baseline/  schedule: themis/' \
	's/{ type: switch, size: 4, rate: 400Gbit }/{ type: ring, size: 4, rate: 400Gbit }/'
[ "$(jq -r '.jobs[0].verified' "$RUN_DIR/summary.json")" = true ] || fail "ring: not verified"
ids=$(jq -r '[.links[] | select(.dim == 0) | .id] | join(" ")' "$RUN_DIR/topology.json")
read -r lo hi nd < <(awk -F, -v ids="$ids" '
	BEGIN { n = split(ids, a, " "); for (i = 1; i <= n; i++) ring[a[i]] = 1 }
	NR > 1 && ($2 in ring) { b[$2 "," $3] = $4 }
	END { lo = -1; for (k in b) { if (lo < 0 || b[k] < lo) lo = b[k]; if (b[k] > hi) hi = b[k]; c++ }
	      print lo, hi, c }' "$RUN_DIR/links.csv")
[ "$nd" -eq 32 ] || fail "ring: $nd ring link directions in links.csv, not 32 (16 links)"
jq -en "$lo > 0 and $hi < 1.2 * $lo" >/dev/null ||
	fail "ring: bytes per ring link direction from $lo to $hi: not both ways alike"
note "ring dimension, Themis+SCF: verified; every ring link direction carried $lo-$hi bytes; $(jq -c '.multidim[0] | [.collective_s, .utilization]' "$RUN_DIR/summary.json")"

# switch: hd, halving-doubling inside every switch dimension: every rank's result right
run hd 's/^  schedule: baseline/  schedule: themis\n  switch: hd/'
[ "$(jq -r '.jobs[0].verified' "$RUN_DIR/summary.json")" = true ] || fail "switch: hd: not verified"
jq -e '[.jobs[0].dims[].algorithm] == ["hd", "hd", "hd"]' "$RUN_DIR/schedule.json" >/dev/null ||
	fail "switch: hd: schedule.json's dimensions $(jq -c '.jobs[0].dims' "$RUN_DIR/schedule.json")"
note "switch: hd, Themis+SCF: verified; $(jq -c '.multidim[0] | [.collective_s, .utilization]' "$RUN_DIR/summary.json")"
