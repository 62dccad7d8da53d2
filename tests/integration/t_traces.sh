#!/bin/bash
# SPDX-License-Identifier: MIT
# Public GPU-cluster traces as published (docs/scenario.md, workload.trace), in `testbed check`
# and `testbed sim` only, as a user without root (no namespace is made):
# - each layout's sample (scenarios/traces/: Helios, Philly, Alibaba PAI, ElasticFlow, and
#   headers mapped by hand) through its scenario: check and the run's summary.json count the
#   same rows left out, by reason (and `testbed report` of a copy of the folder again); every
#   job runs; the replay's Avg.JRT is the mean length of the rows kept, as awk reads them from
#   the CSV, times duration_scale (within 5%: a leaf-spine adds a little contention to each
#   all-reduce);
# - a UTF-8 byte order mark and CRLF line ends read alike; UTF-16, with a byte order mark or
#   without, refused as such; a row of 0 GPUs counted;
# - ElasticFlow's cluster03 as published (tests/fixtures/traces/, 3,011 jobs) on a
#   non-blocking switch of 64 GPUs: check accepts it as it is, and the replay's Avg.JRT is the
#   trace's mean duration within 5% (queueing changes when a job starts, not how long it runs).
#
#   the samples:   s0  s1  s2  s3              cluster03:       one switch
#                 l0  l1  l2  l3 (4 GPUs each)                   h0 .. h63
. "$(dirname "$0")/lib.sh"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user true 2>/dev/null || { echo "setpriv cannot drop to nobody here"; exit 77; }
chmod 0777 "$TB_TMP"
SCHEMA=${TB_BUILD}/tools/schema_check
before=$(ip netns list | wc -l)

# What `make install` ships of scenarios/traces/ is the samples: 70 files of a fuzzer's corpus
# once landed there and were installed with them.
for f in "$TB_ROOT"/scenarios/traces/*; do
	[[ $f == *.csv || $f == */README* ]] || fail "scenarios/traces/ holds $(basename "$f"), not a sample"
done

