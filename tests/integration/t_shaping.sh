#!/bin/bash
# SPDX-License-Identifier: MIT
# Shaping accuracy: one TCP flow over a path whose bottleneck is R gets 93-101% of R in
# steady-state goodput (R = 100 Mbit/s and 1 Gbit/s with the default htb, 1 Gbit/s with tbf);
# two flows
# sharing the bottleneck get 50% +- 10% of R each over 12 s of steady state (over 8 s, one
# run in a CI of 36 tests saw 0.40/0.56: CUBIC's sawtooths average out slowly). Endpoint
# processes are pinned to CPUs, as the runner pins emu-nodes: unpinned, the scheduler
# migrating senders between the two cores skews the shares for seconds at a time.
#
#   h0 \           / h2
#       l0 -- s0 -- l1          host links 2R, l0-s0-l1 at R
#   h1 /           \ h3
. "$(dirname "$0")/lib.sh"

ratio() { awk -v g="$1" -v r="$2" 'BEGIN { printf "%.4f", g / r }'; }
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
steady() { sed -n 's/.*steady_bps=\([0-9]*\).*/\1/p'; }
ncpu=$(nproc)
cpu() { echo $(($1 % ncpu)); }

run_rate() { # run_rate RATE_BITS FABRIC_MBIT QDISC TAG
	local rb=$1 mb=$2 q=$3 n=it$$s$4 f out r1 r2 pid
	f=$(scenario_as scenarios/shaping-line.yaml "$n" "s/fabric_rate: .*/fabric_rate: ${mb}Mbit/" \
		"s/host_rate: .*/host_rate: $((2 * mb))Mbit/" "s/qdisc: .*/qdisc: $q/")
	tb_up "$f" "$n"
	nx "$n" h2 taskset -c "$(cpu 1)" "$TBPERF" serve >/dev/null 2>&1 &
	nx "$n" h3 taskset -c "$(cpu 0)" "$TBPERF" serve >/dev/null 2>&1 &
	wait_listen "$n" h2
	wait_listen "$n" h3
	out=$(nx "$n" h0 taskset -c "$(cpu 0)" "$TBPERF" send "$(ep_addr "$n" h2)" --time 4 --warmup 1)
	r1=$(ratio "$(echo "$out" | steady)" "$rb")
	echo "single flow ${mb}Mbit $q: goodput/R = $r1"
	within "$r1" 0.93 1.01 || fail "single flow at ${mb}Mbit ($q): $r1 of R, want 0.93..1.01"
	# both flows start at one instant and are counted over one window: 2 s to 14 s
	at=$(awk -v t="$("$TBPERF" now)" 'BEGIN { printf "%.3f", t + 0.3 }')
	nx "$n" h0 taskset -c "$(cpu 0)" "$TBPERF" send "$(ep_addr "$n" h2)" --time 14 --warmup 2 \
		--start-at "$at" >"$TB_TMP/a" &
	pid=$!
	nx "$n" h1 taskset -c "$(cpu 1)" "$TBPERF" send "$(ep_addr "$n" h3)" --time 14 --warmup 2 \
		--start-at "$at" >"$TB_TMP/b"
	wait $pid
	r1=$(ratio "$(steady <"$TB_TMP/a")" "$rb")
	r2=$(ratio "$(steady <"$TB_TMP/b")" "$rb")
	echo "two flows ${mb}Mbit $q: $r1 and $r2 of R"
	within "$r1" 0.40 0.60 || fail "flow 1 of 2 got $r1 of R, want 0.40..0.60"
	within "$r2" 0.40 0.60 || fail "flow 2 of 2 got $r2 of R, want 0.40..0.60"
	"$TB" down "$n" >/dev/null
	no_leftovers "$n"
}

run_rate 100000000 100 htb a
run_rate 1000000000 1000 htb b
run_rate 1000000000 1000 tbf c
