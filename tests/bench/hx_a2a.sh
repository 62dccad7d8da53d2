#!/bin/bash
# SPDX-License-Identifier: MIT
# HammingMesh global bandwidth: scenarios/hxmesh-a2a.yaml, one all-to-all among the 64
# accelerators of the 4x4 Hx2Mesh, run by the workload runner under per-flow ECMP with 1, 4
# and 16 connections per pair (`channels`), and then with per-packet spraying, against our
# fluid prediction and the bound per-flow hashing leaves for each channel count. `up` warns
# of 4 (their windows overflow the queues) and refuses 16 (past twice the queues): the
# refusal, with its ratio, is 16's line.
#
# The figure is HammingMesh's (§V-A1, Table II "glob. BW"): bytes an accelerator
# delivers per second, over its injection bandwidth (its four ports, 4R):
#   fraction = (N-1) * block * 8 / T / (4 R)
# with T an iteration's all-to-all time, from the earliest rank starting it to the last
# finishing (iterations.csv: min t_compute_end to max t_end), block = bytes / N (jobs.csv),
# R the emulated link rate. Printed per iteration and as the mean, over the fluid value (the
# target: +-15%) and over the bound hashing leaves this run's connections (`testbed check`
# prints both; with K channels each pair's block is split over K hashed connections).
# CPU: busy = 1 - (idle + iowait) / total from /proc/stat over each run.
# Usage: hx_a2a.sh BUILD_DIR [SCENARIO]   (as root; default scenarios/hxmesh-a2a.yaml)
set -eu
BUILD=$(cd "${1:-build}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ "$(id -u)" -eq 0 ] || { echo "hx_a2a: needs root"; exit 1; }
TB=$BUILD/testbed
TMP=$(mktemp -d /tmp/tbhxa.XXXXXX)
NAME=hxa$$
cleanup() {
	"$TB" -q down "$NAME" >/dev/null 2>&1 || true
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
	return 0
}
trap cleanup EXIT

SCN=${2:-scenarios/hxmesh-a2a.yaml}
# A copy of the scenario with routing.spray and workload.channels set: variant SPRAY K
variant() {
	sed -e "s/^name: .*/name: $NAME/" -e "s/^  spray: .*/  spray: $1/" \
		-e "s/^workload:$/workload:\n  channels: $2/" "$SCN" >"$TMP/$NAME-$1-$2.yaml"
	echo "$TMP/$NAME-$1-$2.yaml"
}
check=$("$TB" check "$SCN")
fluid=$(echo "$check" | awk '/^alltoall/ { print $2 }')
rate=$(echo "$check" | awk '/^rate/ { print $2 }')
# the bounds for K channels: the mean over random ports, and this run's ports
hashed() { "$TB" check "$(variant false "$1")" | awk -v k="$1" '
	k == 1 && /under per-flow ECMP, one flow per pair/ { print $1 }
	k > 1 && /flows per pair \(the workload/ { print $1 }'; }
job() { "$TB" check "$(variant false "$1")" | awk '/under per-flow ECMP for this workload/ { print $1 }'; }
case $rate in
*Mbit) R=$(awk -v r="${rate%Mbit}" 'BEGIN { printf "%.0f", r * 1e6 }') ;;
*Kbit) R=$(awk -v r="${rate%Kbit}" 'BEGIN { printf "%.0f", r * 1e3 }') ;;
*) echo "hx_a2a: unexpected link rate '$rate'"; exit 1 ;;
esac

cpu() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
busy() { # busy "TOTAL0 IDLE0" "TOTAL1 IDLE1"
	echo "$1 $2" | awk '{ printf "%.2f", 1 - ($4 - $2) / ($3 - $1) }'
}

# The one job's column K of jobs.csv (3: GPUs, 7: bytes per accelerator).
job_field() { awk -F, -v k="$2" 'NR == 2 { print $k }' "$1/jobs.csv"; }

# per iteration: fraction = (N-1) * block * 8 / T / (4 R)
fractions() { # fractions RUN_DIR
	local n bytes
	n=$(job_field "$1" 3)
	bytes=$(job_field "$1" 7)
	awk -F, -v n="$n" -v b="$bytes" -v r="$R" 'NR > 1 {
		i = $3; if (!(i in s) || $5 < s[i]) s[i] = $5; if ($6 > e[i]) e[i] = $6 }
		END { for (i = 0; i in s; i++) {
			t = (e[i] - s[i]) / 1e9; f = (n - 1) * (b / n) * 8 / t / (4 * r)
			printf "%s%.3f (%.1f s)", i ? ", " : "", f, t; sum += f; k++ }
			printf "\t%.3f\n", sum / k }' "$1/iterations.csv"
}

# Diagnostics, not the figure: how busy the links were from the first rank starting the
# all-to-all to the last finishing it (wire bytes, headers and ACKs included; the mean over
# every direction, PCB links too, which the fluid model loads lightly, and the busiest), and
# per iteration the median rank's end against the last one's: the tail stragglers add to T.
diag() { # diag RUN_DIR
	local s e
	s=$(awk -F, 'NR > 1 && (!m || $5 < m) { m = $5 } END { print m }' "$1/iterations.csv")
	e=$(awk -F, 'NR > 1 && $6 > m { m = $6 } END { print m }' "$1/iterations.csv")
	awk -F, -v s="$s" -v e="$e" -v r="$R" 'NR > 1 { k = $2 "," $3
		if ($1 >= s && !(k in t0)) { t0[k] = $1; b0[k] = $4 }
		if ($1 <= e) { t1[k] = $1; b1[k] = $4 } }
		END { for (k in t0) { u = (b1[k] - b0[k]) * 8 / ((t1[k] - t0[k]) / 1e9) / r
			sum += u; n++; if (u > max) max = u }
			printf "links busy mean %.2f, busiest %.2f;", sum / n, max }' "$1/links.csv"
	tail -n +2 "$1/iterations.csv" | sort -t, -k3,3n -k6,6n | awk -F, '{
		i = $3; e[i, ++n[i]] = $6; if (!(i in s) || $5 < s[i]) s[i] = $5 }
		END { for (i = 0; i in n; i++) printf " iteration %d ends %.1f s (median rank), %.1f s (last);",
			i, (e[i, int((n[i] + 1) / 2)] - s[i]) / 1e9, (e[i, n[i]] - s[i]) / 1e9 }'
	echo
}

