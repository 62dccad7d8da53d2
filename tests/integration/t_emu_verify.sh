#!/bin/bash
# SPDX-License-Identifier: MIT
# emu-node end to end, verify on: every algorithm leaves the right floats on every rank for
# 2, 3, 4, 8 and 16 ranks (two iterations each, nodes dropped to nobody), and the records
# add up to the schedule's bytes; a combination an algorithm refuses is refused by name.
# Then the failure paths: an aborted job followed by a good one on the same nodes, a killed
# rank, and a frozen rank that only the progress watchdog can catch; and path tags changed
# on live connections, seen in the spines' counters.
#
#          s0                  s1              spines
#      /  /  \  \          /  /  \  \          (every link 1 Gbit/s, tbf)
#    l0    l1    l2    l3                      leaves
#   h0-h3 h4-h7 h8-h11 h12-h15                 rank i of N on h(i * 16 / N)
. "$(dirname "$0")/lib.sh"
DRIVE=$TB_BUILD/tools/emu_drive
n=it$$v
f=$(scenario_as scenarios/leafspine-small.yaml "$n")
tb_up "$f" "$n"

hosts() { # hosts N: N hosts spread over the leaves
	local i out=
	for ((i = 0; i < $1; i++)); do out+=${out:+,}h$((i * 16 / $1)); done
	echo "$out"
}

drive() { # drive N ARGS...: runs the driver, output in $out, exit code in $rc
	local nr=$1
	shift
	rc=0
	out=$("$DRIVE" "$n" "$(hosts "$nr")" --user 65534:65534 --progress 5s --timeout 30s "$@" 2>&1) ||
		rc=$?
}

check() { # check N KIND ALGO [GROUP]
	local nr=$1 kind=$2 algo=$3 g=${4:-0} bytes=40028 # 10007 elements: uneven chunks
	[ "$kind" = alltoall ] && bytes=$((4 * nr * 257))
	drive "$nr" --kind "$kind" --algo "$algo" --group "$g" --bytes "$bytes" --iters 2 --verify
	((rc == 0)) || { echo "$out"; fail "$algo $kind on $nr ranks (group $g): exit $rc"; }
	[ "$(echo "$out" | grep -c ', verified$')" -eq "$nr" ] || { echo "$out"; fail "not all verified"; }
	runs=$((runs + 1))
}

refused() { # refused N ALGO GROUP: the driver must say the builder refuses it
	drive "$1" --algo "$2" --group "$3" --bytes 40028 --verify
	if ((rc != 3)) || ! echo "$out" | grep -q "not a multiple of group"; then
		echo "$out"
		fail "$2 with group $3 on $1 ranks was not refused (exit $rc)"
	fi
	note "skipped $2 group $3 on $1 ranks: $(echo "$out" | sed -n 's/^rejected: //p')"
}

runs=0
for nr in 2 3 4 8 16; do
	check "$nr" allreduce ring
	check "$nr" allgather ring
	check "$nr" reducescatter ring
	check "$nr" allreduce hd
	check "$nr" alltoall pairwise
	for g in 2 4; do
		if ((nr % g)); then
			refused "$nr" hier-ring "$g"
			refused "$nr" shard-rings "$g"
			continue
		fi
		check "$nr" allreduce hier-ring "$g"
		check "$nr" allreduce shard-rings "$g"
	done
