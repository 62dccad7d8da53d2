#!/bin/bash
# SPDX-License-Identifier: MIT
# The model's next-hop prediction (route_hash_pick, route_trace) against the kernel: leaf l0
# of a 2-leaf x 1-host x 4-spine leaf-spine gets its nftables ruleset from the nftr effector,
# UDP flows cross it, and each flow's egress port must be the one the model predicts, by
# jhash (tag 0 or a tag past the group) or by DSCP path tag k (member k-1). Twice, with two
# seeds, the second install replacing the first. Also: `nft list ruleset` of what the effector
# installed must read like nftr_node_render's text (line wrapping and two display habits of
# nft 1.0.6 aside: DSCP 1 printed as "lephb", `ip dscp` as its bytecode). And a batch the
# kernel refuses must fail whole, with the failing object named.
#
#                         nfth-P-l0 (ECMP group of 4, marks 101..104)
#   nfth-P-h0             +------------------+            nfth-P-s0..s3 (sinks: DST on lo)
#   [eth0 SRC] ---------- [h0]      prerouting [s0] ----- [l0] recv
#                         |    output (local)  [s1] ----- [l0] recv
#                         |                    [s2] ----- [l0] recv
#                         +------------------- [s3] ----- [l0] recv
#
# Usage: t_nft_hash.sh [BUILD_DIR] (else $TB_BUILD, as run.sh sets it, else build).
# Exit 0 pass, 1 fail, 77 skip (no root, namespaces or nftables).
set -eEuo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${TB_BUILD:-build}}
[[ $BUILD == /* ]] || BUILD=$ROOT/$BUILD
NS=nfth-$$
TMP=$(mktemp -d)
PROBE=$BUILD/tools/nftr_probe
DPORT=5001
SEEDS="1 0xdeadbeef"
RECV_PIDS=()

log() { printf 't_nft_hash: %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; exit 1; }
skip() { log "SKIP: $*"; exit 77; }

cleanup() {
	local pid ns
	for pid in "${RECV_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	for ns in $(ip netns list 2>/dev/null | awk -v p="$NS-" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'fail "command failed at line $LINENO"' ERR

# Polls a condition (a command) for up to $1 tenths of a second.
wait_for() {
	local tries=$1
	shift
	until "$@"; do
		((--tries > 0)) || return 1
		sleep 0.1
	done
}

build_probe() {
	[[ -x $PROBE ]] || fail "$PROBE is missing: run make first"
}

preflight() {
	((EUID == 0)) || skip "needs root (network namespaces)"
	command -v ip >/dev/null || skip "needs iproute2's ip"
	ip netns add "$NS-probe" 2>/dev/null || skip "cannot create network namespaces"
	ip netns del "$NS-probe"
	command -v nft >/dev/null || log "no nft CLI: not comparing its listing with the render"
}

# The effector installs l0's ruleset; a kernel without nf_tables is a skip, not a failure.
install() {
	local err
	err=$(nsx l0 "$PROBE" install "$1" 2>&1) && return 0
	[[ $err == *"not supported"* ]] && skip "no nf_tables in this kernel: $err"
	fail "installing the ruleset (seed $1): $err"
}

nsx() { local ns=$1; shift; ip netns exec "$NS-$ns" "$@"; }

no_rp_filter() {
	nsx "$1" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
}

# veth from l0's port $1 (ifindex $2, address $3) to namespace $4's $5 (address $6)
link_l0() {
	ip -n "$NS-l0" link add "$1" index "$2" type veth peer name "$5" netns "$NS-$4"
	ip -n "$NS-l0" addr add "$3/31" dev "$1"
	ip -n "$NS-$4" addr add "$6/31" dev "$5"
	ip -n "$NS-l0" link set "$1" up
	ip -n "$NS-$4" link set "$5" up
	nsx l0 sysctl -qw "net.ipv4.conf.$1.rp_filter=0"
	nsx "$4" sysctl -qw "net.ipv4.conf.$5.rp_filter=0"
}

setup() {
	local i ifv idxv addrv peerv markv
	eval "$("$PROBE" layout 1)"
	for ns in h0 l0 s0 s1 s2 s3; do
		ip netns add "$NS-$ns"
		ip -n "$NS-$ns" link set lo up
		no_rp_filter "$ns"
	done
	nsx l0 sysctl -qw net.ipv4.ip_forward=1
	link_l0 "$EDGE_IF" "$EDGE_INDEX" "$EDGE_ADDR" h0 eth0 "$EDGE_PEER"
	ip -n "$NS-h0" addr add "$SRC_ADDR/32" dev eth0
	ip -n "$NS-h0" route add default via "$EDGE_ADDR" src "$SRC_ADDR"
	for ((i = 0; i < NH_N; i++)); do
		ifv=NH_${i}_IF idxv=NH_${i}_INDEX addrv=NH_${i}_ADDR peerv=NH_${i}_PEER
		markv=NH_${i}_MARK
		link_l0 "${!ifv}" "${!idxv}" "${!addrv}" "s$i" l0 "${!peerv}"
		ip -n "$NS-s$i" addr add "$DST_ADDR/32" dev lo
		# what `ip rule fwmark M lookup M` + one default route per table look like in up
		ip -n "$NS-l0" route add default via "${!peerv}" dev "${!ifv}" table "${!markv}"
		ip -n "$NS-l0" rule add fwmark "${!markv}" lookup "${!markv}" pref $((1000 + i))
	done
	# locally generated packets need some route before the output hook can reroute them
	ip -n "$NS-l0" route add "$DST_ADDR/32" via "$NH_0_PEER" dev "$NH_0_IF"
}

bound() { nsx "$1" ss -Hlun "sport = :$DPORT" | grep -q .; }

start_receivers() {
	local i
	for ((i = 0; i < NH_N; i++)); do
		# not through nsx: $! must be the receiver itself (ip execs it), not a subshell
		ip netns exec "$NS-s$i" "$PROBE" recv "$DPORT" >"$TMP/recv.s$i" &
		RECV_PIDS+=($!)
	done
	for ((i = 0; i < NH_N; i++)); do
		wait_for 50 bound "s$i" || fail "receiver in s$i did not bind"
	done
}

stop_receivers() {
	local pid
	for pid in "${RECV_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	RECV_PIDS=()
}

# Flows "sport dport tag": forwarded from h0 (hash, tags 1..4, tags past the group) and
# generated by l0 itself (output chain). Source ports keep them apart at the receivers.
flows_fwd() {
	local i
	for ((i = 0; i < 64; i++)); do echo "$((20000 + i * 7)) $DPORT 0"; done
	for ((i = 0; i < 16; i++)); do echo "$((30000 + i)) $DPORT $((i % 4 + 1))"; done
	for ((i = 0; i < 8; i++)); do echo "$((31000 + i)) $DPORT $((i % 2 ? 5 : 63))"; done
}

flows_local() {
	local i
	for ((i = 0; i < 32; i++)); do echo "$((40000 + i * 3)) $DPORT 0"; done
	for ((i = 0; i < 8; i++)); do echo "$((41000 + i)) $DPORT $((i % 4 + 1))"; done
}

received() { (($(cat "$TMP"/recv.s* | wc -l) >= $1)); }

# Sends one set of flows, then compares "sport port" seen with "sport port" predicted.
run_flows() { # name from-node saddr send-namespace flows-function seed
	local name=$1 from=$2 saddr=$3 sendns=$4 gen=$5 seed=$6 n i total match
	"$gen" >"$TMP/flows"
	n=$(wc -l <"$TMP/flows")
	"$PROBE" predict "$seed" "$from" "$saddr" <"$TMP/flows" | sort -n >"$TMP/want"
	: >"$TMP/got"
	start_receivers
	nsx "$sendns" "$PROBE" send "$saddr" "$DST_ADDR" <"$TMP/flows" ||
		fail "$name: sending flows"
	wait_for 50 received "$n" || log "$name: only $(cat "$TMP"/recv.s* | wc -l) of $n arrived"
	stop_receivers
	for ((i = 0; i < NH_N; i++)); do
		awk -v p="s$i" '{ print $1, p }' "$TMP/recv.s$i" >>"$TMP/got"
	done
	# the DSCP a flow carried must arrive unchanged
	awk 'NR == FNR { tag[$1] = $3; next } $2 != tag[$1] { bad++ } END { exit bad > 0 }' \
		"$TMP/flows" <(cat "$TMP"/recv.s*) || fail "$name: a flow's DSCP changed on the way"
	sort -n "$TMP/got" -o "$TMP/got"
	total=$(wc -l <"$TMP/want")
	match=$(join "$TMP/want" "$TMP/got" | awk '$2 == $3' | wc -l)
	log "seed $seed, $name: $match of $total flows left by the predicted port" \
		"(per port: $(cut -d' ' -f2 "$TMP/got" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }'))"
	if ((match != total || $(wc -l <"$TMP/got") != total)); then
		diff <(sed 's/^/want /' "$TMP/want") <(sed 's/^/got  /' "$TMP/got") >&2 || true
		fail "seed $seed, $name: the kernel disagrees with the model"
	fi
	rm -f "$TMP"/recv.s*
}

# One element list per line, and what nft 1.0.6 prints differently from the renderer.
norm_nft() {
	sed -e ':a' -e '/,$/{N;s/,\n[[:space:]]*/, /;ba' -e '}' \
		-e 's/(@nh,8,8 & 0xfc) >> 2/ip dscp/' -e 's/{ lephb :/{ 0x01 :/'
}

check_render() {
	local seed=$1
	command -v nft >/dev/null || return 0
	"$PROBE" render "$seed" | norm_nft >"$TMP/render.nft"
	nsx l0 nft list ruleset | norm_nft >"$TMP/list.nft"
	diff -u "$TMP/render.nft" "$TMP/list.nft" >&2 ||
		fail "seed $seed: nft lists the installed ruleset differently from the render"
}

# A batch the kernel refuses (an empty group: jhash modulo 0) must fail as a whole, name the
# object, and leave the ruleset installed before it untouched.
check_refused() {
	local seed=$1 err
	if err=$(nsx l0 "$PROBE" install-bad "$seed" 2>&1); then
		fail "the kernel accepted a jhash modulo 0"
	fi
	log "refused as expected: $err"
	[[ $err == *"adding rule 1 of chain g0_pre: "* ]] ||
		fail "the error does not name the failing rule: $err"
	check_render "$seed"
}

main() {
	local seed
	preflight
	build_probe
	setup
	for seed in $SEEDS; do
		install "$seed"
		check_render "$seed"
		run_flows forwarded h0 "$SRC_ADDR" h0 flows_fwd "$seed"
		run_flows local l0 "$EDGE_ADDR" l0 flows_local "$seed"
	done
	check_refused "$seed"
	log "PASS"
}

main
