#!/bin/bash
# SPDX-License-Identifier: MIT
# HammingMesh's all-reduces (scenarios/hxmesh-ar.yaml) on the 4x4 Hx2Mesh: in virtual time
# hx-rings take a quarter of the ring's time and torus2d half; emulated with real floats
# (verify: true), every rank's result right and every flow between neighbours of the logical
# 8x8 torus (ranks row by row).
. "$(dirname "$0")/lib.sh"

"$TB" sim --results "$TB_TMP/sim" scenarios/hxmesh-ar.yaml >"$TB_TMP/sim.log" 2>&1 ||
	{ tail -20 "$TB_TMP/sim.log"; fail "sim hxmesh-ar"; }
sw=$(ls -d "$TB_TMP"/sim/hxmesh-ar/*-sweep)
ratio() { jq --argjson v "$1" '.variants[$v].metrics.avg_comm.ratio' "$sw/comparison.json"; }
jq -en "$(ratio 1) < 0.3 and $(ratio 2) < 0.6" >/dev/null ||
	fail "virtual time: hx-rings $(ratio 1), torus2d $(ratio 2) of the ring's time"
note "virtual time, all-reduce over the ring's: hx-rings $(ratio 1), torus2d $(ratio 2)"

for algo in hx-rings torus2d; do
	up_edited scenarios/hxmesh-ar.yaml "hx$$${algo:0:2}" 1 '/^sweep:/,$d' \
		's/bytes: 1GiB/bytes: 32MiB/' 's/^  iterations: 2/  iterations: 1\n  verify: true/' \
		"s/^  algorithm: hx-rings/  algorithm: $algo/"
	[ "$(jq -r '.jobs[0].verified' "$RUN_DIR/summary.json")" = true ] || fail "$algo: not verified"
	# endpoint e is accelerator (i, j) = (e % 2, e / 2 % 2) of board (e / 4 % 4, e / 16): torus
	# column 2 * bx + i, row 2 * by + j; neighbours share a row (columns 1 or 7 apart) or a
	# column
	awk -F, 'function col(e) { return 2 * (int(e / 4) % 4) + e % 2 }
		function row(e) { return 2 * int(e / 16) + int(e / 2) % 2 }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ a = $c["src_node"] + 0; b = $c["dst_node"] + 0
		  dc = (col(a) - col(b) + 8) % 8; dr = (row(a) - row(b) + 8) % 8
		  if (!((dr == 0 && (dc == 1 || dc == 7)) || (dc == 0 && (dr == 1 || dr == 7)))) bad++ }
		END { exit bad > 0 }' "$RUN_DIR/flows.csv" || fail "$algo: a flow between non-neighbours"
	note "emulated $algo: verified, every flow between torus neighbours"
done
