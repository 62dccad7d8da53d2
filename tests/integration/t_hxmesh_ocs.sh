#!/bin/bash
# SPDX-License-Identifier: MIT
# An OCS layer between a HammingMesh's board edges and its row and column networks (issue 5
# scope; scenarios/hxmesh-ocs.yaml, model/ocs.h). The 2x2 grid of 2x2 boards comes up through
# two OCSes whose default circuits rebuild the HammingMesh: every accelerator reaches every
# other over TCP. At run time the West edges of boards (0,0) and (1,0) are joined straight
# through o0 (an accelerator-accelerator circuit): a flow a0-0 -> a2-0 resumes over it after
# the configured dark time, the kernel holds the new circuit and r0 no longer carries the
# flow; a switch-switch circuit is refused. Nothing is left behind.
#
#   r0 ... r3 (row networks)          c0 ... c3 (column networks)
#        |                                 |
#        o0 (row edge cables)              o1 (column edge cables)
#        |                                 |
#   a0-0 a1-0 | a2-0 a3-0      each board's W/E edges via o0, N/S edges via o1
#   a0-1 a1-1 | a2-1 a3-1
#   ----------+----------
#   a0-2 ...  | ...
. "$(dirname "$0")/lib.sh"
REWIRE=$TB_BUILD/tools/ocs_rewire
n=it$$x
f=$(scenario_as scenarios/hxmesh-ocs.yaml "$n")
tb_up "$f" "$n"
[ "$(ip netns list | grep -c "^tb-$n-")" -eq 26 ] || fail "expected 26 namespaces"

# the circuits `up` made: redirect PORT on OCS O
redirect() { nx "$n" "$2" tc filter show dev "$1" ingress | sed -n 's/.*Redirect to device \([^)]*\)).*/\1/p'; }
[ "$(redirect a0-0 o0)" = r0.0 ] && [ "$(redirect r0.0 o0)" = a0-0 ] || fail "o0: a0-0 -> $(redirect a0-0 o0)"
[ "$(redirect a0-0 o1)" = c0.0 ] || fail "o1: a0-0 -> $(redirect a0-0 o1)"

accels=$(for y in 0 1 2 3; do for x in 0 1 2 3; do echo "a$x-$y"; done; done)
probe_all "$n" $accels
note "16 x 16 TCP probes answered through the OCSes"

out=$("$REWIRE" "$n" "$f" a0-0 a2-0 o0:a0-0-a2-0 --before 300ms --after 500ms) ||
	{ echo "$out"; fail "rewire (exit $?)"; }
echo "$out" | sed 's/^/# /'
[ "$(redirect a0-0 o0)" = a2-0 ] && [ "$(redirect a2-0 o0)" = a0-0 ] || fail "no circuit a0-0 - a2-0"
[ -z "$(redirect r0.0 o0)" ] && [ -z "$(redirect r0.2 o0)" ] || fail "r0's ports should be dark"
nx "$n" a0-0 ip route get "$(ep_addr "$n" a2-0)" | grep -q " dev o0 " || fail "a0-0 does not route over o0"
# a TCP flow a0-0 -> a2-0 now crosses the direct circuit, and r0 forwards none of it
r0=$(ifstat "$n" r0 o0.2 tx_bytes)
in=$(ifstat "$n" a2-0 o0 rx_bytes)
nx "$n" a0-0 "$TBPERF" send "$(ep_addr "$n" a2-0)" --time 1 >"$TB_TMP/tcp" || fail "TCP over the circuit"
in=$(($(ifstat "$n" a2-0 o0 rx_bytes) - in))
r0=$(($(ifstat "$n" r0 o0.2 tx_bytes) - r0))
((in > 1000000 && r0 == 0)) || fail "a2-0 received $in bytes over o0, r0 sent $r0"
note "after the rewire: $in bytes straight a0-0 -> a2-0, r0 sent $r0; $(cat "$TB_TMP/tcp")"
rc=0
out=$("$REWIRE" "$n" "$f" a0-0 a2-0 o0:r0-r1 --before 100ms --after 100ms 2>&1) || rc=$?
((rc != 0)) && [[ $out == *"a circuit joins an accelerator to a row or column switch"* ]] ||
	fail "switch-switch circuit: exit $rc, $out"

# The runner's API from a scenario's timed rewires: at 1 s the all-to-all of job 0 runs
# over a0-0's row cable, so joining it to a2-0 is refused; at 3.5 s nothing runs, so it goes
# through (failures.csv), and job 1 then runs its all-to-all over the rewired mesh.
n2=it$$y
f2=$(scenario_as scenarios/hxmesh-ocs.yaml "$n2")
cat >>"$f2" <<EOF2
workload:
  jobs:
    - {gpus: 16, collective: alltoall, bytes: 16MiB, compute: 50ms, iterations: 2}
    - {gpus: 16, collective: alltoall, bytes: 4MiB, compute: 50ms, iterations: 1, arrival: 5s}
failures:
  - {at: 1s, rewire: [[o0, a0-0, a2-0]]}
  - {at: 3500ms, rewire: [[o0, a0-0, a2-0]]}
EOF2
TB_NAMES+=("$n2")
"$TB" up --results "$TB_TMP/results" --name "$n2" "$f2" >"$TB_TMP/run" 2>&1 || { cat "$TB_TMP/run"; fail "run with rewires"; }
check_rewires "$TB_TMP/results/$n2" o0:a0-0-r0 2
note "runner API on the HammingMesh: busy circuit refused, idle one rewired, dark $((DARK_NS / 1000)) us"

"$TB" down "$n" >/dev/null
no_leftovers "$n"
no_leftovers "$n2"
