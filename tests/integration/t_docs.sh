#!/bin/bash
# SPDX-License-Identifier: MIT
# Every repository path the documentation names exists. Needs no root, no network and no
# build; reads files only.
#
# Read: README.md, CONTRIBUTING.md, docs/**/*.md and man/*. Taken from them:
#   - Markdown: every word of a backquoted span, and every relative link target, resolved
#     from the linking file's folder (URLs and #anchors are not paths; a target's #anchor is
#     dropped). Fenced code blocks are left out: they show terminal sessions, whose file
#     names may be examples (scenarios/x.yaml).
#   - man pages: every word of the text, roff escapes undone; comments left out.
# A word is a repository path when, its surrounding punctuation stripped, it starts with a
# top-level folder of the tree: cli/ scenario/ kernel/ fabric/ run/ sample/ report/
# doctor/ lib/ model/ policy/ traffic/ collect/ sim/ emu-node/ tests/ scenarios/ scripts/
# docs/ man/ contrib/ .github/ .ci/. It must exist (as a folder when it ends in /). A glob
# (* ? [...] or {a,b}) must match at least one path; a placeholder <x> counts as *
# (scenarios/themis-<x>.yaml). A link must exist and stay inside the repository.
# Not checked, being made at run time or elsewhere: a results folder (results/<scenario>/<run>/,
# not a folder of the tree); a word with a :line (a quoted diagnostic,
# scenarios/x.yaml:31:24: ..., names whatever file the user gave); anything that does not
# start with a folder above (/run/testbed/..., /run/netns/..., build/..., $PREFIX/...,
# ../libexec/testbed/, and a results folder's files: jobs.csv, plots/...).
# Each path that does not exist is named with file:line. TB_DOCS_LIST=1 prints every path
# checked, as file:line: path.
here=$(cd "$(dirname "$0")" && pwd)
export TB_ROOT=${TB_ROOT:-$(cd "$here/../.." && pwd)}
if [ "$(id -u)" -eq 0 ]; then
	export TB_BUILD=${TB_BUILD:-$TB_ROOT/build}
	. "$here/lib.sh"
else # lib.sh skips without root; this test needs none
	set -eu
	cd "$TB_ROOT"
	fail() { echo "FAIL: $*" >&2; exit 1; }
	note() { echo "# $*"; }
fi

DIRS='cli|scenario|kernel|fabric|run|sample|report|doctor|lib|model|policy|traffic|collect|sim|emu-node|tests|scenarios|scripts|docs|man|contrib|\.github|\.ci'

md=(README.md CONTRIBUTING.md)
while IFS= read -r f; do md+=("$f"); done < <(find docs -name '*.md' | LC_ALL=C sort)
man=(man/*)

# Prints "file<TAB>line<TAB>path" for every path to check; a link's path is already resolved
# from its file's folder (a leading ../ left means it leaves the repository).
extract() {
	awk -v dirs="^($DIRS)/" '
	function strip(w) {
		sub(/^[("'\''[]+/, "", w)
		sub(/[.,;:"'\'']+$/, "", w)
		while (w ~ /\)$/ && gsub(/\(/, "(", w) < gsub(/\)/, ")", w))
			sub(/\)$/, "", w)
		sub(/[.,;:]+$/, "", w)
		return w
	}
	function word(w) {
		w = strip(w)
		if (w !~ dirs || w ~ /[$@]/ || w ~ /:[0-9]/)
			return
		gsub(/<[^>]*>/, "*", w)
		print FILENAME "\t" FNR "\t" w
	}
	function words(s,   n, a, i) {
		n = split(s, a, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (a[i] != "")
				word(a[i])
	}
	function resolve(t,   base, n, a, out, m, i, k) {
		base = FILENAME
		sub(/[^\/]*$/, "", base)
		n = split(base t, a, "/")
		m = 0
		for (i = 1; i <= n; i++) {
			if (a[i] == "" || a[i] == ".")
				continue
			if (a[i] == ".." && m > 0 && out[m] != "..") {
				m--
				continue
			}
			out[++m] = a[i]
		}
		t = ""
		for (k = 1; k <= m; k++)
			t = t (k > 1 ? "/" : "") out[k]
		return t
	}
	function links(s,   t) {
		while (match(s, /\]\([^) \t]+\)/)) {
			t = substr(s, RSTART + 2, RLENGTH - 3)
			s = substr(s, RSTART + RLENGTH)
			if (t ~ /^(#|[a-z]+:)/)
				continue
			sub(/#.*/, "", t)
			print FILENAME "\t" FNR "\t" resolve(t)
		}
	}
	FNR == 1 { fence = 0; code = 0; isman = FILENAME ~ /^man\// }
	isman {
		if ($0 ~ /^\.\\"/)
			next
		s = $0
		gsub(/\\-/, "-", s)
		gsub(/\\f(\[[^]]*\]|\(..|.)/, "", s)
		gsub(/\\&/, "", s)
		gsub(/\\\(../, "", s)
		if (s ~ /^\./)
			sub(/^\.[A-Za-z]+/, "", s)
		gsub(/"/, " ", s)
		words(s)
		next
	}
	/^[ \t]*(```|~~~)/ { fence = !fence; code = 0; next }
	fence { next }
	/^[ \t]*$/ { code = 0; next }
	/^[ \t]*\|/ { code = 0 }
	{
		n = split($0, p, "`")
		for (i = 1; i <= n; i++) {
			if (i > 1)
				code = !code
			if (code)
				words(p[i])
			else
				links(p[i])
		}
	}
	' "${md[@]}" "${man[@]}"
}

# Whether a path (maybe a glob with {a,b}) names something in the tree.
exists() {
	local p=$1 alt pre post a
	if [[ $p =~ ^([^{}]*)\{([^{}]*)\}(.*)$ ]]; then
		pre=${BASH_REMATCH[1]} post=${BASH_REMATCH[3]}
		IFS=, read -ra alt <<<"${BASH_REMATCH[2]}"
		for a in "${alt[@]}"; do exists "$pre$a$post" || return 1; done
		return 0
	fi
	[[ $p == ../* || $p == .. ]] && return 1
	if [[ $p == *[*?[]* ]]; then
		compgen -G "$p" >/dev/null
	elif [[ $p == */ ]]; then
		[ -d "$p" ]
	else
		[ -e "$p" ]
	fi
}

n=0 bad=0
while IFS=$'\t' read -r file line path; do
	n=$((n + 1))
	[ "${TB_DOCS_LIST:-0}" = 1 ] && echo "$file:$line: $path"
	exists "$path" && continue
	if [[ $path == ../* ]]; then
		echo "$file:$line: $path: a link out of the repository" >&2
	else
		echo "$file:$line: $path: no such path in the repository" >&2
	fi
	bad=$((bad + 1))
done < <(extract)

[ "$n" -gt 100 ] || fail "only $n paths found in the docs: the extraction is broken"
[ "$bad" -eq 0 ] || fail "$bad of $n paths named in the docs do not exist (above)"
note "$n paths named in README.md, CONTRIBUTING.md, docs/ and man/ exist"
