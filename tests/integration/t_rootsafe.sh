#!/bin/bash
# SPDX-License-Identifier: MIT
# A root tool that cannot be turned against its host (docs/security.md). As root: no write
# through a planted symbolic link at the scenario's folder, a run folder, or a file testbed
# writes (a results folder's under `report`, `reproduce`'s report and logs, `export --out`,
# `schedule --msccl`); pre-made run folders (TS, TS-2 ... TS-120, and a link) never reused;
# under sudo (SUDO_UID, SUDO_GID) only what the run made changes owner, into a root-owned
# results root, and nothing through a linked one; `status` says incomplete of a testbed whose
# `down` was killed partway; of two concurrent `down`s one says removed; `--` ends options;
# -q quiets up, down and sim. Every check runs; the failures are listed together at the end.
# (Read-only and full folders: t_rootsafe_fs.sh.)
#
#   quickstart, one iteration:   h0..h15 - l0..l3 - s0 s1   (16 GPUs, 2 per server)
#   hxmesh-16, topology only:    4 boards of 2x2, row and column switches (24 namespaces)
. "$(dirname "$0")/lib.sh"

N=rs$$
Q=$(scenario_as scenarios/quickstart.yaml "$N" 's/^  iterations: 5/  iterations: 1/')
bad=()
ko() { bad+=("$*"); echo "KO: $*" >&2; }

# What a planted link points at: a folder with one file, and a file; both must stay as they are.
V=$TB_TMP/victim
mkdir -p "$V"
echo precious >"$V/file"
echo precious >"$TB_TMP/victim.txt"
victim_ok() { # victim_ok CHECK
	[ "$(ls -A "$V")" = file ] && [ "$(cat "$V/file")" = precious ] &&
		[ "$(cat "$TB_TMP/victim.txt")" = precious ] || ko "$1: the link's target was written"
}
# run CMD...: its exit code in rc, its output in out
run() { rc=0; out=$("$@" 2>&1) || rc=$?; }

# ---- a planted link at the scenario's folder: refused naming it, for sim and for up ----
R=$TB_TMP/a
mkdir -p "$R"
ln -s "$V" "$R/$N"
run "$TB" sim --results "$R" "$Q"
((rc == 2)) && [[ $out == *"$R/$N is a symbolic link"* ]] || ko "sim into a linked scenario folder: exit $rc: $out"
victim_ok "sim, linked scenario folder"
TB_NAMES+=("$N")
run "$TB" up --results "$R" "$Q"
((rc == 2)) && [[ $out == *"$R/$N is a symbolic link"* ]] || ko "up into a linked scenario folder: exit $rc: $out"
[ ! -e "/run/testbed/$N" ] || ko "up into a linked scenario folder built a testbed"
victim_ok "up, linked scenario folder"

# ---- pre-made run folders and a link where the run folder would go: never reused ----
R=$TB_TMP/b
mkdir -p "$R/$N"
now=$(date +%s)
for s in $(seq "$now" $((now + 5))); do
	stamp=$(date -d "@$s" +%Y%m%d-%H%M%S)
	mkdir "$R/$N/$stamp"
	for k in $(seq 2 120); do mkdir "$R/$N/$stamp-$k"; done
	for d in "$R/$N/$stamp" "$R/$N/$stamp"-*; do echo mine >"$d/marker"; done
	ln -s "$V" "$R/$N/$stamp-121"
done
run "$TB" sim --results "$R" "$Q"
dir=$(sed -n 's/^results: //p' <<<"$out")
if ((rc != 0)) || [ -z "$dir" ]; then
	ko "sim beside pre-made run folders: exit $rc: $out"
else
	[[ $dir == *-12[2-9] || $dir == *-1[3-9][0-9] ]] && [ ! -L "$dir" ] && [ -s "$dir/summary.json" ] ||
		ko "sim beside pre-made run folders wrote into $dir"
	[ ! -e "$dir/marker" ] || ko "the run reused a pre-made folder, $dir"
fi
others=$(find "$R/$N" -mindepth 2 ! -name marker | grep -v "^$dir" | head -3)
[ -z "$others" ] || ko "a pre-made run folder was written into: $others"
victim_ok "pre-made run folders"

# ---- links planted at the files `report` rewrites ----
R=$TB_TMP/c
run "$TB" sim --results "$R" "$Q"
dir=$(sed -n 's/^results: //p' <<<"$out")
if ((rc != 0)) || [ -z "$dir" ]; then
	ko "sim into $R: exit $rc: $out"
