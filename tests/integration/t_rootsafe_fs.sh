#!/bin/bash
# SPDX-License-Identifier: MIT
# No run lost to a results folder that cannot be written (docs/security.md): `up`, `sim` and
# `reproduce` into a read-only or a full folder are refused (exit 2, naming it) within a
# second with no namespace built and nothing left; `export --out` on a full disk names the
# file and the reason and leaves no file. Folders are small tmpfs mounts made here.
#
#   quickstart, one iteration:   h0..h15 - l0..l3 - s0 s1   (never built: refused before)
. "$(dirname "$0")/lib.sh"

N=rf$$
Q=$(scenario_as scenarios/quickstart.yaml "$N" 's/^  iterations: 5/  iterations: 1/')
RO=$TB_TMP/ro FULL=$TB_TMP/full
mkdir -p "$RO" "$FULL"
mount -t tmpfs -o size=64k tmpfs "$RO" 2>/dev/null ||
	{ echo "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)"; exit 77; }
trap 'umount "$RO" "$FULL" 2>/dev/null; tb_cleanup' EXIT
mkdir "$RO/res"
mount -o remount,ro "$RO" || fail "remount read-only"
mount -t tmpfs -o size=64k tmpfs "$FULL" || fail "mount $FULL"
mkdir "$FULL/res"
dd if=/dev/zero of="$FULL/fill" bs=4k 2>/dev/null || true
TB_NAMES+=("$N")
bad=()
ko() { bad+=("$*"); echo "KO: $*" >&2; }

ms() { echo $(($(date +%s%N) / 1000000)); }
# refused CHECK WANT CMD...: exit 2 within a second, the message holding WANT, nothing built
refused() {
	local check=$1 want=$2 t0 rc=0 out
	shift 2
	t0=$(ms)
	out=$("$@" 2>&1) || rc=$?
	local took=$(($(ms) - t0))
	note "$check: exit $rc in $took ms: $(tail -1 <<<"$out")"
	((rc == 2)) && [[ $out == *"$want"* ]] || ko "$check: exit $rc: $out"
	((took < 1000)) || ko "$check: took $took ms"
	[ ! -e "/run/testbed/$N" ] && ! ip netns list | grep -q "^tb-$N-" || ko "$check: built something"
}

refused "up, read-only" "creating $RO/res/$N: Read-only file system" "$TB" up --results "$RO/res" "$Q"
refused "up, full" "cannot be written: No space left on device" "$TB" up --results "$FULL/res" "$Q"
refused "sim, full" "cannot be written: No space left on device" "$TB" sim --results "$FULL/res" "$Q"
refused "reproduce, read-only" "$RO/res/rep: Read-only file system" \
	"$TB" reproduce --quick --results "$RO/res/rep" tacos
refused "reproduce, full" "cannot be written: No space left on device" \
	"$TB" reproduce --quick --results "$FULL/res/rep" tacos
[ -z "$(ls -A "$FULL/res")" ] || ko "refused runs left in $FULL/res: $(ls -A "$FULL/res")"

rc=0
out=$("$TB" export --dot --out "$FULL/res/t.dot" "$Q" 2>&1) || rc=$?
((rc == 1)) && [[ $out == *"writing $FULL/res/t.dot: No space left on device"* ]] ||
	ko "export on a full disk: exit $rc: $out"
[ -z "$(ls -A "$FULL/res")" ] || ko "export on a full disk left $(ls -A "$FULL/res")"

if ((${#bad[@]})); then
	printf 'FAIL: %s\n' "${bad[@]}" >&2
	exit 1
fi
