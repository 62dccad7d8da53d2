#!/bin/bash
# emu-nodes hold nothing of the caller's: with a root-only file open on fd 7 in the shell that
# runs `up`, every emu-node has only its own sockets, its io_uring and /dev/null open, runs
# as nobody with no_new_privs and a seccomp filter, and the jobs still finish.
#
#   h0 h1 h2 h3   h4 .. h15     (quickstart: 4 leaves x 4 GPUs, 2 spines)
#     \ | | /
#       l0      l1  l2  l3
#          \  /
#         s0  s1
. "$(dirname "$0")/lib.sh"
n=it$$o
f=$(scenario_as scenarios/quickstart.yaml "$n" 's/^  iterations: .*/  iterations: 10/')
TB_NAMES+=("$n")
secret="$TB_TMP/secret"
: >"$secret"
chmod 600 "$secret"
exec 7>>"$secret"
(cd "$TB_TMP" && exec "$TB" up "$f") >"$TB_TMP/up.log" 2>&1 &
up=$!
exec 7>&-
pids=
for k in $(seq 300); do
	pids=$(for p in $(pgrep -x emu-node); do
		ip netns identify "$p" 2>/dev/null | grep -q "^tb-$n-" && echo "$p"
	done; true)
	[ "$(echo "$pids" | grep -c .)" -eq 16 ] && grep -q "running .* jobs" "$TB_TMP/up.log" && break
	sleep 0.05
done
[ "$(echo "$pids" | grep -c .)" -eq 16 ] || { cat "$TB_TMP/up.log"; fail "16 emu-nodes did not start"; }
sleep 0.5 # past CTL_HELLO: privileges dropped, filter in place
# a sanitizer build (make SANITIZE=1) keeps the runner's stderr for the sanitizers' reports
san=0
nm "$TB_BUILD/emu-node" 2>/dev/null | grep -q __asan_init && san=1
checked=0
for p in $pids; do
	[ -d "/proc/$p" ] || continue
	for fd in /proc/"$p"/fd/*; do
		t=$(readlink "$fd") || continue
		case $t in
		socket:\[*\] | anon_inode:\[io_uring\] | /dev/null) ;;
		"$TB_TMP/up.log") [ "$san" = 1 ] && [ "$(basename "$fd")" = 2 ] ||
			fail "emu-node $p has fd $(basename "$fd") -> $t" ;;
		*) fail "emu-node $p has fd $(basename "$fd") -> $t" ;;
		esac
	done
	st=/proc/$p/status
	grep -q "^NoNewPrivs:[[:space:]]*1$" "$st" || fail "emu-node $p: $(grep NoNewPrivs "$st")"
	grep -q "^Seccomp:[[:space:]]*2$" "$st" || fail "emu-node $p: $(grep Seccomp: "$st")"
	grep -q "^Uid:[[:space:]]*65534[[:space:]]" "$st" || fail "emu-node $p: $(grep Uid "$st")"
	checked=$((checked + 1))
done
((checked >= 8)) || fail "only $checked emu-nodes could be checked"
wait "$up" || { cat "$TB_TMP/up.log"; fail "up"; }
jobs=$(ls "$TB_TMP"/results/"$n"/*/jobs.csv)
ok=$(awk -F, 'NR > 1 && $12 == "ok"' "$jobs" | wc -l)
[ "$ok" -eq 4 ] || { cat "$jobs"; fail "$ok of 4 jobs ok under the sandbox"; }
no_leftovers "$n"
note "$checked emu-nodes: only sockets, io_uring, /dev/null; NoNewPrivs 1, Seccomp 2, uid 65534; 4 jobs ok"
