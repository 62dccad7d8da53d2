#!/bin/bash
# `testbed down NAME` while `up` runs the workload: the run stops within 2 s, nothing is left,
# no emu-node survives, and `up` exits 1 saying the testbed was taken down. A killed `up`
# shows as orphaned in `status`. `--results DIR` puts the results folder there.
#
#   h0 h1 h2 h3   h4 h5 h6 h7   ...   (quickstart: 4 leaves x 4 GPUs, 2 spines)
#     \ | | /       \ | | /
#       l0            l1      l2  l3
#          \      /
#          s0   s1
. "$(dirname "$0")/lib.sh"
n=it$$r
f=$(scenario_as scenarios/quickstart.yaml "$n" 's/^  iterations: .*/  iterations: 200/')
TB_NAMES+=("$n")
node_pids() { # emu-nodes inside the testbed's namespaces
	local p
	for p in $(pgrep -x emu-node); do
		ip netns identify "$p" 2>/dev/null | grep -q "^tb-$n-" && echo "$p"
	done
	return 0
}
wait_running() { # wait_running LOG: until the runner has started its jobs
	local k
	for k in $(seq 300); do grep -q "running .* jobs on" "$1" 2>/dev/null && return 0; sleep 0.05; done
	cat "$1"
	fail "the run did not start"
}

# 1. down during the run
(cd "$TB_TMP" && exec "$TB" up "$f") >"$TB_TMP/up1.log" 2>&1 &
up=$!
wait_running "$TB_TMP/up1.log"
"$TB" status "$n" | grep -q "running" || { "$TB" status "$n"; fail "status of a running up"; }
pids=$(node_pids)
[ -n "$pids" ] || fail "no emu-node in the testbed"
t0=$(date +%s%N)
"$TB" down "$n" >"$TB_TMP/down1.log" 2>&1 || { cat "$TB_TMP/down1.log"; fail "down"; }
rc=0
wait "$up" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
cat "$TB_TMP/down1.log"
((ms <= 2000)) || fail "down and the end of up took $ms ms, want <= 2000"
((rc == 1)) || { cat "$TB_TMP/up1.log"; fail "up exited $rc after down, want 1"; }
grep -q "taken down by 'testbed down'" "$TB_TMP/up1.log" || { cat "$TB_TMP/up1.log"; fail "up did not say it was taken down"; }
grep -q "stopped the running 'up'" "$TB_TMP/down1.log" || fail "down did not say it stopped the run"
for p in $pids; do ! kill -0 "$p" 2>/dev/null || fail "emu-node $p survived down"; done
no_leftovers "$n"
note "down during the run: stopped and removed in $ms ms; up exit $rc"

# 2. a killed up is orphaned; down removes it
"$TB" up "$f" >"$TB_TMP/up2.log" 2>&1 &
up=$!
wait_running "$TB_TMP/up2.log"
kill -KILL "$up"
wait "$up" 2>/dev/null || true
"$TB" status | grep -q "^$n .*orphaned" || { "$TB" status; fail "status list: killed up not orphaned"; }
"$TB" status "$n" | grep -q "orphaned (runner gone): 'testbed down $n' removes it" ||
	{ "$TB" status "$n"; fail "status: killed up not orphaned"; }
"$TB" down "$n" >/dev/null
no_leftovers "$n"

# 3. --results DIR, and a testbed left up is "up", not orphaned
g=$(scenario_as scenarios/quickstart.yaml "$n" 's/^  iterations: .*/  iterations: 1/')
"$TB" up --keep --results "$TB_TMP/mine" "$g" >"$TB_TMP/up3.log" 2>&1 || { cat "$TB_TMP/up3.log"; fail "up --results"; }
ls "$TB_TMP"/mine/"$n"/*/jobs.csv >/dev/null 2>&1 || fail "no results under --results"
[ ! -e "results/$n" ] || fail "results also written under ./results"
"$TB" status "$n" | grep -q "^$n  *up " || { "$TB" status "$n"; fail "a kept testbed is not 'up'"; }
"$TB" down "$n" >/dev/null
no_leftovers "$n"
note "orphaned shown after a kill; --results honoured"