else
	rm "$dir/summary.txt"
	ln -s "$TB_TMP/victim.txt" "$dir/summary.txt"
	run "$TB" report "$dir"
	((rc == 1)) && [[ $out == *"$dir/summary.txt is a symbolic link"* ]] ||
		ko "report with a linked summary.txt: exit $rc: $out"
	victim_ok "report, linked summary.txt"
	rm "$dir/summary.txt" "$dir/plots/jct.svg"
	ln -s "$TB_TMP/victim.txt" "$dir/plots/jct.svg"
	run "$TB" report "$dir"
	[[ $out == *"$dir/plots/jct.svg is a symbolic link"* ]] || ko "report with a linked plot: exit $rc: $out"
	[ -L "$dir/plots/jct.svg" ] || ko "report replaced a planted link"
	victim_ok "report, linked plot"
	[ -z "$(find "$dir" -name '*.tmp' -o -name '.render*')" ] || ko "report left temporaries: $(ls -A "$dir" "$dir/plots")"
fi

# ---- links planted at reproduce's log and report ----
R=$TB_TMP/d
mkdir -p "$R"
ln -s "$TB_TMP/victim.txt" "$R/tacos-1.log"
ln -s "$TB_TMP/victim.txt" "$R/report.md"
run "$TB" reproduce --sim --quick --results "$R" tacos
((rc != 0)) && [[ $out == *"$R/tacos-1.log is a symbolic link"* ]] || ko "reproduce with a linked log: exit $rc: $out"
victim_ok "reproduce, linked log"
rm "$R/tacos-1.log"
run "$TB" reproduce --sim --quick --results "$R" tacos
((rc != 0)) && [[ $out == *"$R/report.md is a symbolic link"* ]] || ko "reproduce with a linked report.md: exit $rc: $out"
[ -s "$R/tacos-1.log" ] && [ ! -L "$R/tacos-1.log" ] || ko "reproduce wrote no log of its own"
victim_ok "reproduce, linked report.md"

# ---- a link at export's --out and at schedule's MSCCL file ----
ln -s "$TB_TMP/victim.txt" "$TB_TMP/e.dot"
run "$TB" export --dot --out "$TB_TMP/e.dot" "$Q"
((rc != 0)) && [[ $out == *"$TB_TMP/e.dot is a symbolic link"* ]] || ko "export to a link: exit $rc: $out"
victim_ok "export --out link"
mkdir -p "$TB_TMP/ms"
ln -s "$TB_TMP/victim.txt" "$TB_TMP/ms/$N-job0.xml"
run "$TB" schedule --msccl "$TB_TMP/ms" "$Q"
((rc != 0)) && [[ $out == *"$TB_TMP/ms/$N-job0.xml is a symbolic link"* ]] || ko "schedule --msccl to a link: exit $rc: $out"
victim_ok "schedule --msccl link"

# ---- under sudo: made only where the asker could, and only what was made changes owner ----
owners() { find "$TB_TMP" -printf '%p %u:%g %m\n' | LC_ALL=C sort; }
G=$TB_TMP/g
mkdir -p "$TB_TMP/sys" "$TB_TMP/etc"
install -d -m 1777 "$G" # root's, everybody's to write: /tmp
echo 'root:x:0:0' >"$TB_TMP/etc/passwd"
owners >"$TB_TMP/own.before"
run env SUDO_UID=4242 SUDO_GID=4343 "$TB" sim --results "$TB_TMP/etc" "$Q"
((rc == 2)) && [[ $out == *"$TB_TMP/etc belongs to uid 0 and is not everybody's to write: under sudo, testbed writes only where uid 4242 could"* ]] ||
	ko "sudo sim into a root-only folder: exit $rc: $out"
