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

# The build starts when `up` writes its journal. Before that, `up` probes the kernel in a
# namespace of its own, which waits while the kernel still removes the previous testbed's
# namespaces (2.5 s after a `down` of this one): kill points are counted from the journal.
now_ms() { echo $(($(date +%s%N) / 1000000)); }
sleep_ms() { sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')"; }

# Waits until `up` (pid) of n has written its journal; fails if it exits first or takes a
# minute.
wait_journal() {
	local n=$1 pid=$2 i
	for ((i = 0; i < 6000; i++)); do
		[ -s "/run/testbed/$n/journal" ] && return 0
		kill -0 "$pid" 2>/dev/null || fail "up of $n exited before writing its journal"
		sleep 0.01
	done
	fail "up of $n wrote no journal within a minute"
}

# Milliseconds of a full build, journal to exit, to spread the kill points over it; measured
# after a `down`, like the builds that are killed.
n=it$$k0
f=$(scenario_as scenarios/leafspine-1024.yaml "$n")
tb_up "$f" "$n"
"$TB" down "$n" >/dev/null
no_leftovers "$n"
"$TB" up "$f" >"$TB_TMP/up0.log" 2>&1 &
pid=$!
wait_journal "$n" "$pid"
start=$(now_ms)
wait "$pid" || fail "up failed: $(tail -3 "$TB_TMP/up0.log")"
full=$(($(now_ms) - start))
"$TB" down "$n" >/dev/null
no_leftovers "$n"
note "full build: ${full} ms from the journal"

# Starts `up` of the k-th copy (name n) and kills it with SIGKILL ms after its journal
# appeared; fails (1) if up had already finished by then, leaving it up.
up_and_kill() {
	local k=$1 ms=$2 pid rc=0
	"$TB" up "$f" >"$TB_TMP/up$k.log" 2>&1 &
	pid=$!
	wait_journal "$n" "$pid"
	sleep_ms "$ms"
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
	# a build can be quicker than the measured one: if it finished before the kill, take it
	# down and kill earlier (the point of the test is a kill during the build)
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
wait_journal "$n" "$pid"
sleep_ms $((full / 2))
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
((rc != 0)) || fail "up exited 0 after SIGINT"
grep -q "rolling back" "$TB_TMP/int.log" || fail "no rollback after SIGINT: $(cat "$TB_TMP/int.log")"
no_leftovers "$n"
note "SIGINT during up: rolled back by itself, nothing left"

# Whoever reads up's output going away (`testbed up FILE 2>&1 | head -1`): SIGPIPE stops the
# run and tears the testbed down, as Ctrl-C does, instead of killing it and leaving it orphaned
n=it$$pp
f=$(scenario_as scenarios/quickstart.yaml "$n")
TB_NAMES+=("$n")
"$TB" up "$f" 2> >(head -1 >"$TB_TMP/pipe.log") >/dev/null &
pid=$!
rc=0
wait "$pid" || rc=$?
((rc != 141)) || fail "up killed by SIGPIPE (exit $rc)"
[ -s "$TB_TMP/pipe.log" ] || fail "up wrote nothing before its reader went away"
no_leftovers "$n"
note "reader of up's output gone: up exited $rc, nothing left"
