#!/bin/bash
# SPDX-License-Identifier: MIT
# ECMP: 32 flows from leaf l0 to leaf l1 over 4 spines land on the spines the jhash with the
# scenario's seed decides (`testbed path` predicts each, the kernel's counters show each);
# the same seed gives the identical spread on a rebuilt testbed, another seed a different
# one; a DSCP path tag k sends a flow through spine k-1 whatever its hash.
#
#          s0   s1   s2   s3
#           \ \  | \/ |  / /
#            l0 ------- l1          (every leaf to every spine, 200 Mbit/s)
#          h0..h15     h16..h31
. "$(dirname "$0")/lib.sh"
bytes=300000

uplinks() { # uplink tx counters of l0, one line: s0 s1 s2 s3
	nx "$1" l0 sh -c 'for s in s0 s1 s2 s3; do cat /sys/class/net/$s/statistics/tx_bytes; done' |
		tr '\n' ' '
}

# The spine whose l0 uplink carried one flow: the one whose counter grew by >= bytes.
observe() { # observe NAME SRC DST SPORT TOS
	local n=$1 before after i s=-1
	before=($(uplinks "$n"))
	nx "$n" "$2" "$TBPERF" send "$(ep_addr "$n" "$3")" --bytes $bytes --sport "$4" --tos "$5" \
		>/dev/null || fail "flow $2 -> $3 sport $4 failed"
	after=($(uplinks "$n"))
	for i in 0 1 2 3; do
		if ((after[i] - before[i] >= bytes)); then
			((s < 0)) || fail "flow $2 -> $3 sport $4 crossed two spines"
			s=$i
		fi
	done
	((s >= 0)) || fail "flow $2 -> $3 sport $4 crossed no spine"
	echo "s$s"
}

flows() { # the 32 flows: SRC DST SPORT
	local i
	for i in $(seq 0 31); do echo "h$((i % 16)) h$((16 + (i * 5) % 16)) $((40000 + i))"; done
}

# Runs the 32 flows on a fresh testbed with SEED and writes one spine per flow to
# $TB_TMP/spines.TAG, after checking each against the model's prediction. (Not in a
# subshell: its names must reach the cleanup trap and its failures must end the test.)
run_seed() { # run_seed SEED TAG
	local n=it$$e$2 f src dst sport want got out=""
	f=$(scenario_as scenarios/ecmp-4spine.yaml "$n" "s/seed: .*/seed: $1/")
	tb_up "$f" "$n"
	serve_on "$n" $(seq -f 'h%g' 16 31)
	while read -r src dst sport; do
		want=$("$TB" path "$n" "$src" "$dst" --sport "$sport" --dport 5201 | awk '{print $3}')
		got=$(observe "$n" "$src" "$dst" "$sport" 0)
		[ "$want" = "$got" ] || fail "seed $1: $src -> $dst sport $sport took $got, model says $want"
		out="$out $got"
	done < <(flows)
	if [ "$2" = a ]; then # DSCP path tags, on the first testbed only
		for k in 1 2 3 4; do
			for src in h3 h9; do
				got=$(observe "$n" "$src" h20 $((41000 + k * 10 + ${src#h})) $((k << 2)))
				[ "$got" = "s$((k - 1))" ] || fail "tag $k from $src took $got, want s$((k - 1))"
			done
		done
		note "DSCP tags 1..4 pinned flows to s0..s3"
	fi
	"$TB" down "$n" >/dev/null
	no_leftovers "$n"
	echo "$out" >"$TB_TMP/spines.$2"
}

spread() { echo "$1" | tr ' ' '\n' | grep . | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}'; }

run_seed 7 a
a=$(cat "$TB_TMP/spines.a")
note "seed 7: $(spread "$a")"
run_seed 7 b
b=$(cat "$TB_TMP/spines.b")
[ "$a" = "$b" ] || fail "seed 7 gave different spines on a rebuilt testbed:\n$a\n$b"
note "seed 7 again: identical, flow by flow"
run_seed 8 c
c=$(cat "$TB_TMP/spines.c")
note "seed 8: $(spread "$c")"
[ "$a" != "$c" ] || fail "seeds 7 and 8 put every flow on the same spine"
note "32/32 flows matched the model on every run"
