# SPDX-License-Identifier: MIT
# Shared helpers for integration tests: sourced by each t_*.sh.
set -eu
TB=${TB_BUILD:?}/testbed
TBPERF=${TB_BUILD}/tools/tbperf
cd "${TB_ROOT:?}"

[ "$(id -u)" -eq 0 ] || { echo "needs root (namespaces, netlink)"; exit 77; }

# Names owned by this test: removed on exit whatever happens.
TB_NAMES=()
TB_TMP=$(mktemp -d /tmp/tbtest.XXXXXX)
tb_cleanup() {
	local n
	for n in "${TB_NAMES[@]}"; do "$TB" -q down "$n" >/dev/null 2>&1 || true; done
	rm -rf "$TB_TMP"
}
trap tb_cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# Whether two sweep folders A and B hold the same records: every CSV but cpu.csv, routing.csv
# but its measured decision times (column 7). Prints how many files it compared; fails naming
# the first that differs (with what B is, $3).
same_records() {
	local a=$1 b=$2 what=$3 f n=0
	for f in $(cd "$a" && find . -name '*.csv' ! -name cpu.csv | sort); do
		if [ "${f##*/}" = routing.csv ]; then
			cmp -s <(cut -d, -f1-6,8- "$a/$f") <(cut -d, -f1-6,8- "$b/$f") || fail "$what: $f differs"
		else
			cmp -s "$a/$f" "$b/$f" || fail "$what: $f differs"
		fi
		n=$((n + 1))
	done
	echo "$n"
}

# The CPU time /proc/stat counts, busy and total, as "busy total".
cpu_ticks() {
	local _c u n s idle iow irq sirq st
	read -r _c u n s idle iow irq sirq st _ </proc/stat
	echo "$((u + n + s + irq + sirq + st)) $((u + n + s + idle + iow + irq + sirq + st))"
}

# Waits (at most 10 s) until the machine is quiet, CPU under 30% busy over 0.2 s, before an
# emulated run whose timing or fidelity verdict a test judges: the kernel destroys the last
# test's namespaces asynchronously, which would otherwise count against this run.
settle() {
	local i b0 t0 b1 t1
	for i in $(seq 50); do
		read -r b0 t0 <<<"$(cpu_ticks)"
		sleep 0.2
		read -r b1 t1 <<<"$(cpu_ticks)"
		[ $(((b1 - b0) * 100)) -lt $(((t1 - t0) * 30)) ] && return 0
	done
	note "settle: the machine stayed busy for 10 s"
}

# A copy of a scenario with its name (and optionally other lines) replaced.
# usage: scenario_as SRC NAME [sed-expr...]
scenario_as() {
	local src=$1 name=$2 dst="$TB_TMP/$2.yaml"
	shift 2
	sed "s/^name: .*/name: $name/" "$src" >"$dst"
	local e
	for e in "$@"; do sed -i "$e" "$dst"; done
	echo "$dst"
}

