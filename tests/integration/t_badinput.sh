#!/bin/bash
# Bad input that cannot be a fixture file: a scenario or trace that is a FIFO, a device, a
# directory, missing or oversized, 100,000 levels of nesting, a topology of 2^31 links.
# `check` answers each within 1 s and 100 MB with exit 2 and the path or position at
# fault, and `up` of the same exits 2 having built nothing. (No topology is built.)
. "$(dirname "$0")/lib.sh"
n=it$$b
TB_NAMES+=("$n")
d=$TB_TMP
mkfifo "$d/fifo.yaml" "$d/fifo.csv"
mkdir "$d/dir.yaml"
head -c $((5 << 20)) /dev/zero | tr '\0' '#' >"$d/huge.yaml"
{
	printf 'name: %s\ntopology: {kind: leafspine, hosts_per_leaf: 2, leaves: 2, spines: 1, host_rate: 1Gbit}\nx: ' "$n"
	head -c 100000 /dev/zero | tr '\0' '['
	head -c 100000 /dev/zero | tr '\0' ']'
	echo
} >"$d/deep.yaml"
trace() { # trace NAME PATH: a scenario replaying PATH as its trace
	printf 'name: %s\ntopology: {kind: leafspine, hosts_per_leaf: 2, leaves: 2, spines: 1, host_rate: 1Gbit}\nworkload:\n  trace: {file: %s}\n' "$n" "$2" >"$d/$1.yaml"
	echo "$d/$1.yaml"
}
printf 'name: %s\n' "$n" | cat - tests/fixtures/bad-world/02-direct-unwound-huge.yaml >"$d/huge-topo.yaml"

refused() { # refused FILE WANT: check and up both refuse FILE with WANT in the message
	local f=$1 want=$2 rc out kb ms t0
	t0=$(date +%s%N)
	rc=0
	out=$(/usr/bin/time -f '%M' -o "$d/mem" timeout 10 "$TB" check "$f" 2>&1 >/dev/null) || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	kb=$(tail -1 "$d/mem")
	((rc == 2)) || fail "check $f: exit $rc, want 2 ($out)"
	[[ $out == *"$want"* ]] || fail "check $f: '$out' does not say '$want'"
	((ms < 1000)) || fail "check $f took $ms ms"
	((kb < 100 * 1024)) || fail "check $f took $kb KB"
	rc=0
	out=$(timeout 10 "$TB" up --name "$n" "$f" 2>&1 >/dev/null) || rc=$?
	((rc == 2)) || fail "up $f: exit $rc, want 2 ($out)"
	no_leftovers "$n"
	note "$(basename "$f"): exit 2 in $ms ms, $((kb / 1024)) MB: ${out#testbed up: }"
}
refused "$d/fifo.yaml" "fifo.yaml: not a regular file (a FIFO)"
refused /dev/zero "/dev/zero: not a regular file (a character device)"
refused "$d/dir.yaml" "dir.yaml: Is a directory"
refused "$d/none.yaml" "none.yaml: No such file or directory"
refused "$d/huge.yaml" "huge.yaml: larger than 4 MiB, not a scenario"
refused "$d/deep.yaml" "deep.yaml:3:35: nesting deeper than 32 levels"
refused "$(trace t-fifo "$d/fifo.csv")" ":4:17: workload.trace.file: $d/fifo.csv: not a regular file (a FIFO)"
refused "$(trace t-dev /dev/null)" "workload.trace.file: /dev/null: not a regular file (a character device)"
refused "$(trace t-dir "$d")" "workload.trace.file: $d: Is a directory"
refused "$(trace t-none "$d/none.csv")" "workload.trace.file: $d/none.csv: No such file or directory"
refused "$d/huge-topo.yaml" "huge-topo.yaml:4:3: addressing prefix /15 is too small: 2147450880 links"
