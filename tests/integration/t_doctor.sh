#!/bin/bash
# SPDX-License-Identifier: MIT
# `testbed doctor`: on this machine everything the testbed needs is here (exit 0) and netem, if
# the kernel lacks it, is reported missing with what to do; a scenario with topology.delay is
# then not ready (exit 1) and the line names topology.delay at its file:line:col; a bad file
# is bad input (exit 2, the loader's message); as nobody it says it needs root and probes
# nothing; and nothing of its throwaway namespace or veths remains, also when it is killed
# mid-probe by SIGTERM or SIGINT.
#
#   root namespace            tb-doctor-<pid> (unnamed at once, gone with its last fd)
#                             tbd0a -- tbd0b   tbf | htb + u32 (its counters read by BPF), /31s
#                                              up for a multipath route
#                             tbd1a -- tbd1b   pfifo | bfifo
#                             tbd2a -- tbd2b   netem | ingress + u32/mirred circuit
#                             tbd3a -- tbd3b   mq (two queues)
#                             nftables: an ECMP switch's ruleset; emu-node --probe (io_uring)
. "$(dirname "$0")/lib.sh"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

leftovers() { # nothing of doctor's: no tb-doctor-* namespace, no probe veth here
	! ip netns list | grep -q "^tb-doctor-" || fail "namespaces left: $(ip netns list | grep tb-doctor-)"
	! ls -A /run/netns 2>/dev/null | grep -q "tb-doctor-" || fail "/run/netns entries left: $(ls -A /run/netns)"
	! ip -o link show | grep -q ": tbd[0-9][ab]" || fail "probe veths left: $(ip -o link show | grep tbd)"
}

# Does this kernel have netem? Asked in an unnamed namespace of our own, gone on exit.
netem=0
unshare -n tc qdisc add dev lo root netem delay 1ms 2>/dev/null && netem=1

rc=0
"$TB" doctor >"$TB_TMP/core.out" 2>&1 || rc=$?
((rc == 0)) || { cat "$TB_TMP/core.out"; fail "doctor: exit $rc, want 0"; }
# 20 features and a verdict, and with netem missing the shipped scenarios that need it
[ "$(grep -c . "$TB_TMP/core.out")" -eq $((21 + (netem == 0))) ] || { cat "$TB_TMP/core.out"; fail "want 20 features and a verdict"; }
for f in root netns veth tbf htb bfifo ingress bpf u32 mirred nftables numgen rule multipath io_uring nofile; do
	grep -Eq "^$f +ok " "$TB_TMP/core.out" || { cat "$TB_TMP/core.out"; fail "$f not ok on this machine"; }
done
grep -q "^ready: " "$TB_TMP/core.out" || fail "no 'ready' verdict: $(tail -1 "$TB_TMP/core.out")"
if ((netem == 0)); then
	line=$(grep "^netem " "$TB_TMP/core.out")
	[[ $line =~ ^netem\ +missing\ +needed\ only\ for\ topology.delay\;\ modprobe\ sch_netem$ ]] ||
		fail "netem line: $line"
	# none of the shipped scenarios needs it; one that does is named
	grep -Eq "^ +no shipped scenario needs it \([0-9]+ in scenarios\)$" "$TB_TMP/core.out" ||
		fail "doctor does not say which shipped scenarios need netem: $(grep -A1 ^netem "$TB_TMP/core.out")"
	mkdir -p "$TB_TMP/ship/scenarios/sub"
	cp scenarios/quickstart.yaml "$TB_TMP/ship/scenarios/"
	sed 's/^topology:/topology:\n  delay: 1ms/' scenarios/quickstart.yaml >"$TB_TMP/ship/scenarios/sub/slow.yaml"
	(cd "$TB_TMP/ship" && "$TB" doctor) >"$TB_TMP/ship.out" 2>&1 || true
	grep -Eq "^ +shipped scenarios that need it \(1 of 2 in scenarios\): sub/slow.yaml$" "$TB_TMP/ship.out" ||
		fail "a shipped scenario with topology.delay is not named: $(grep -A1 ^netem "$TB_TMP/ship.out")"
	note "no netem here: reported missing with its advice, exit 0 (the core does not need it)"
else
	grep -Eq "^netem +ok" "$TB_TMP/core.out" || fail "netem works here but doctor says: $(grep ^netem "$TB_TMP/core.out")"
	note "netem works on this kernel: the missing-netem assertions are skipped"
fi
leftovers

# a scenario asking for link delay: line 15 is `  delay: 1ms`
f=$(scenario_as scenarios/shaping-line.yaml docdelay 's/^  fabric_rate: .*/&\n  delay: 1ms/')
[ "$(sed -n 15p "$f")" = "  delay: 1ms" ] || fail "the delay is not on line 15: $(sed -n 15p "$f")"
rc=0
"$TB" doctor "$f" >"$TB_TMP/delay.out" 2>&1 || rc=$?
if ((netem == 0)); then
	((rc == 1)) || { cat "$TB_TMP/delay.out"; fail "doctor with topology.delay: exit $rc, want 1"; }
	grep -q "^netem  *missing  *topology.delay needs it ($f:15:3); modprobe sch_netem$" "$TB_TMP/delay.out" ||
		fail "netem line: $(grep ^netem "$TB_TMP/delay.out")"
	grep -q "^not ready: netem (topology.delay)$" "$TB_TMP/delay.out" ||
		fail "verdict: $(tail -1 "$TB_TMP/delay.out")"
else
	((rc == 0)) || { cat "$TB_TMP/delay.out"; fail "doctor with delay and netem: exit $rc"; }
fi
grep -Eq "^memory +info .*this scenario makes 7 namespaces and 6 veth pairs" "$TB_TMP/delay.out" ||
	fail "memory line: $(grep ^memory "$TB_TMP/delay.out")"
leftovers

# bad input: the loader's file:line:col message, exit 2, nothing probed
bad=tests/fixtures/bad/01-yaml-syntax.yaml
rc=0
out=$("$TB" doctor "$bad" 2>&1) || rc=$?
((rc == 2)) || fail "doctor on $bad: exit $rc, want 2"
[ "$out" = "testbed doctor: $(cat "${bad%.yaml}.expect")" ] || fail "doctor on $bad: $out"

# as nobody: needs root, exit 1, and no probe ran
if as_user true 2>/dev/null; then
	rc=0
	out=$(as_user "$TB" doctor 2>&1) || rc=$?
	((rc == 1)) || fail "doctor as nobody: exit $rc, want 1"
	[ "$out" = "testbed doctor: needs root (network namespaces and netlink); run it with sudo" ] ||
		fail "doctor as nobody: $out"
else
	note "setpriv cannot drop to nobody here: the needs-root check is skipped"
fi

# killed mid-probe: the name went at once, the namespace goes with the process
# (timeout runs it in the foreground: an asynchronous command would ignore SIGINT)
sigs=(TERM INT)
killed=0
for i in $(seq 20); do
	rc=0
	timeout -s "${sigs[i % 2]}" "0.00$((i % 10 + 1))" "$TB" doctor >/dev/null 2>&1 || rc=$?
	((rc == 124)) && killed=$((killed + 1))
done
leftovers
note "doctor: exit 0 here, topology.delay named at $f:15:3, bad input exit 2, nobody refused," \
	"nothing left after 20 runs of which $killed were killed mid-probe"
