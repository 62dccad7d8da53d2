#!/bin/bash
# SPDX-License-Identifier: MIT
# `make install` into a staging root (DESTDIR, PREFIX=/usr) and `make uninstall`; no namespaces.
#
#   $TB_TMP/root/usr/
#   |-- bin/testbed ..................... runs from / ; finds, by its own real path,
#   |-- libexec/testbed/emu-node ........ this one (also through a symlink to testbed)
#   |-- share/man/man8/testbed.8 ........ both render without a warning
#   |-- share/man/man5/testbed-scenario.5
#   |-- share/bash-completion/completions/testbed ... parses; completes `testbed ch`
#   |-- share/testbed/scenarios/ ........ the tree's, byte for byte; a trace or MSCCL file
#   |                                     resolves from share/testbed/ (working directory)
#   `-- share/doc/testbed/{README.md,LICENSE,docs/ with its subfolders}
#
# Every installed file is listed (no more, no fewer), nothing is written under the build
# directory, and uninstall leaves no file.
. "$(dirname "$0")/lib.sh"

ROOT=$TB_TMP/root
USR=$ROOT/usr
T=$USR/bin/testbed
MK=(make -s --no-print-directory -C "$TB_ROOT" BUILD="$TB_BUILD" DESTDIR="$ROOT" PREFIX=/usr)
version=$(sed -n 's/^#define TB_VERSION "\([^"]*\)".*/\1/p' cli/main.c)

# install must not build as root: the binaries are the ones `make` made
make -q --no-print-directory -C "$TB_ROOT" BUILD="$TB_BUILD" "$TB_BUILD/testbed" "$TB_BUILD/emu-node" ||
	fail "$TB_BUILD is not up to date: run 'make all' first"
touch "$TB_TMP/before"
"${MK[@]}" install >"$TB_TMP/install.log" 2>&1 || { cat "$TB_TMP/install.log"; fail "make install"; }

# exactly the expected files, the scenarios identical to the tree's
{
	printf '%s\n' usr/bin/testbed usr/libexec/testbed/emu-node \
		usr/share/man/man8/testbed.8 usr/share/man/man5/testbed-scenario.5 \
		usr/share/bash-completion/completions/testbed \
		usr/share/doc/testbed/README.md usr/share/doc/testbed/LICENSE
	find docs -type f | sed "s|^|usr/share/doc/testbed/|"
	find scenarios -type f | sed 's|^|usr/share/testbed/|'
} | LC_ALL=C sort >"$TB_TMP/want"
(cd "$ROOT" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$TB_TMP/got"
diff "$TB_TMP/want" "$TB_TMP/got" >&2 || fail "installed files differ from the list (< missing, > extra)"
diff -r scenarios "$USR/share/testbed/scenarios" >&2 || fail "installed scenarios differ"
cmp -s docs/scenario.md "$USR/share/doc/testbed/docs/scenario.md" || fail "docs/scenario.md"
for f in bin/testbed libexec/testbed/emu-node; do
	[ "$(stat -c %a "$USR/$f")" = 755 ] || fail "$f: mode $(stat -c %a "$USR/$f")"
done
[ "$(stat -c %a "$USR/share/man/man8/testbed.8")" = 644 ] || fail "testbed.8 mode"
[ -z "$(find "$TB_BUILD" -newer "$TB_TMP/before" -print -quit)" ] ||
	fail "install wrote under $TB_BUILD: $(find "$TB_BUILD" -newer "$TB_TMP/before" | head -3)"

# the installed testbed, from another directory, and which emu-node it would start
out=$(cd / && "$T" --version) || fail "--version"
[ "$out" = "testbed $version" ] || fail "--version: $out"
out=$(cd / && "$T" -v --version | sed -n 2p)
[ "$out" = "emu-node: $USR/libexec/testbed/emu-node" ] || fail "installed testbed: $out"
mkdir "$TB_TMP/links"
ln -s "$T" "$TB_TMP/links/testbed"
out=$(cd / && "$TB_TMP/links/testbed" -v --version | sed -n 2p)
[ "$out" = "emu-node: $USR/libexec/testbed/emu-node" ] || fail "through a symlink: $out"
build=$(realpath "$TB_BUILD")
out=$("$TB_BUILD/testbed" -v --version | sed -n 2p)
[ "$out" = "emu-node: $build/emu-node" ] || fail "build tree's testbed: $out"
mkdir "$TB_TMP/lone"
cp "$T" "$TB_TMP/lone/testbed"
out=$("$TB_TMP/lone/testbed" -v --version | sed -n 2p)
[[ $out == *"not found"*"$TB_TMP/lone/emu-node"*"$TB_TMP/libexec/testbed/emu-node"* ]] ||
	fail "a testbed without emu-node: $out"
ls -l "$USR/libexec/testbed/" | sed 's/^/# /'

# an installed scenario checks from /; one that names a trace or an MSCCL file resolves it
# from the working directory, so from share/testbed/ (testbed(8), SCENARIO FILES)
out=$(cd / && "$T" check "$USR/share/testbed/scenarios/quickstart.yaml") || fail "check from /: $out"
[[ $out == *"configuration OK" ]] || fail "check from /: $out"
rc=0
out=$(cd / && "$T" check "$USR/share/testbed/scenarios/trace.yaml" 2>&1) || rc=$?
((rc == 2)) && [[ $out == *"scenarios/traces/helios-sample.csv"* ]] ||
	fail "trace.yaml from / (exit $rc): $out"
for s in trace msccl-mesh; do
	out=$(cd "$USR/share/testbed" && "$T" check "scenarios/$s.yaml" 2>&1) ||
		fail "$s from share/testbed: $out"
done

# the man pages render without a warning, with the prefix filled in
for m in man8/testbed.8 man5/testbed-scenario.5; do
	f=$USR/share/man/$m
	err=$(groff -ww -man -Tutf8 "$f" 2>&1 >/dev/null) || fail "groff $m"
	[ -z "$err" ] || fail "groff $m: $err"
	err=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 "$f" 2>&1 \
		>/dev/null) || fail "man $m"
	[ -z "$err" ] || fail "man $m: $err"
	! grep -n '@PREFIX@\|@VERSION@\|\.\./shared\|seed 00[0-9]' "$f" >&2 || fail "$m: placeholders"
