#!/bin/bash
# SPDX-License-Identifier: MIT
# The container and CI recipe, checked without running it (no topology is built): scripts/smoke
# is an executable bash script that parses; the Containerfile installs through scripts/deps
# (the one package list) on debian:12 and runs `make smoke` by default; the workflow runs
# `make test` in that image privileged; `make help` lists smoke. Needs no root.
set -eu
cd "${TB_ROOT:-$(dirname "$0")/../..}"
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -x scripts/smoke ] || fail "scripts/smoke is not executable (make smoke runs it directly)"
bash -n scripts/smoke || fail "scripts/smoke does not parse"
[ "$(head -1 scripts/smoke)" = "#!/bin/bash" ] || fail "scripts/smoke: not a bash script"
grep -q '^set -eu' scripts/smoke || fail "scripts/smoke: no 'set -eu'"

c=$(grep -v '^[[:space:]]*#' Containerfile)
grep -qx 'FROM debian:12' <<<"$c" || fail "Containerfile: not FROM debian:12"
grep -q '^COPY scripts/deps ' <<<"$c" || fail "Containerfile does not copy scripts/deps"
grep -q '^RUN .*scripts/deps' <<<"$c" || fail "Containerfile does not run scripts/deps"
! grep -q 'apt-get' <<<"$c" || fail "Containerfile calls apt-get itself: the list is scripts/deps'"
pkgs=$(sed -n '/^PKGS="/,/"$/p' scripts/deps | tr -d '"' | sed 's/^PKGS=//')
[ "$(wc -w <<<"$pkgs")" -gt 10 ] || fail "no package list read from scripts/deps"
for p in $pkgs; do
	[[ $p == *-dev ]] || continue
	! grep -qw -- "$p" <<<"$c" || fail "Containerfile repeats $p from scripts/deps"
done
grep -qx 'CMD \["make", "smoke"\]' <<<"$c" || fail "Containerfile: default command is not make smoke"

w=.github/workflows/ci.yml
grep -q 'build -t testbed -f Containerfile \.' "$w" || fail "$w does not build the Containerfile"
grep -q 'run --rm --privileged testbed make test$' "$w" || fail "$w does not run make test privileged"
grep -q 'run --rm --privileged testbed$' "$w" || fail "$w does not run the default make smoke"

make -s help | grep -q '|smoke|' || fail "make help does not list smoke"
grep -q '^\.PHONY:.* smoke ' Makefile || fail "smoke is not .PHONY"
echo "# smoke script parses; Containerfile takes its $(wc -w <<<"$pkgs") packages from scripts/deps"
