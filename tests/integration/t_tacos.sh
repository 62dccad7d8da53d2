#!/bin/bash
# SPDX-License-Identifier: MIT
# TACOS-synthesized collectives (scenarios/tacos-mesh.yaml): in virtual time the 4x4 mesh
# sweep gives the synthesized all-reduce a shorter time than the ring's, also with two NPUs
# failed; emulated, the all-reduce, all-gather and reduce-scatter with real floats (verify:
# true), every rank's result right, every send between neighbours, the synthesis kept in the
# results folder; the direct all-reduce baseline with real floats; `testbed schedule`.
. "$(dirname "$0")/lib.sh"

"$TB" sim --results "$TB_TMP/sim" scenarios/tacos-mesh.yaml >"$TB_TMP/sim.log" 2>&1 ||
	{ tail -20 "$TB_TMP/sim.log"; fail "sim tacos-mesh"; }
sw=$(ls -d "$TB_TMP"/sim/tacos-mesh/*-sweep)
comm() { jq --argjson v "$1" '.variants[$v].metrics.avg_comm.value' "$sw/comparison.json"; }
jq -en "$(comm 3) < $(comm 0)" >/dev/null ||
	fail "virtual time: TACOS all-reduce $(comm 3) s, ring $(comm 0) s"
note "virtual time 4x4 mesh all-reduce: ring $(comm 0) s, hd $(comm 1) s, direct $(comm 2) s, TACOS $(comm 3) s"
# the mesh without NPUs 6 and 8 (TACOS Table III): TACOS completes over the 14 and beats the ring
"$TB" sim --results "$TB_TMP/simf" scenarios/tacos-fail.yaml >"$TB_TMP/simf.log" 2>&1 ||
	{ tail -20 "$TB_TMP/simf.log"; fail "sim tacos-fail"; }
sw=$(ls -d "$TB_TMP"/simf/tacos-fail/*-sweep)
jq -en "$(comm 2) < $(comm 0)" >/dev/null ||
	fail "virtual time, failed NPUs: TACOS all-reduce $(comm 2) s, ring $(comm 0) s"
note "virtual time, 4x4 mesh without NPUs 6 and 8: ring $(comm 0) s, direct $(comm 1) s, TACOS $(comm 2) s"

# run TAG KIND [ALGORITHM]: the mesh without its sweep, 256 MiB (2 MiB emulated), real floats
run() {
	up_edited scenarios/tacos-mesh.yaml "ta$$$1" 1 '/^sweep:/,$d' 's/bytes: 1GiB/bytes: 256MiB/' \
		's/^  iterations: 3/  iterations: 2\n  verify: true/' \
		"s/compute: 1ms}/compute: 1ms, collective: $2}/" "s/^  algorithm: tacos/  algorithm: ${3:-tacos}/"
	[ "$(jq -r '.jobs[0].verified' "$RUN_DIR/summary.json")" = true ] ||
		fail "${3:-tacos} $2: not verified"
	[ "${3:-tacos}" = tacos ] || return 0
	[ -s "$RUN_DIR/tacos-0.txt" ] || fail "$2: no tacos-0.txt"
	grep -q '^tacos 1 16 1 ' "$RUN_DIR/tacos-0.txt" || fail "$2: tacos-0.txt header"
	# every flow between mesh neighbours: endpoints (NPU ids) differ by 1 in a row or by 4 in a
	# column
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ a = $c["src_node"] + 0; b = $c["dst_node"] + 0; d = a > b ? a - b : b - a
		  if (!((d == 1 && int(a / 4) == int(b / 4)) || d == 4)) bad++ }
		END { exit bad > 0 }' "$RUN_DIR/flows.csv" || fail "$2: a flow between non-neighbours"
	note "emulated $2: $(jq -c '[.jobs[0].comm_paper_s, .fidelity.verdict]' "$RUN_DIR/summary.json")"
}
run r allreduce
run g allgather
run s reducescatter
run d allreduce direct # the paper's Direct baseline, every part straight to its NPU

# testbed schedule (no root): every variant of the 4x4 mesh; the synthesized all-reduce's
# alpha-beta time is its synthesized time (one link per pair, messages between neighbours)
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" schedule scenarios/tacos-mesh.yaml) ||
	fail "testbed schedule tacos-mesh"
[ "$(echo "$out" | grep -c '^job 0: allreduce of 1GiB per rank')" = 4 ] || fail "schedule: $out"
echo "$out" | awk '/algorithm tacos/ { t = 1 } t && /alpha-beta/ { a = $2; s = $(NF - 1) }
	END { exit !(a > 0 && a == s) }' || fail "schedule: TACOS alpha-beta $out"
rc=0
"$TB" schedule --job 1 scenarios/tacos-mesh.yaml >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "schedule --job 1 of one job: exit $rc, want 2"

# MSCCL out and in: the 4x4 mesh's TACOS all-reduce as `testbed schedule --msccl` writes it,
# run back as algorithm msccl with real floats (every rank's result right)
mkdir -p "$TB_TMP/msccl"
"$TB" schedule --job 0 --msccl "$TB_TMP/msccl" scenarios/tacos-mesh.yaml >/dev/null ||
	fail "schedule --msccl tacos-mesh"
cmp -s "$TB_TMP/msccl/tacos-mesh-v3-job0.xml" scenarios/msccl/tacos-mesh4x4.xml ||
	fail "the exported TACOS all-reduce differs from scenarios/msccl/tacos-mesh4x4.xml"
up_edited scenarios/msccl-mesh.yaml "ms$$" 1 '/^sweep:/,$d' 's/bytes: 1GiB/bytes: 256MiB/' \
	's/^  iterations: 3/  iterations: 2\n  verify: true/' \
	"s|file: scenarios/msccl/tacos-mesh4x4.xml|file: $TB_TMP/msccl/tacos-mesh-v3-job0.xml|"
[ "$(jq -r '.jobs[0].verified' "$RUN_DIR/summary.json")" = true ] || fail "msccl: not verified"
note "emulated MSCCL import of the TACOS all-reduce: verified"
