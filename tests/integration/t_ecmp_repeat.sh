#!/bin/bash
# SPDX-License-Identifier: MIT
# ECMP outcomes repeat with the seed: the same two 8-GPU jobs (random placement, fixed
# scheduler seed) run twice on the same leaf-spine with the same routing seed, and every
# leaf-to-spine direction carries the same share of the uplink bytes both times. emu-node
# binds each connection's source port from (job, rank, peer) (emu-node/ctl.h, ctl_sport), so
# the switches hash the same 5-tuples; with kernel-chosen ports the spread would change run
# to run. A third run with another routing seed is printed beside them.
#
#        s0   s1   s2   s3
#       (every leaf to every spine, 100 Mbit/s after rate_scale)
#     l0    l1    l2    l3
#   h0-h3 h4-h7 h8-h11 h12-h15      two 8-GPU ring all-reduce jobs
. "$(dirname "$0")/lib.sh"

# run TAG SEED: the leaf-spine variant of sweep-ecmp-best.yaml with routing.seed SEED;
# its results folder is left in $RUN_DIR. (Not in a subshell: names reach the cleanup trap.)
run() {
	local n=it$$e$1 f
	f=$(scenario_as scenarios/sweep-ecmp-best.yaml "$n" '/^sweep:/,$d' \
		"s/^  seed: 1$/  seed: $2/")
	TB_NAMES+=("$n")
	"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/$n.log" 2>&1 || { tail -20 "$TB_TMP/$n.log" >&2; fail "run $n"; }
	grep -c ',ok,' "$(ls -d "$TB_TMP"/results/"$n"/*)/jobs.csv" | grep -qx 2 ||
		fail "$n: not every job finished"
	no_leftovers "$n"
	RUN_DIR=$(ls -d "$TB_TMP"/results/"$n"/*)
}

# shares DIR: "link:dir share" of every leaf-to-spine direction's bytes over all of them
shares() {
	local ids
	ids=$(jq -r '.links[] | . as $l | [0, 1][] as $d
		| select(($l.ends[$d].node | test("^l")) and ($l.ends[1 - $d].node | test("^s")))
		| "\($l.id):\($d)"' "$1/topology.json")
	awk -F, -v ids="$ids" 'BEGIN { n = split(ids, a, "\n"); for (i = 1; i <= n; i++) up[a[i]] = 1 }
		NR > 1 && ($2 ":" $3) in up { k = $2 ":" $3; if (!(k in lo)) lo[k] = $4; hi[k] = $4 }
		END { for (k in lo) t += hi[k] - lo[k]
			for (k in lo) printf "%s %.4f\n", k, t ? (hi[k] - lo[k]) / t : 0 }' "$1/links.csv" |
		sort
}

run a 1
sa=$(shares "$RUN_DIR")
run b 1
sb=$(shares "$RUN_DIR")
run c 2
sc=$(shares "$RUN_DIR")
[ "$(echo "$sa" | wc -l)" -eq 16 ] || fail "expected 16 leaf-to-spine directions: $sa"
note "uplink byte shares, link:dir  seed 1 | seed 1 again | seed 2"
paste <(echo "$sa") <(echo "$sb" | cut -d' ' -f2) <(echo "$sc" | cut -d' ' -f2) |
	while read -r k a b c; do note "  $k  $a | $b | $c"; done
# Each direction within 1 point of the bytes: what a retransmission or two moves.
diff=$(paste <(echo "$sa") <(echo "$sb") | awk '{ d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d }
	END { printf "%.4f", m }')
note "largest difference between the two seed-1 runs: $diff of the uplink bytes"
awk -v d="$diff" 'BEGIN { exit !(d <= 0.01) }' || fail "the same seed spread the bytes differently"