run env SUDO_UID=4242 SUDO_GID=4343 "$TB" export --dot --out "$TB_TMP/etc/passwd" "$Q"
((rc != 0)) && [[ $out == *"$TB_TMP/etc/passwd belongs to uid 0"* ]] || ko "sudo export over root's file: exit $rc: $out"
run env SUDO_UID=4242 SUDO_GID=4343 "$TB" export --dot --out "$TB_TMP/etc/ld.so.preload" "$Q"
((rc != 0)) && [ ! -e "$TB_TMP/etc/ld.so.preload" ] || ko "sudo export into a root-only folder: exit $rc: $out"
[ "$(cat "$TB_TMP/etc/passwd")" = root:x:0:0 ] || ko "sudo export replaced root's file"
run env SUDO_UID=4242 SUDO_GID=4343 "$TB" sim --results "$G" "$Q"
((rc == 0)) || ko "sudo sim into a root-owned results root everybody may write: exit $rc: $out"
owners >"$TB_TMP/own.after"
changed=$(LC_ALL=C comm -23 "$TB_TMP/own.before" "$TB_TMP/own.after" | grep -v "^$TB_TMP/own\." | head -3)
[ -z "$changed" ] || ko "sudo: what existed before changed: $changed"
made=$(LC_ALL=C comm -13 "$TB_TMP/own.before" "$TB_TMP/own.after" | grep -v "^$TB_TMP/own\." || true)
[ -n "$made" ] || ko "sudo: the run made nothing"
notgiven=$(grep -v ' 4242:4343 ' <<<"$made" | head -3 || true)
[ -z "$notgiven" ] || ko "sudo: made but not given to 4242:4343: $notgiven"
ln -s "$TB_TMP/sys" "$TB_TMP/g2"
run env SUDO_UID=4242 SUDO_GID=4343 "$TB" sim --results "$TB_TMP/g2/sub" "$Q"
((rc == 2)) && [[ $out == *"$TB_TMP/g2 is a symbolic link"* ]] || ko "sudo sim through a linked folder: exit $rc: $out"
[ "$(stat -c %u:%g "$TB_TMP/sys")" = 0:0 ] && [ -z "$(ls -A "$TB_TMP/sys")" ] ||
	ko "sudo sim through a linked folder changed it: $(stat -c %u:%g "$TB_TMP/sys") $(ls -A "$TB_TMP/sys")"

# ---- a results path with a newline cannot forge a journal record for down ----
mkdir "$TB_TMP/keep"
forged=$(stat -c "folder %d %i $TB_TMP/keep" "$TB_TMP/keep")
settle
run "$TB" up --results "$TB_TMP/nl"$'\n'"$forged" "$Q"
((rc == 0)) || ko "up into a folder named with a newline: exit $rc: $out"
[ -d "$TB_TMP/keep" ] || ko "a forged journal record removed $TB_TMP/keep"
no_leftovers "$N"

# ---- report of a folder whose summary.json is a FIFO: refused, not hung ----
mkdir -p "$TB_TMP/fifo"
mkfifo "$TB_TMP/fifo/summary.json"
run timeout 20 "$TB" report "$TB_TMP/fifo"
((rc != 0 && rc != 124)) && [[ $out == *"$TB_TMP/fifo/summary.json: not a regular file"* ]] ||
	ko "report with a FIFO: exit $rc: $out"

# ---- a state folder a killed down left without its journal: down removes it ----
mkdir "/run/testbed/j$N"
run "$TB" down "j$N"
((rc == 0)) && [ ! -e "/run/testbed/j$N" ] || ko "down of a state folder without a journal: exit $rc: $out"
rmdir "/run/testbed/j$N" 2>/dev/null || true # what a failing down left: not the machine's

# ---- status of a testbed whose down was killed partway ----
H=$(scenario_as scenarios/hxmesh-16.yaml "k$N")
TB_NAMES+=("k$N")
"$TB" -q up "$H" >/dev/null 2>&1 || ko "up k$N"
nx "k$N" a0-0 sh -c 'trap "" TERM; exec sleep 60' &
sleeper=$!
for _ in $(seq 300); do # inside the node, so that down waits for it
	[ -n "$(ip netns pids "tb-k$N-a0-0" 2>/dev/null)" ] && break
	sleep 0.01
done
"$TB" down "k$N" >/dev/null 2>&1 &
downer=$!
for _ in $(seq 300); do # it records itself, then waits up to 1 s for the sleeper
	grep -q '^down ' "/run/testbed/k$N/journal" 2>/dev/null && break
	sleep 0.01
done
kill -9 "$downer" 2>/dev/null || true # (an old down may be done already)
wait "$downer" 2>/dev/null || true
run "$TB" status "k$N"
[[ $out == "k$N "*incomplete* ]] || ko "status after a killed down: $out"
run "$TB" down "k$N"
((rc == 0)) && [[ $out == *"'k$N' removed"* ]] || ko "down after a killed down: exit $rc: $out"
wait "$sleeper" 2>/dev/null || true
no_leftovers "k$N"