done
# steps larger than one 4 MiB piece, and a reduce added piece by piece
drive 3 --bytes $((9 << 20)) --verify
((rc == 0)) || { echo "$out"; fail "ring allreduce of 9 MiB on 3 ranks: exit $rc"; }
# channels: each step split over K connections per pair, every part reduced where it lands;
# 4 and 16 channels over uneven chunks, over 9 MiB steps cut into pieces, and over steps of
# fewer elements than channels (a 16-rank all-to-all of 3 floats per pair: three parts)
check_chan() { # check_chan K N ARGS...
	local k=$1 nr=$2
	shift 2
	drive "$nr" --channels "$k" --iters 2 --verify "$@"
	((rc == 0)) || { echo "$out"; fail "channels $k on $nr ranks ($*): exit $rc"; }
	[ "$(echo "$out" | grep -c ', verified$')" -eq "$nr" ] || { echo "$out"; fail "channels $k ($*): not all verified"; }
	runs=$((runs + 1))
}
for K in 4 16; do
	check_chan "$K" 4 --algo ring --bytes 40028
	check_chan "$K" 8 --algo hd --bytes 40028
	check_chan "$K" 3 --algo ring --bytes $((9 << 20))
	check_chan "$K" 16 --kind alltoall --algo pairwise --bytes $((4 * 16 * 3))
	check_chan "$K" 4 --kind reducescatter --algo ring --bytes 40028
done
# the pairs really hold K connections each: rank 1 of a 4-rank ring with 4 channels keeps 4
# to each neighbour, 8 established while the job computes
"$DRIVE" "$n" "$(hosts 4)" --user 65534:65534 --channels 4 --compute 2s >"$TB_TMP/chan.out" 2>&1 &
drv=$!
sleep 1
est=$(ip netns exec "tb-$n-h4" ss -Htn state established "( sport = :7001 or dport = :7001 )" | wc -l)
wait "$drv" || { cat "$TB_TMP/chan.out"; fail "4-rank ring with 4 channels failed"; }
((est == 8)) || fail "rank 1 of a 4-channel ring held $est connections, want 8"
note "$runs verified runs; a 4-channel ring's rank 1 held $est connections"

drive 4 --compute 300ms --abort --jobs 2 --verify
((rc == 0)) || { echo "$out"; fail "abort, then a second job: exit $rc"; }
echo "$out" | grep -q 'aborted by the runner' || fail "no abort reason: $out"
drive 5 --compute 300ms --kill 2 --progress 1s
((rc == 0)) || { echo "$out"; fail "killed rank: exit $rc"; }
echo "$out" | grep -Eq 'rank 2 \(198\.18\.[0-9.]+\)' || fail "no reason names rank 2: $out"
note "killed rank 2: $(echo "$out" | grep -m1 '^rank 1 ')"
drive 4 --compute 100ms --freeze 1 --progress 1s
((rc == 0)) || { echo "$out"; fail "frozen rank: exit $rc"; }
echo "$out" | grep -q 'no progress for' || fail "the watchdog never fired: $out"
note "froze rank 1: $(echo "$out" | grep -m1 'no progress')"

# CTL_TAG on live connections (set in the compute phase, after the handshakes took the
# hash's paths): tag k pins both directions to the k-th spine, so one spine carries it all
spine_tx() { nx "$n" "$1" cat /proc/net/dev | awk 'NR > 2 { s += $10 } END { print s }'; }
for tag in 1 2; do
	a0=$(spine_tx s0)
	a1=$(spine_tx s1)
	drive 2 --kind allgather --bytes 8MiB --compute 200ms --retag "$tag"
	((rc == 0)) || { echo "$out"; fail "re-tag $tag: exit $rc"; }
	d0=$(($(spine_tx s0) - a0))
	d1=$(($(spine_tx s1) - a1))
	note "tag $tag: s0 sent $d0 bytes, s1 $d1"
	if ((tag == 1)); then low=$d1 high=$d0; else low=$d0 high=$d1; fi
	((high > 8 << 20 && low < 1 << 20)) || fail "tag $tag did not pin the path (s0 $d0, s1 $d1)"
done

# Every drive run has ended: no emu-node may be left in this testbed's namespaces (other
# testbeds on the machine may be running their own).
left=$(ip netns list | awk -v p="tb-$n-" 'index($1, p) == 1 { print $1 }' |
	while read -r ns; do ip netns pids "$ns"; done |
	while read -r pid; do [ "$(readlink "/proc/$pid/exe")" = "$TB_BUILD/emu-node" ] && echo "$pid"; done)
[ -z "$left" ] || fail "emu-node processes left behind: $left"
"$TB" down "$n" >/dev/null
no_leftovers "$n"