# Under per-flow ECMP, whether the kernel routed the flows where the model says
# (`testbed check --loads`: flows and blocks per link direction for this job's ports): per
# direction that carries any, bytes sent over the run / (blocks x block x iterations). Equal ratios
# everywhere (headers and ACKs make them a little above 1) mean the bound above is what the
# kernel did; a hashing mismatch would spread them apart.
paths() { # paths RUN_DIR K
	local n bytes iters
	n=$(job_field "$1" 3)
	bytes=$(job_field "$1" 7)
	iters=$(awk -F, 'NR > 1 { i[$3] } END { print length(i) }' "$1/iterations.csv")
	"$TB" check --loads "$(variant false "$2")" >"$TMP/loads.csv"
	awk -F, -v blk="$((bytes / n))" -v it="$iters" 'NR == FNR { if (FNR > 1 && $6 > 0) f[$1 "," $2] = $6; next }
		FNR > 1 { k = $2 "," $3; if (!(k in b0)) b0[k] = $4; b1[k] = $4 }
		END { for (k in f) print (b1[k] - b0[k]) / (f[k] * blk * it) }' \
		"$TMP/loads.csv" "$1/links.csv" | sort -g | awk '{ r[NR] = $1 } END {
		printf "kernel vs model: bytes / (predicted blocks x block x iterations) on %d directions:", NR
		printf " min %.3f, median %.3f, max %.3f\n", r[1], r[int((NR + 1) / 2)], r[NR] }'
}

measure() { # measure LABEL SPRAY K
	local f c0 c1 run out bound rc
	f=$(variant "$2" "$3")
	bound=$([ "$2" = true ] && echo "$fluid" || job "$3")
	c0=$(cpu)
	rc=0
	"$TB" up --results "$TMP/results" --name "$NAME" "$f" >"$TMP/up-$2-$3.log" 2>&1 || rc=$?
	c1=$(cpu)
	# a figure too: connections whose windows overflow the queues past SHAPE_INFLIGHT_MAX are
	# refused before anything is built (docs/scenario.md, transport.window)
	if [ "$rc" -eq 2 ] && grep -q "in flight" "$TMP/up-$2-$3.log"; then
		printf '%-22s refused by up: %s\n' "$1" \
			"$(grep -o 'keep up to [0-9.]*x its queue[^;]*' "$TMP/up-$2-$3.log" | head -1)"
		return 0
	fi
	[ "$rc" -eq 0 ] || { tail -20 "$TMP/up-$2-$3.log"; exit 1; }
	run=$(ls -d "$TMP/results/$NAME"/* | tail -1)
	if ! grep -q ',ok,' "$run/jobs.csv"; then # a figure too: the machine could not carry it
		printf '%-22s failed after %s s (CPU %s, %s drops): %s\n' "$1" \
			"$(awk -F, 'NR == 2 { printf "%.1f", ($11 - $10) / 1e9 }' "$run/jobs.csv")" \
			"$(busy "$c0" "$c1")" "$(jq .totals.drops "$run/summary.json")" \
			"$(awk -F, 'NR == 2 { print $14 }' "$run/jobs.csv")"
		mv "$run" "$TMP/run-$2-$3"
		return 0
	fi
	out=$(fractions "$run")
	printf '%-22s %-34s %6s %7.2f %7.2f %6s\n' "$1" "${out%%$'\t'*}" "${out##*$'\t'}" \
		"$(awk -v f="${out##*$'\t'}" -v p="$fluid" 'BEGIN { print f / p }')" \
		"$(awk -v f="${out##*$'\t'}" -v p="$bound" 'BEGIN { print f / p }')" "$(busy "$c0" "$c1")"
	printf '%-22s %s\n' "" "$(diag "$run")"
	[ "$2" = true ] || printf '%-22s %s\n' "" "$(paths "$run" "$3")"
	mv "$run" "$TMP/run-$2-$3"
}

echo "hx_a2a: all-to-all on the 4x4 Hx2Mesh (64 accelerators), links at $rate, $(nproc) cores," \
	"load $(cut -d' ' -f1 /proc/loadavg)"
echo "fluid prediction $fluid of injection (our fluid model: 0.328), target $(awk -v p="$fluid" \
	'BEGIN { printf "%.3f to %.3f", p * 0.85, p * 1.15 }')"
for k in 1 4 16; do
	echo "per-flow ECMP bound with $k connection(s) per pair: $(hashed "$k") (mean of random" \
		"ports), $(job "$k") (this run's ports)"
done
printf '\n%-22s %-34s %6s %7s %7s %6s\n' "" "fraction per iteration (T)" "mean" "/fluid" "/bound" "CPU"
measure "per-flow ECMP, 1 chan" false 1
measure "per-flow ECMP, 4 chan" false 4
measure "per-flow ECMP, 16 chan" false 16
measure "per-packet spraying" true 1
