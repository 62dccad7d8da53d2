#!/bin/bash
# SPDX-License-Identifier: MIT
# `up` and `down` never touch what they did not make: a foreign namespace named like one of
# the testbed's survives up, up's rollback, down, and down of a killed testbed; NAME cannot
# leave /run/testbed; a journal naming the host's namespace or another testbed's is not
# acted on.
#
#   h0 h1 h2 h3   h4 .. h15        (leafspine-small: 4 leaves x 4 hosts, 2 spines)
#    \ |  | /
#      l0   l1 l2 l3
#        \  /
#       s0  s1
. "$(dirname "$0")/lib.sh"
n=it$$f
f=$(scenario_as scenarios/leafspine-small.yaml "$n")
ino() { stat -L -c %i "/run/netns/$1"; }
foreign() { # foreign NS: makes it with a marker link inside, prints its inode
	ip netns add "$1"
	ip -n "$1" link set lo up
	ino "$1"
}
survives() { # survives NS INODE WHAT
	[ -e "/run/netns/$1" ] && [ "$(ino "$1")" = "$2" ] || fail "$3 removed foreign $1"
	ip -n "$1" link show lo | grep -q UP || fail "$3 changed foreign $1"
}

# 1. up finds a foreign namespace half-way through and rolls back around it
TB_NAMES+=("$n")
i=$(foreign "tb-$n-s0")
rc=0
"$TB" up "$f" >"$TB_TMP/up1.log" 2>&1 || rc=$?
((rc == 1)) || { cat "$TB_TMP/up1.log"; fail "up over a foreign namespace: exit $rc, want 1"; }
grep -q "already exists" "$TB_TMP/up1.log" || fail "up did not say the name is taken"
grep -q "left alone 1 namespace" "$TB_TMP/up1.log" || { cat "$TB_TMP/up1.log"; fail "rollback did not say what it left"; }
survives "tb-$n-s0" "$i" "up's rollback"
[ "$(ip netns list | grep -c "^tb-$n-")" -eq 1 ] || fail "rollback left namespaces of its own"
[ ! -e "/run/testbed/$n" ] || fail "rollback left state"
ip netns delete "tb-$n-s0"

# 2. a built testbed whose namespace was replaced by a foreign one: down leaves that one
tb_up "$f" "$n"
ip netns delete "tb-$n-h1"
i=$(foreign "tb-$n-h1")
"$TB" down "$n" >"$TB_TMP/down2.log" 2>&1 || { cat "$TB_TMP/down2.log"; fail "down"; }
grep -q "left alone 1 namespace.*tb-$n-h1" "$TB_TMP/down2.log" || { cat "$TB_TMP/down2.log"; fail "down did not say what it left"; }
survives "tb-$n-h1" "$i" "down"
[ "$(ip netns list | grep -c "^tb-$n-")" -eq 1 ] || fail "down left namespaces of its own"
ip netns delete "tb-$n-h1"

# 3. down of a killed up (killed while building), with a foreign namespace in its journal
f3=$(scenario_as scenarios/leafspine-1024.yaml "$n")
"$TB" up --name "$n" "$f3" >"$TB_TMP/up3.log" 2>&1 &
up=$!
for k in $(seq 200); do [ "$(ls /run/netns | grep -c "^tb-$n-")" -ge 20 ] && break; sleep 0.05; done
kill -KILL "$up"
wait "$up" 2>/dev/null || true
victim=$(ls /run/netns | grep "^tb-$n-h" | sort | head -1)
[ -n "$victim" ] || fail "the killed up made no host namespace"
ip netns delete "$victim"
i=$(foreign "$victim")
"$TB" status "$n" | grep -q "orphaned (runner gone)" || { "$TB" status "$n"; fail "status of a killed up"; }
"$TB" down "$n" >"$TB_TMP/down3.log" 2>&1 || { cat "$TB_TMP/down3.log"; fail "down of a killed up"; }
survives "$victim" "$i" "down of a killed testbed"
[ "$(ip netns list | grep -c "^tb-$n-")" -eq 1 ] || fail "down of a killed up left namespaces"
ip netns delete "$victim"
no_leftovers "$n"

# 4. names that would leave /run/testbed are refused, and touch nothing
mkdir -p "$TB_TMP/elsewhere"
echo "ns tb-x-h0" >"$TB_TMP/elsewhere/journal"
rel=../..$TB_TMP/elsewhere
for cmd in "down $rel" "status $rel" "exec $rel h0 -- true" "exec $n ../h0 -- true"; do
	rc=0
	# shellcheck disable=SC2086
	"$TB" $cmd >"$TB_TMP/name.log" 2>&1 || rc=$?
	((rc == 2)) || { cat "$TB_TMP/name.log"; fail "'testbed $cmd': exit $rc, want 2"; }
	grep -q "expected 1 to" "$TB_TMP/name.log" || fail "'testbed $cmd' did not say why"
done
[ -f "$TB_TMP/elsewhere/journal" ] || fail "down $rel removed files outside /run/testbed"

# 5. a forged journal: the host's namespace under a testbed's name, a path, another testbed's
# namespace, and a runner that is some other program
m=it$$g
TB_NAMES+=("$m")
mkdir -p "/run/testbed/$m"
host=$(stat -L -c '%d %i' /proc/self/ns/net)
ip netns attach "tb-$m-h0" $$ # /run/netns/tb-$m-h0 is the host's namespace
sleep 300 &
bystander=$!
cat >"/run/testbed/$m/journal" <<EOT
runner $bystander $(cut -d' ' -f22 "/proc/$bystander/stat")
ns tb-$m-h0
nsfile tb-$m-h0 $host
nsid tb-$m-h0 $host
ns ../../proc/self/ns/net
ns tb-other-h0
complete
EOT
"$TB" down "$m" >"$TB_TMP/down5.log" 2>&1 || { cat "$TB_TMP/down5.log"; fail "down of a forged journal"; }
kill -0 "$bystander" 2>/dev/null || fail "down signalled a process that is not its runner, or one in the host's namespace"
[ -e "/run/netns/tb-$m-h0" ] || fail "down removed the host's namespace mount"
grep -q "left alone 1 namespace" "$TB_TMP/down5.log" || { cat "$TB_TMP/down5.log"; fail "down did not say what it left"; }
ip netns delete "tb-$m-h0"
kill "$bystander"
note "foreign namespaces survived up, rollback, down and down of a killed up; bad names refused"
