#!/bin/bash
# SPDX-License-Identifier: MIT
# Crash safety: `testbed up` of the 1,024-host leaf-spine killed with SIGKILL at three
# random points of its build (`status` then says orphaned), then `testbed down`, leaves no
# namespace, /run/netns entry or state; Ctrl-C (SIGINT) during the build rolls back by itself.
#
#   s0 .. s31            32 spines
#   l0 .. l31            32 leaves, each to every spine
#   h0 .. h1023          32 hosts per leaf
. "$(dirname "$0")/lib.sh"

# Milliseconds of a full build, to spread the kill points over it.
n=it$$k0
f=$(scenario_as scenarios/leafspine-1024.yaml "$n")
start=$(date +%s%N)
tb_up "$f" "$n"
full=$((($(date +%s%N) - start) / 1000000))
"$TB" down "$n" >/dev/null
no_leftovers "$n"
note "full build: ${full} ms"

# Starts `up` of the k-th copy and kills it with SIGKILL at ms; fails (1) if up had already
# finished by then, leaving it up.
up_and_kill() {
	local k=$1 ms=$2 pid rc=0
	"$TB" up "$f" >"$TB_TMP/up$k.log" 2>&1 &
	pid=$!
	sleep "$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || rc=$?
	((rc == 0 || rc == 137)) || fail "up failed by itself (exit $rc): $(tail -3 "$TB_TMP/up$k.log")"
	((rc == 137))
}

for k in 1 2 3; do
	n=it$$k$k
	f=$(scenario_as scenarios/leafspine-1024.yaml "$n")
	at=$((full * (k * 25 + RANDOM % 20) / 100)) # around 25-45%, 50-70%, 75-95% of the build
	TB_NAMES+=("$n")
	# the first, cold build can take longer than this one: if it finished before the kill,
	# take it down and kill earlier (the point of the test is a kill during the build)
	for try in 1 2 3; do
		up_and_kill "$k" "$at" && break
		((try < 3)) || fail "up finished before every kill point, the last at ${at} ms"
		"$TB" down "$n" >/dev/null || fail "down after a finished up"
		note "up finished before the kill at ${at} ms: again at $((at * 3 / 4)) ms"
		at=$((at * 3 / 4))
	done
	made=$(ls /run/netns | grep -c "^tb-$n-" || true)
	phase=$(tr '\r' '\n' <"$TB_TMP/up$k.log" | grep -E '^ +[a-z]' | tail -1 | awk '{print $1}')
	"$TB" status "$n" | head -1 | grep -q 'orphaned' || fail "status does not list $n as orphaned"
	"$TB" down "$n" >/dev/null || fail "down after kill -9 at ${at} ms"
	no_leftovers "$n"
	note "kill -9 at ${at} ms (last phase: ${phase:-none}, $made namespaces made): down left nothing"
done

n=it$$ki
f=$(scenario_as scenarios/leafspine-1024.yaml "$n")
TB_NAMES+=("$n")
"$TB" up "$f" >"$TB_TMP/int.log" 2>&1 &
pid=$!
sleep "$(awk -v ms="$full" 'BEGIN { printf "%.3f", ms / 2000 }')"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
((rc != 0)) || fail "up exited 0 after SIGINT"
grep -q "rolling back" "$TB_TMP/int.log" || fail "no rollback after SIGINT: $(cat "$TB_TMP/int.log")"
no_leftovers "$n"
note "SIGINT during up: rolled back by itself, nothing left"
