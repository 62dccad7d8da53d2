#!/bin/bash
# SPDX-License-Identifier: MIT
# Connections per pair (`channels`) under per-flow ECMP, on scenarios/channels-a2a.yaml: an
# all-to-all among 8 hosts on 4 leaves under 2 spines, non-blocking but for the hash.
#  - `testbed check` prints the per-flow ECMP bound for the workload's channels: it rises
#    with K (more connections, more paths per pair);
#  - `testbed sim` of the sweep (1, 4, 16 channels): every run ok, busbw in the bound's order;
#  - emulated with 4 channels and verify: the job verifies, and the bytes on every
#    leaf-spine link direction are what the model predicts for the 4 connections' source
#    ports (`testbed check --loads`): per direction, bytes / (blocks x block x iterations)
#    within 10% of one another; the one-connection prediction does not fit them.
. "$(dirname "$0")/lib.sh"
SRC=scenarios/channels-a2a.yaml

bound() { # bound K: the job's per-flow ECMP bound with K channels
	local f
	f=$(scenario_as "$SRC" chb "/^sweep:/,\$d" "s/^  channels: 1$/  channels: $1/")
	"$TB" check "$f" | awk '/under per-flow ECMP for this workload/ { print $1 }'
}
b1=$(bound 1) b4=$(bound 4) b16=$(bound 16)
awk -v a="$b1" -v b="$b4" -v c="$b16" 'BEGIN { exit !(a < b && b < c && c <= 1.0001) }' ||
	fail "check bounds $b1 / $b4 / $b16 do not rise with channels"
note "per-flow ECMP bound: $b1 (1 channel), $b4 (4), $b16 (16) of injection bandwidth"