done
grep -q "^\.B /usr/libexec/testbed/emu\\\\-node" "$USR/share/man/man8/testbed.8" ||
	fail "testbed.8 does not name /usr/libexec/testbed/emu-node"

# the completion parses and completes commands, options and scenario files
C=$USR/share/bash-completion/completions/testbed
bash -n "$C" || fail "bash -n $C"
complete_words() { # complete_words WORD...: what _testbed offers for the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _testbed
		printf "%s\n" "${COMPREPLY[@]}"' _ "$C" "$@"
}
out=$(complete_words testbed ch)
[ "$out" = check ] || fail "completion of 'testbed ch': $out"
out=$(complete_words testbed -v sc)
[ "$out" = schedule ] || fail "completion of 'testbed -v sc': $out"
out=$(complete_words testbed check --)
[ "$(echo $out)" = "--plan --loads --help" ] || fail "completion of 'check --': $out"
out=$(cd "$USR/share/testbed" && complete_words testbed sim scenarios/quick)
[ "$out" = scenarios/quickstart.yaml ] || fail "completion of a scenario file: $out"

# uninstall: no file left, nor the folders only testbed uses
"${MK[@]}" uninstall >"$TB_TMP/uninstall.log" 2>&1 || { cat "$TB_TMP/uninstall.log"; fail "make uninstall"; }
left=$(find "$ROOT" -type f)
[ -z "$left" ] || fail "uninstall left: $left"
for d in libexec/testbed share/testbed share/doc/testbed; do
	[ ! -e "$USR/$d" ] || fail "uninstall left $d/"
done
[ -z "$(find "$TB_BUILD" -newer "$TB_TMP/before" -print -quit)" ] || fail "uninstall wrote under $TB_BUILD"
note "$(wc -l <"$TB_TMP/want") files installed and removed; installed testbed v$version runs" \
	"from /, finds $USR/libexec/testbed/emu-node; man pages render clean; completion ok"