# ---- two downs at once: one removes, the other says so ----
TB_NAMES+=("c$N")
"$TB" -q up "$(scenario_as scenarios/hxmesh-16.yaml "c$N")" >/dev/null 2>&1 || ko "up c$N"
exec 9<"/run/testbed/c$N"
flock 9 # holds the lock, so both downs are at the door at once
"$TB" down "c$N" >"$TB_TMP/down1" 2>&1 9<&- & # the lock is not theirs
d1=$!
"$TB" down "c$N" >"$TB_TMP/down2" 2>&1 9<&- &
d2=$!
for _ in $(seq 500); do # both blocked on the lock (/proc/locks lists waiters with "->")
	[ "$(grep -c -- '->' /proc/locks)" -ge 2 ] && break
	sleep 0.01
done
exec 9<&-
wait "$d1" "$d2" || true
removed=$(cat "$TB_TMP/down1" "$TB_TMP/down2" | grep -c "'c$N' removed$" || true)
other=$(cat "$TB_TMP/down1" "$TB_TMP/down2" | grep -c "'c$N' was removed .*by another 'testbed down'" || true)
((removed == 1 && other == 1)) || ko "two downs: $(cat "$TB_TMP/down1" "$TB_TMP/down2")"
no_leftovers "c$N"

# ---- two downs while its up runs: one stops the run and removes it, the other says so ----
R=$(scenario_as scenarios/quickstart.yaml "u$N" 's/^  iterations: .*/  iterations: 200/')
TB_NAMES+=("u$N")
"$TB" up --results "$TB_TMP/u" "$R" >"$TB_TMP/uup.log" 2>&1 &
upp=$!
for _ in $(seq 300); do grep -q "running .* jobs on" "$TB_TMP/uup.log" && break; sleep 0.05; done
"$TB" down "u$N" >"$TB_TMP/udown1" 2>&1 &
d1=$!
"$TB" down "u$N" >"$TB_TMP/udown2" 2>&1 &
d2=$!
wait "$d1" "$d2" "$upp" || true
removed=$(cat "$TB_TMP/udown1" "$TB_TMP/udown2" | grep -c "'u$N' removed$" || true)
# the other waited and says so, or (started once all was done) finds no such testbed
other=$(cat "$TB_TMP/udown1" "$TB_TMP/udown2" |
	grep -c "'u$N' was removed .*by another 'testbed down'\|no testbed named 'u$N'" || true)
((removed == 1 && other == 1)) || ko "two downs of a running up: $(cat "$TB_TMP/udown1" "$TB_TMP/udown2")"
no_leftovers "u$N"

# ---- `--` ends options ----
run "$TB" down -- -hc
[[ $out == *"'-hc'"* && $out != *"'--'"* ]] || ko "down -- -hc: $out"
run "$TB" check -- "$Q"
((rc == 0)) || ko "check -- FILE: exit $rc: $out"

# ---- -q: no progress from up, sim and down (a warning, say a degraded verdict, still shows) ----
progress="building|is up after|running [0-9]* jobs|jobs [0-9]*/[0-9]* done|torn down|removed|fidelity ok|events/s|note:"
err=$("$TB" sim -q --results "$TB_TMP/q" "$Q" 2>&1 >/dev/null) || ko "sim -q failed: $err"
! grep -Eq "$progress" <<<"$err" || ko "sim -q said: $err"
settle
err=$("$TB" up -q --results "$TB_TMP/q" "$Q" 2>&1 >/dev/null) || ko "up -q failed: $err"
! grep -Eq "$progress" <<<"$err" || ko "up -q said: $err"
no_leftovers "$N"
"$TB" -q up "$H" >/dev/null 2>&1 || ko "up k$N again"
err=$("$TB" down -q "k$N" 2>&1) || ko "down -q failed: $err"
! grep -Eq "$progress" <<<"$err" || ko "down -q said: $err"
for c in sim up; do # and without -q, the same words do show: the check can fail
	err=$("$TB" "$c" --results "$TB_TMP/q" "$Q" 2>&1 >/dev/null) || ko "$c failed: $err"
	grep -Eq "$progress" <<<"$err" || ko "$c without -q showed no progress: $err"
done
no_leftovers "$N"

if ((${#bad[@]})); then
	printf 'FAIL: %s\n' "${bad[@]}" >&2
	exit 1
fi
note "links refused by name at the scenario folder, run folders, report, reproduce, export, schedule; 726 pre-made folders passed over; sudo gave only what it made; status, concurrent down, --, -q"