"$TB" sim --results "$TB_TMP/sim" "$SRC" >"$TB_TMP/sim.log" 2>&1 || { tail -20 "$TB_TMP/sim.log"; fail "sim"; }
sw=$(ls -d "$TB_TMP"/sim/*/*-sweep)
[ "$(jq '[.runs[] | select(.status == "ok")] | length' "$sw/sweep.json")" -eq 3 ] ||
	fail "sim sweep: $(jq -c '.runs' "$sw/sweep.json")"
busbw() { jq .totals.busbw_mean_GBps "$sw/v$1-s0/summary.json"; }
s1=$(busbw 0) s4=$(busbw 1) s16=$(busbw 2)
awk -v a="$s1" -v b="$s4" -v c="$s16" 'BEGIN { exit !(a < b && b < c) }' ||
	fail "sim busbw $s1 / $s4 / $s16 GB/s does not rise with channels"
note "sim busbw: $(printf '%.2f, %.2f, %.2f' "$s1" "$s4" "$s16") GB/s (ratios $(awk -v a="$s1" -v b="$s4" -v c="$s16" \
	'BEGIN { printf "%.3f, %.3f", b / a, c / a }'); bound ratios $(awk -v a="$b1" -v b="$b4" \
	-v c="$b16" 'BEGIN { printf "%.3f, %.3f", b / a, c / a }'))"

up_edited "$SRC" it$$c4 1 "/^sweep:/,\$d" "s/^  channels: 1$/  channels: 4/" \
	"s/^  iterations: 3$/  iterations: 3\n  verify: true/"
[ "$(jq -r ".jobs[0].verified" "$RUN_DIR/summary.json")" = true ] || fail "4 channels: not verified: $(cat "$RUN_DIR/jobs.csv")"
n=$(awk -F, 'NR == 2 { print $3 }' "$RUN_DIR/jobs.csv")
bytes=$(awk -F, 'NR == 2 { print $7 }' "$RUN_DIR/jobs.csv")
its=$(awk -F, 'NR > 1 { i[$3] } END { print length(i) }' "$RUN_DIR/iterations.csv")
spread() { # spread LOADS_CSV: min and max of the fabric directions' bytes / predicted bytes
	awk -F, -v blk="$((bytes / n))" -v it="$its" 'NR == FNR {
		if (FNR > 1 && $6 > 0 && ($3 ~ /^s/ || $4 ~ /^s/)) f[$1 "," $2] = $6; next }
		FNR > 1 { k = $2 "," $3; if (!(k in b0)) b0[k] = $4; b1[k] = $4 }
		END { min = -1; for (k in f) { r = (b1[k] - b0[k]) / (f[k] * blk * it)
			if (min < 0 || r < min) min = r; if (r > max) max = r }
			printf "%.3f %.3f %d\n", min, max, length(f) }' "$1" "$RUN_DIR/links.csv"
}
"$TB" check --loads "$(scenario_as "$SRC" chl4 "/^sweep:/,\$d" "s/^  channels: 1$/  channels: 4/")" >"$TB_TMP/l4.csv"
"$TB" check --loads "$(scenario_as "$SRC" chl1 "/^sweep:/,\$d")" >"$TB_TMP/l1.csv"
read -r lo hi dirs <<<"$(spread "$TB_TMP/l4.csv")"
read -r lo1 hi1 _ <<<"$(spread "$TB_TMP/l1.csv")"
((dirs == 16)) || fail "4 channels: $dirs fabric directions predicted, want 16"
awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(b <= 1.1 * a) }' ||
	fail "4 channels: bytes / prediction from $lo to $hi over the fabric: not where the model hashed them"
awk -v a="$lo1" -v b="$hi1" 'BEGIN { exit !(b > 1.1 * a) }' ||
	fail "4 channels fit the one-connection prediction too ($lo1 to $hi1): the test cannot tell"
note "4 channels, verified: fabric bytes / predicted $lo to $hi (against one connection's" \
	"prediction: $lo1 to $hi1); JRT $(jq .totals.avg_jrt_paper_s "$RUN_DIR/summary.json") paper s," \
	"fidelity $(jq -r .fidelity.verdict "$RUN_DIR/summary.json")"

# With transport.window (a lossless fabric's credits), `up` refuses connections per pair whose
# windows in flight overflow a queue past SHAPE_INFLIGHT_MAX (policy/shape.h), before making
# anything, naming the field's line, the link, the ratio and the most channels whose windows
# the queues hold: the HammingMesh all-to-all of scenarios/hxmesh-a2a.yaml with 16 (6.59x its
# queue) and 8 (3.42x), suggesting 2 (0.92x). Past 1x it warns and goes on: 4 (1.77x); at 1
# and 2 connections `check` prints the ratio as within.
hx() { scenario_as scenarios/hxmesh-a2a.yaml "chx$1" "s/^workload:$/workload:\n  channels: $1/"; }
for k in 8 16; do
	out=$("$TB" up "$(hx "$k")" 2>&1) && fail "up with $k channels: not refused"
	echo "$out" | grep -q "chx$k.yaml:[0-9]*:[0-9]*: workload.channels: .*keep up to .*x its queue of .* in flight.*deeper queues did not make up for it.*workload.channels 2 keeps within it$" ||
		fail "up with $k channels: $out"
	"$TB" check "$(hx "$k")" | grep -q "^in flight  \`up\` refuses it:" || fail "check with $k channels"
	no_leftovers "chx$k"
	note "$k channels refused: ${out#*: }"
done
for k in 1 2; do
	"$TB" check "$(hx "$k")" | grep -q "^in flight  with transport.window 8KiB and $k connections\{0,1\} per pair.* keep up to 0\.[0-9]*x .*(\`up\` warns past 1x and refuses past 2x)$" ||
		fail "check with $k channels: $("$TB" check "$(hx "$k")" | grep '^in flight')"
done
f=$(hx 4)
"$TB" check "$f" | grep -q "^in flight  with transport.window 8KiB and 4 connections per pair.* keep up to 1\.77x .*past 1x the queue drops.*workload.channels 2 keeps within it (\`up\` refuses past 2x)$" ||
	fail "check with 4 channels: $("$TB" check "$f" | grep '^in flight')"
# `up` says so before it builds: as nobody (readable file, no root), the warning comes before
# the refusal for want of root
chmod 711 "$TB_TMP" && chmod 644 "$f"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TB" up "$f" 2>&1) && fail "up as nobody ran"
echo "$out" | grep -q "^testbed up: warning: $f:[0-9]*:[0-9]*: workload.channels: .*keep up to 1\.77x .*past 1x the queue drops.*workload.channels 2 keeps within it" ||
	fail "up with 4 channels: no warning: $out"
echo "$out" | grep -q "needs root" || fail "up as nobody: $out"
# ... in every variant of a sweep, before the first runs
f=$(scenario_as scenarios/hxmesh-a2a.yaml chxs)
printf 'sweep:\n  workload.channels: [1, 16]\n' >>"$f"
out=$("$TB" up "$f" 2>&1) && fail "up of a sweep with a 16-channel variant: not refused"
echo "$out" | grep -q "workload.channels: .*keep up to 6\.59x .*(in sweep variant v1, channels=16)" ||
	fail "sweep with 16 channels: $out"
# `check` says so too, naming the variant, and still accepts the file (`sim` runs it)
out=$("$TB" check "$f") || fail "check of a sweep with a 16-channel variant: exit $?"
echo "$out" | grep -q "^emulation  \`up\` refuses the sweep: .*workload.channels: .*keep up to 6\.59x .*(in sweep variant v1, channels=16)" ||
	fail "check of a sweep with a 16-channel variant: $out"
no_leftovers chxs
