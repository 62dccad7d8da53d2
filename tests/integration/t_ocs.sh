#!/bin/bash
# SPDX-License-Identifier: MIT
# OCS circuits (vClos §7; issue 5 acceptance 4). Two leaves and two spines
# through one OCS, both leaves on s0 at `up`. A probe flow h0 -> h2 runs over circuits
# o0:l0-s0 and o0:l1-s0; both are rewired to s1 at run time through the control plane the
# runner uses (tests/tools/ocs_rewire), and the flow resumes over s1 after a dark time of at
# least the configured delay and at most 20 ms more. The kernel then holds the new circuits,
# routes and neighbours; a TCP flow across a rewire finishes; a leaf-leaf circuit carries the
# flow without a spine; and the runner's own API, driven by a scenario's timed rewires,
# refuses a circuit a running job uses and rewires an idle one (failures.csv). Nothing is
# left behind.
#
#        s0      s1           spines, 2 ports each on o0
#         \\    //
#           o0                the OCS: ingress u32 + mirred redirect per circuit
#          /  \
#        l0    l1             leaves
#       h0 h1  h2 h3
. "$(dirname "$0")/lib.sh"
REWIRE=$TB_BUILD/tools/ocs_rewire
n=it$$o
f=$(scenario_as scenarios/ocs-small.yaml "$n")
tb_up "$f" "$n"

# the circuits `up` made, as tc shows them in the OCS's namespace: redirect PORT [NAME]
redirect() {
	nx "${2:-$n}" o0 tc filter show dev "$1" ingress |
		sed -n 's/.*Redirect to device \([^)]*\)).*/\1/p'
}
[ "$(redirect l0)" = s0.0 ] && [ "$(redirect s0.1)" = l1 ] || fail "circuits at up: l0->$(redirect l0)"
[ -z "$(redirect s1.0)" ] || fail "s1's ports should be dark"

out=$("$REWIRE" "$n" "$f" h0 h2 o0:l0-s1 o0:l1-s1) || { echo "$out"; fail "rewire (exit $?)"; }
echo "$out" | sed 's/^/# /'
# bytes a spine forwarded once the rewire was done (what its queues held when its ports went
# dark leaves during the rewire, and is not counted here)
after() { echo "$out" | sed -n "s/^$1 forwarded [0-9]* bytes before the rewire, [0-9]* during, \([0-9]*\) after$/\1/p"; }
(($(after s1) > 100000 && $(after s0) < 1000)) || fail "traffic did not move to s1"

# the kernel follows: circuits, routes through the new spine's port, no stale neighbour
[ "$(redirect l0)" = s1.0 ] && [ "$(redirect s1.0)" = l0 ] || fail "l0's circuit: $(redirect l0)"
[ -z "$(redirect s0.0)" ] || fail "s0.0 should be dark"
s1_addr=$(nx "$n" s1 ip -4 -o addr show dev o0.0 | awk '{split($4, a, "/"); print a[1]}')
s0_addr=$(nx "$n" s0 ip -4 -o addr show dev o0.0 | awk '{split($4, a, "/"); print a[1]}')
nx "$n" l0 ip route | grep -q "via $s1_addr dev o0 .*onlink" || fail "l0 does not route via s1"
! nx "$n" l0 ip neigh show dev o0 | grep -q "^$s0_addr " || fail "l0 kept s0's neighbour entry"
[ -z "$(nx "$n" s0 ip route)" ] || fail "s0 kept routes over dark ports"

# A TCP flow across a rewire on a fresh testbed: stalled while dark, then it goes on.
n2=it$$p
f2=$(scenario_as scenarios/ocs-small.yaml "$n2")
tb_up "$f2" "$n2"
serve_on "$n2" h3
nx "$n2" h1 "$TBPERF" send "$(ep_addr "$n2" h3)" --time 3 >"$TB_TMP/tcp" &
tcp=$!
"$REWIRE" "$n2" "$f2" h0 h2 o0:l0-s1 o0:l1-s1 --before 1s --after 500ms >/dev/null ||
	fail "second rewire"
wait $tcp || { cat "$TB_TMP/tcp"; fail "TCP flow across the rewire failed"; }
note "TCP across the rewire: $(cat "$TB_TMP/tcp")"
grep -q ' err=0$' "$TB_TMP/tcp" || fail "TCP flow error"

# A leaf-leaf circuit (vClos §7.2's two-leaf OCS-vClos): the flow goes l0 -> l1 directly,
# no spine forwards it.
n4=it$$r
f4=$(scenario_as scenarios/ocs-small.yaml "$n4")
tb_up "$f4" "$n4"
out=$("$REWIRE" "$n4" "$f4" h0 h2 o0:l0-l1 --before 300ms --after 300ms) ||
	{ echo "$out"; fail "leaf-leaf rewire (exit $?)"; }
(($(after s0) < 1000 && $(after s1) == 0)) || { echo "$out"; fail "a spine still forwards"; }
[ "$(redirect l0 "$n4")" = l1 ] || fail "no circuit l0-l1"
note "leaf-leaf: $(echo "$out" | grep '^dark time')"

# The runner's API (run_ocs_rewire) from a scenario's timed rewires: at 1 s job 0 runs over
# o0:l0-s0, so moving it is refused; at 3.5 s nothing runs, so it goes through.
n3=it$$q
f3=$(scenario_as scenarios/ocs-small.yaml "$n3")
cat tests/fixtures/ocs-rewires.fragment >>"$f3"
TB_NAMES+=("$n3")
"$TB" up --results "$TB_TMP/results" --name "$n3" "$f3" >"$TB_TMP/run3" 2>&1 || { cat "$TB_TMP/run3"; fail "run with rewires"; }
check_rewires "$TB_TMP/results/$n3" o0:l0-s0 2
note "runner API: dark $((DARK_NS / 1000)) us, rerouted $((ROUTES_NS / 1000)) us after the request"

for x in "$n" "$n2" "$n4"; do "$TB" down "$x" >/dev/null; done
for x in "$n" "$n2" "$n3" "$n4"; do no_leftovers "$x"; done
