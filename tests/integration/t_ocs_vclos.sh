#!/bin/bash
# SPDX-License-Identifier: MIT
# OCS-vClos (scenarios/ocs-vclos-small.yaml): 4 leaves of 2 servers x 2 GPUs, 2 spines, 4
# OCSes between them, each leaf with two circuits to each spine at `up`.
#
#   h0..h3   h4..h7   h8..h11  h12..h15
#     l0       l1       l2       l3
#      \\\\     ||||     ||||     ////      one port per leaf on each of o0..o3
#        o0    o1    o2    o3               (circuits, rewired at run time)
#         \\   //    \\   //
#           s0          s1                  two ports per spine on each OCS
#
# Job 0 (8 GPUs, halving-doubling) fits no leaf and no virtual Clos of these circuits: it gets
# two leaves' idle servers and eight circuits to one spine, four of them rewired for it
# (dark for topology.ocs.delay, 50 ms, which it waits for). Emulated: every job ok with its
# reduced values verified, summary.json counts the rewire, failures.csv has it with its job,
# its dark time (50-60 ms) and its routes; job 0 waited at least that long; and every job's
# all-reduce time is within 10% of the one-switch best topology's (an attempt out of bounds
# run again, up to three times); and at every routing
# decision no switch-to-switch link direction carries two connections, each traced with its
# tag and source port as the kernel forwards it (isolation).
. "$(dirname "$0")/lib.sh"

# run NAME SED...: the scenario edited, run, every job ok and verified; results in RUN_DIR
run() {
	local n=$1
	shift
	up_edited scenarios/ocs-vclos-small.yaml "$n" 4 "$@"
	[ "$(awk -F, 'NR > 1 && $13 == 1' "$RUN_DIR/jobs.csv" | wc -l)" -eq 4 ] ||
		fail "$n: not every job verified: $(cat "$RUN_DIR/jobs.csv")"
}
avg_comm() { jq '[.jobs[].comm_paper_s] | add / length' "$1/summary.json"; }

# one attempt: OCS-vClos and the best topology, each run once; false if OCS-vClos's all-reduce
# took more than 10% longer (both runs' other checks must hold every time)
attempt() {
	run ov$$$1
	ov=$RUN_DIR
	[ "$(jq .scheduler.rewires "$ov/summary.json")" -ge 1 ] ||
		fail "no rewire counted: $(jq -c .scheduler "$ov/summary.json")"
	row=$(grep ',rewire,rewire,job 0: ' "$ov/failures.csv") ||
		fail "no rewire for job 0: $(cat "$ov/failures.csv")"
	[[ $row == *,ok ]] || fail "job 0's rewire: $row"
	dark=$(echo "$row" | cut -d, -f10)
	((dark >= 50000000 && dark <= 60000000)) || fail "dark $dark ns for a 50 ms delay: $row"
	wait0=$(awk -F, 'NR == 2 { print $10 - $9 }' "$ov/jobs.csv")
	((wait0 >= dark)) || fail "job 0 waited $wait0 ns, less than its circuits' dark $dark ns"
	awk -F, 'NR > 1 && $5 > 1 { bad = 1 } END { exit bad || NR < 2 }' "$ov/routing.csv" ||
		fail "OCS-vClos: two connections on one link (as traced with their tags and ports): $(cat "$ov/routing.csv")"
	run ob$$$1 's/^  kind: leafspine/  kind: best/' 's/^  placement: ocs-vclos/  placement: first-fit/' \
		'/^  ocs:/,/^    delay/d'
	jq -en "$(avg_comm "$ov") <= 1.1 * $(avg_comm "$RUN_DIR")" >/dev/null
}

# The comparison of two emulated runs meets the machine's noise (a CI run saw 15% once): an
# attempt out of bounds is run again, up to three times, each printed; isolation lost fails all.
for try in 1 2 3; do
	attempt "$try" && break
	note "attempt $try: all-reduce time OCS-vClos $(avg_comm "$ov") s, best $(avg_comm "$RUN_DIR") s"
	((try < 3)) || fail "emulated: OCS-vClos $(avg_comm "$ov") s, best $(avg_comm "$RUN_DIR") s"
done
note "job 0's rewire: dark $((dark / 1000)) us, job 0 waited $((wait0 / 1000)) us;" \
	"all-reduce time OCS-vClos $(avg_comm "$ov") s, best $(avg_comm "$RUN_DIR") s (paper)"