sim() { # sim FILE: runs it as nobody; its results folder in RUN_DIR
	local out=$TB_TMP/r-$(basename "$1" .yaml)
	as_user "$TB" sim --results "$out" "$1" >"$TB_TMP/sim.out" 2>"$TB_TMP/sim.err" ||
		{ tail -20 "$TB_TMP/sim.err"; fail "sim $1"; }
	RUN_DIR=$(ls -d "$out"/*/*)
	"$SCHEMA" docs/summary.schema.json "$RUN_DIR/summary.json" >/dev/null ||
		fail "$1: summary.json invalid"
}

# The rows kept and their mean length in seconds, "n mean", read from the CSV by awk (not by
# testbed): rows of 1 to 16 GPUs with a length, in the states the scenario keeps.
kept() { # kept LAYOUT FILE
	case $1 in
	helios) # a user field holds a quoted comma: count fields from the end
		awk -F, '/^#/ || !h++ { next } $(NF-8) > 0 && $(NF-8) <= 16 { n++; s += $(NF-1) }
			END { print n, s / n }' "$2" ;;
	philly) # date-times: date(1) subtracts them, as UTC
		grep -v '^#' "$2" | tail -n +2 | while IFS=, read -r _ _ _ _ _ start end gpus; do
			[ "$end" = None ] || [ "$gpus" -gt 16 ] && continue
			echo $(($(date -u -d "$end" +%s) - $(date -u -d "$start" +%s)))
		done | awk '{ n++; s += $1 } END { print n, s / n }' ;;
	pai) # Terminated and Failed; plan_gpu rounded up to whole GPUs
		awk -F, '/^#/ || !h++ { next } $4 == "Terminated" || $4 == "Failed" {
			g = int($7 / 100); if (g * 100 < $7) g++
			if (g > 0 && g <= 16) { n++; s += $6 - $5 } }
			END { print n, s / n }' "$2" ;;
	elasticflow)
		awk -F, '/^#/ || !h++ { next } $4 > 0 && $4 <= 16 { n++; s += $3 }
			END { print n, s / n }' "$2" ;;
	columns) # outcome ok, as the scenario's states keep
		awk -F, '/^#/ || !h++ { next } $5 == "ok" && $3 > 0 && $3 <= 16 { n++; s += $4 }
			END { print n, s / n }' "$2" ;;
	esac
}

# The left-out lines of check's output, without the field that decides (summary.txt's form).
check_left() { sed -n 's/^ *\([0-9]* trace rows\{0,1\} .*: left out\).*/\1/p'; }

# scenario layout sample duration_scale, and the counts summary.json must give:
# state no_gpus no_duration limit oversize
while read -r scen layout csv scale want <&3; do
	f=scenarios/$scen.yaml
	read -r n mean <<<"$(kept "$layout" "scenarios/traces/$csv")"
	said=$(as_user "$TB" check "$f") || fail "check $f"
	[ "$(echo "$said" | awk '$1 == "jobs" { print $2 }')" = "$n" ] ||
		fail "$scen: check says $(echo "$said" | grep '^jobs'), awk keeps $n rows"
	sim "$f"
	got=$(jq -r '.trace_rows_left_out | "\(.state) \(.no_gpus) \(.no_duration) \(.limit) \(.oversize)"' \
		"$RUN_DIR/summary.json")
	[ "$got" = "${want//,/ }" ] || fail "$scen: summary.json left out $got, want ${want//,/ }"
	[ "$(jq .trace_rows_left_out.total "$RUN_DIR/summary.json")" -eq \
		$((${want//,/+})) ] || fail "$scen: total $(jq -c .trace_rows_left_out "$RUN_DIR/summary.json")"
	[ "$(echo "$said" | check_left)" = "$(check_left <"$RUN_DIR/summary.txt")" ] ||
		fail "$scen: check says '$(echo "$said" | check_left)', summary.txt '$(check_left <"$RUN_DIR/summary.txt")'"
	[ "$(grep -c ': left out$' "$TB_TMP/sim.err")" -eq "$(echo "$said" | check_left | wc -l)" ] ||
		fail "$scen: sim said $(grep 'left out' "$TB_TMP/sim.err")"
	[ "$(jq .totals.ok "$RUN_DIR/summary.json")" -eq "$n" ] ||
		fail "$scen: $(jq -c .totals "$RUN_DIR/summary.json")"
	jrt=$(jq .totals.avg_jrt_paper_s "$RUN_DIR/summary.json")
	ratio=$(awk -v j="$jrt" -v m="$mean" -v k="$scale" 'BEGIN { printf "%.4f", j / (m * k) }')
	awk -v r="$ratio" 'BEGIN { exit !(r > 0.95 && r < 1.05) }' ||
		fail "$scen: Avg.JRT $jrt paper s, its rows' mean length $mean s x $scale: ratio $ratio"
	note "$scen ($layout): $n jobs, left out ${want//,/ } (state no_gpus no_duration limit" \
		"oversize); Avg.JRT $jrt s = $ratio x the mean length $mean s x $scale"
done 3<<'EOF'
trace helios helios-sample.csv 0.0005 0,2,0,0,2
trace-philly philly philly-sample.csv 0.0005 0,0,1,0,1
trace-pai pai pai-sample.csv 0.0005 2,1,0,0,1
trace-elasticflow elasticflow elasticflow-sample.csv 0.0002 0,0,0,0,1
trace-columns columns columns-sample.csv 0.001 3,1,0,0,0
EOF

# `testbed report` makes the summaries again from a copy of the folder: the rows left out too
cp -r "$RUN_DIR" "$TB_TMP/copy"
rm -rf "$TB_TMP/copy/plots" "$TB_TMP/copy/summary.txt"
"$TB" report "$TB_TMP/copy" >/dev/null 2>"$TB_TMP/report.err" || { cat "$TB_TMP/report.err"; fail "report"; }
for f in summary.json summary.txt; do
	cmp "$RUN_DIR/$f" "$TB_TMP/copy/$f" || fail "trace-columns: report of a copy changed $f"
done

# A trace as a spreadsheet may save it: a UTF-8 byte order mark and CRLF, read alike; UTF-16
# refused as such, with its byte order mark or without (its ASCII's NUL bytes).
with_trace() { # with_trace NAME CSV: trace-elasticflow.yaml reading CSV, as NAME.yaml
	sed "s|file: .*|file: $2|" scenarios/trace-elasticflow.yaml >"$TB_TMP/$1.yaml"
	chmod 0644 "$TB_TMP/$1.yaml" "$2"
	echo "$TB_TMP/$1.yaml"
}
ef=scenarios/traces/elasticflow-sample.csv
{ printf '\357\273\277'; sed 's/$/\r/' "$ef"; } >"$TB_TMP/crlf.csv"
a=$(as_user "$TB" check scenarios/trace-elasticflow.yaml | grep -v '^scenario')
b=$(as_user "$TB" check "$(with_trace crlf "$TB_TMP/crlf.csv")" | grep -v '^scenario')
[ "$a" = "$b" ] || fail "BOM and CRLF: check says\n$b\nnot\n$a"
iconv -f UTF-8 -t UTF-16 "$ef" >"$TB_TMP/u16.csv"
iconv -f UTF-8 -t UTF-16LE "$ef" >"$TB_TMP/u16le.csv"
for v in "u16:UTF-16 text (byte order mark FF FE)" "u16le:a NUL byte: UTF-16 text without a byte order mark"; do
	rc=0
	out=$(as_user "$TB" check "$(with_trace "${v%%:*}" "$TB_TMP/${v%%:*}.csv")" 2>&1) || rc=$?
	((rc == 2)) && [[ $out == *"$TB_TMP/${v%%:*}.csv:1: ${v#*:}"* ]] ||
		fail "${v%%:*}: exit $rc: $out"
done
out=$(as_user "$TB" check "$(with_trace zero tests/fixtures/traces/zero-gpus.csv)")
[[ $out == *"jobs       1"*"1 trace row has 0 GPUs (a CPU job): left out"* ]] ||
	fail "zero-gpus: $out"
note "a UTF-8 BOM and CRLF read alike, UTF-16 refused with and without its BOM, 0 GPUs counted"

# ElasticFlow's cluster03, exactly as published, on one non-blocking switch of 64 GPUs (its
# largest jobs), one iteration per job (a job's length is its duration however many)
ef=tests/fixtures/traces/elasticflow-cluster03.csv
[ "$(sha256sum <"$ef" | cut -d' ' -f1)" = 282d765c5289ab0ba870f494dd2c67893f9d16d726fdc8a51f13b7412515dbf8 ] ||
	fail "$ef is not the published file"
cat >"$TB_TMP/ef03.yaml" <<EOF2
name: ef-cluster03
topology: {kind: best, hosts_per_leaf: 8, leaves: 8, host_rate: 100Gbit}
workload:
  iterations: 1
  trace:
    file: $ef
EOF2
chmod 0644 "$TB_TMP/ef03.yaml"
said=$(as_user "$TB" check "$TB_TMP/ef03.yaml") || fail "check cluster03: $said"
[ "$(echo "$said" | awk '$1 == "jobs" { print $2 }')" = 3011 ] || fail "cluster03: $said"
! echo "$said" | grep -q 'left out' || fail "cluster03: $(echo "$said" | grep 'left out')"
read -r n mean <<<"$(awk -F, 'NR > 1 { n++; s += $3 } END { printf "%d %.4f\n", n, s / n }' "$ef")"
((n == 3011)) || fail "cluster03: awk reads $n rows"
sim "$TB_TMP/ef03.yaml"
[ "$(jq .totals.ok "$RUN_DIR/summary.json")" -eq 3011 ] || fail "cluster03: $(jq -c .totals "$RUN_DIR/summary.json")"
[ "$(jq .trace_rows_left_out.total "$RUN_DIR/summary.json")" -eq 0 ] || fail "cluster03: rows left out"
jrt=$(jq .totals.avg_jrt_paper_s "$RUN_DIR/summary.json")
ratio=$(awk -v j="$jrt" -v m="$mean" 'BEGIN { printf "%.5f", j / m }')
awk -v r="$ratio" 'BEGIN { exit !(r > 0.95 && r < 1.05) }' ||
	fail "cluster03: Avg.JRT $jrt s against a mean duration of $mean s: ratio $ratio"
note "ElasticFlow cluster03: $n rows, mean duration $mean s; sim on 64 GPUs (best): Avg.JRT" \
	"$jrt s, ratio $ratio; Avg.JWT $(jq .totals.avg_jwt_paper_s "$RUN_DIR/summary.json") s"
[ "$(ip netns list | wc -l)" -eq "$before" ] || fail "a namespace was made"
