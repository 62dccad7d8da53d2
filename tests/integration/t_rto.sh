#!/bin/bash
# SPDX-License-Identifier: MIT
# TCP's timeouts in the fidelity verdict, and the endpoints' rto_min (issue 34): at 500 kbit/s a
# 1 MiB queue holds 16.8 s of data, far beyond Linux's 200 ms least timeout, so TCP times out
# without any loss. With `emulation.rto_min: off` the verdict says degraded (transport) and
# summary.json counts the timeouts against zero drops; with `auto` every endpoint route
# carries rto_min (locked, from its path's queues) and no timeout fires. Either run may also
# be degraded by CPU on a busy machine: only the transport cause is judged here.
#
#                 sw                  one switch, every link 500 kbit/s, queues of 1 MiB
#           /   /    \   \
#         h0  h1     h2  h3           all-to-all, every rank sending to all at once
. "$(dirname "$0")/lib.sh"
n=it$$o
a=it$$a
src="$TB_TMP/src.yaml"
cat >"$src" <<'EOF'
name: x
topology:
  kind: best
  hosts_per_leaf: 4
  leaves: 1
  host_rate: 500kbit
shaping:
  queue: 1MiB
emulation:
  rto_min: off
workload:
  iterations: 2
  jobs:
    - {gpus: 4, collective: alltoall, algorithm: direct, bytes: 500KB, compute: 1ms}
EOF
f=$(scenario_as "$src" "$n")
TB_NAMES+=("$n" "$a")

# off: timeouts without drops, and the verdict says so
settle
"$TB" up --results "$TB_TMP/results" "$f" >"$TB_TMP/off.out" 2>"$TB_TMP/off.err" ||
	{ tail -20 "$TB_TMP/off.err"; fail "up $n"; }
no_leftovers "$n"
dir=$(ls -d "$TB_TMP"/results/"$n"/*)
sj="$dir/summary.json"
note "off: $(jq -c '[.fidelity.causes, .fidelity.transport]' "$sj")"
[ "$(jq .totals.ok "$sj")" -eq 1 ] || fail "the job did not end ok: $(cat "$dir/jobs.csv")"
jq -e '.fidelity.verdict == "degraded" and (.fidelity.causes | index("transport"))' "$sj" \
	>/dev/null || fail "rto_min off is not degraded (transport): $(jq -c .fidelity "$sj")"
jq -e '.fidelity.transport | .timeouts >= 10 and .drops == 0 and .endpoints == 4' "$sj" \
	>/dev/null || fail "transport counters: $(jq -c .fidelity.transport "$sj")"
jq -e '[.fidelity.reasons[] | select(.kind == "transport")] | length == 1' "$sj" >/dev/null ||
	fail "no transport reason"
grep -q '^fidelity: DEGRADED (.*transport.*)' "$dir/summary.txt" || fail "summary.txt: $(head -5 "$dir/summary.txt")"
grep -q 'DEGRADED (.*transport' "$TB_TMP/off.err" || fail "the terminal does not say it"
# tcp.csv: every endpoint read at the start and at the end, counters that never go down
awk -F, 'NR > 1 { n[$2]++; if ($3 < last[$2]) bad = 1; last[$2] = $3 }
	END { for (k in n) c++; exit !(c == 4 && !bad) }' "$dir/tcp.csv" ||
	fail "tcp.csv: $(head -5 "$dir/tcp.csv")"
"$TB_BUILD/tools/schema_check" docs/summary.schema.json "$sj" >/dev/null ||
	fail "summary.json does not validate"
off=$(jq .fidelity.transport.timeouts "$sj")

# auto: the kernel has each endpoint's route metric, and no timeout fires
f=$(scenario_as "$src" "$a" 's/rto_min: off/rto_min: auto/')
want=$("$TB" check --plan "$f" | awk '/^  route .* src / && /rto_min/ {print $NF; exit}')
[ "$want" = 33555ms ] || fail "rto_min for two hops of 1 MiB at 500 kbit/s: $want"
settle
"$TB" up --keep --results "$TB_TMP/results" "$f" >"$TB_TMP/auto.out" 2>"$TB_TMP/auto.err" ||
	{ tail -20 "$TB_TMP/auto.err"; fail "up $a"; }
routes=$(nx "$a" h0 ip route show)
note "h0: $routes"
echo "$routes" | grep -q "rto_min lock 33.5[0-9]*s\|rto_min lock 33555ms" ||
	fail "h0's route has no locked rto_min: $routes"
"$TB" -q down "$a" >/dev/null
no_leftovers "$a"
sj=$(ls -d "$TB_TMP"/results/"$a"/*)/summary.json
note "auto: $(jq -c '[.fidelity.causes, .fidelity.transport]' "$sj")"
[ "$(jq .totals.ok "$sj")" -eq 1 ] || fail "the job did not end ok under auto"
jq -e '.fidelity.causes | index("transport") | not' "$sj" >/dev/null ||
	fail "rto_min auto is still degraded (transport): $(jq -c .fidelity "$sj")"
[ "$(jq .fidelity.transport.timeouts "$sj")" -lt "$off" ] || fail "no fewer timeouts than off"