# Runs SRC under NAME, edited by the sed expressions, with `testbed up`; checks that nothing
# of it remains and that JOBS jobs ended ok. Its results folder in RUN_DIR.
up_edited() { # up_edited SRC NAME JOBS [sed-expr...]
	local src=$1 n=$2 jobs=$3 f
	shift 3
	f=$(scenario_as "$src" "$n" "$@")
	TB_NAMES+=("$n")
	settle
	"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/$n.log" 2>&1 ||
		{ tail -20 "$TB_TMP/$n.log" >&2; fail "up $n"; }
	no_leftovers "$n"
	RUN_DIR=$(ls -d "$TB_TMP"/results/"$n"/*)
	[ "$(jq .totals.ok "$RUN_DIR/summary.json")" -eq "$jobs" ] ||
		fail "$n: $(cat "$RUN_DIR/jobs.csv")"
}

tb_up() { # tb_up FILE NAME
	TB_NAMES+=("$2")
	settle
	"$TB" up --results "$TB_TMP/results" --name "$2" "$1" >"$TB_TMP/up-$2.log" 2>&1 || { cat "$TB_TMP/up-$2.log"; fail "up $2"; }
}

# In-namespace command: nx NAME NODE cmd...
nx() { local n=$1 node=$2; shift 2; ip netns exec "tb-$n-$node" "$@"; }

# Endpoint address of a node, from the plan printout of `check --plan`.
ep_addr() { # ep_addr NAME NODE
	nx "$1" "$2" ip -4 -o addr show dev lo | awk '$4 !~ /^127/ {split($4, a, "/"); print a[1]}'
}

# Starts tbperf servers on the given nodes; they die with the namespaces.
serve_on() { # serve_on NAME NODE...
	local n=$1 node
	shift
	for node in "$@"; do nx "$n" "$node" "$TBPERF" serve >/dev/null 2>&1 & done
	for node in "$@"; do wait_listen "$n" "$node"; done
}

# A run's two timed rewires (failures.csv rows 1 and 2): the first refused while job 0's
# traffic used circuit BUSY, the second done with a dark time of 50-70 ms and 16 of 16
# probes answered after it; JOBS jobs ok. Sets DARK_NS and ROUTES_NS from the second.
check_rewires() { # check_rewires RESULTS_DIR BUSY JOBS
	local csv row1 row2
	csv=$(ls "$1"/*/failures.csv)
	sed 's/^/# /' "$csv"
	[ "$(awk -F, 'NR > 1 && $12 == "ok"' "$(dirname "$csv")/jobs.csv" | wc -l)" -eq "$3" ] ||
		{ cat "$(dirname "$csv")/jobs.csv"; fail "jobs not ok"; }
	row1=$(sed -n 2p "$csv")
	row2=$(sed -n 3p "$csv")
	[[ $row1 == *"refused: circuit $2 carries job 0's traffic"* ]] || fail "busy circuit rewired: $row1"
	[[ $row2 == *,ok ]] || fail "idle rewire: $row2"
	DARK_NS=$(echo "$row2" | cut -d, -f10)
	ROUTES_NS=$(echo "$row2" | cut -d, -f5)
	((DARK_NS >= 50000000 && DARK_NS <= 70000000)) || fail "runner's dark time $DARK_NS ns"
	[ "$(echo "$row2" | cut -d, -f8,9)" = 16,16 ] || fail "probe after the rewire: $row2"
}

# Every node reaches every other over TCP: servers on all, then each probes all.
probe_all() { # probe_all NAME NODE...
	local n=$1 node addrs out
	shift
	serve_on "$n" "$@"
	addrs=$(for node in "$@"; do ep_addr "$n" "$node"; done)
	for node in "$@"; do
		out=$(nx "$n" "$node" "$TBPERF" probe $addrs) || fail "$n: $node: $out"
	done
}

wait_listen() { # wait_listen NAME NODE: until the server listens (condition, not sleep)
	local i
	for i in $(seq 100); do
		nx "$1" "$2" ss -Hltn 'sport = :5201' | grep -q LISTEN && return 0
		sleep 0.05
	done
	fail "server on $2 never listened"
}

# Counter of an interface inside a node: ifstat NAME NODE IFACE tx_bytes
ifstat() { nx "$1" "$2" cat "/sys/class/net/$3/statistics/$4" 2>/dev/null || \
	ip netns exec "tb-$1-$2" sh -c "cat /sys/class/net/$3/statistics/$4"; }

no_leftovers() { # no_leftovers NAME: nothing of the testbed remains
	local n=$1
	! ip netns list | grep -q "^tb-$n-" || fail "namespaces of $n left: $(ip netns list | grep -c "^tb-$n-")"
	[ ! -e "/run/testbed/$n" ] || fail "state of $n left in /run/testbed/$n"
	! ls /run/netns 2>/dev/null | grep -q "^tb-$n-" || fail "/run/netns entries of $n left"
}
