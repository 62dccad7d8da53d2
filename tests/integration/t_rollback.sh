#!/bin/bash
# SPDX-License-Identifier: MIT
# A scenario asking for link delay: on a kernel without sch_netem `up` must fail before
# building, say why, and leave nothing; with netem the delay must show in the RTT.
#
#   h0 -- l0 -- s0 -- l1 -- h2     (shaping-line with 5 ms per link direction)
. "$(dirname "$0")/lib.sh"
n=it$$d
f=$(scenario_as scenarios/shaping-line.yaml "$n" 's/^  fabric_rate: .*/&\n  delay: 5ms/')
TB_NAMES+=("$n")
rc=0
"$TB" up "$f" >"$TB_TMP/up.log" 2>&1 || rc=$?
if ((rc != 0)); then
	grep -q "netem" "$TB_TMP/up.log" || fail "up failed without naming netem: $(cat "$TB_TMP/up.log")"
	no_leftovers "$n"
	note "no netem here: refused up front, nothing left ($(grep -o 'topology.delay.*' "$TB_TMP/up.log"))"
	exit 0
fi
serve_on "$n" h2
t0=$(date +%s%N)
nx "$n" h0 "$TBPERF" probe "$(ep_addr "$n" h2)" >/dev/null || fail "probe"
ms=$((($(date +%s%N) - t0) / 1000000))
# connect + echo: at least two round trips of 4 hops x 5 ms each way
((ms >= 80)) || fail "probe took ${ms} ms, want >= 80 with 5 ms per hop"
"$TB" down "$n" >/dev/null
no_leftovers "$n"
note "netem present: delay visible (${ms} ms for connect + echo)"
