#!/bin/bash
# SPDX-License-Identifier: MIT
# `testbed export` works without root, builds nothing, and what it writes parses:
#
#   scenario.yaml --(as nobody)--> testbed export --dot ----------> dot -Tsvg
#                              \-> testbed export --containerlab --> python3 yaml (else grep)
#
# on shipped scenarios of every kind (leaf-spine with servers, an OCS layer, a HammingMesh
# through OCSes, a direct torus, a multidim platform, best, a sweep) and on leafspine-small
# edited to two parallel links per leaf-spine pair and a link delay: one graph node per
# topology node and one edge per link (the counts `testbed check` prints), the same bytes
# twice, --out FILE equal to standard output, the paper's rates with a note when
# emulation.rate_scale is not 1, a sweep's baseline said; a bad scenario exits 2 with its
# file:line:col message, a bad command line with the usage.
. "$(dirname "$0")/lib.sh"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user true 2>/dev/null || { echo "setpriv cannot drop to nobody here"; exit 77; }
chmod 755 "$TB_TMP"
OUT=$TB_TMP/out
mkdir "$OUT" && chown 65534:65534 "$OUT"

HAVE_DOT=0 HAVE_YAML=0
command -v dot >/dev/null && HAVE_DOT=1
python3 -c 'import yaml' 2>/dev/null && HAVE_YAML=1

# "N M": nodes and links of a scenario, as `testbed check` counts them
counts() {
	as_user "$TB" check "$1" | awk '$1 == "nodes" { n = $2 + 0 } $1 == "links" { l = $2 }
		END { print n, l }'
}

# The containerlab file $1 for lab $2 with $3 nodes and $4 links: every endpoint names a node
# and each node's interfaces are eth1..ethK, each used once.
clab_check() {
	if ((HAVE_YAML)); then
		python3 - "$@" <<-'EOF' || fail "containerlab file of $2 does not hold"
			import sys, yaml
			path, name, nodes, links = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
			d = yaml.safe_load(open(path))
			t = d["topology"]
			assert d["name"] == name, d["name"]
			assert len(t["nodes"]) == nodes, (len(t["nodes"]), nodes)
			assert len(t["links"]) == links, (len(t["links"]), links)
			used = {n: [] for n in t["nodes"]}
			for l in t["links"]:
			    assert len(l["endpoints"]) == 2, l
			    for e in l["endpoints"]:
			        node, ifname = e.split(":")
			        assert ifname.startswith("eth"), e
			        used[node].append(int(ifname[3:]))
			for n, eths in used.items():
			    assert sorted(eths) == list(range(1, len(eths) + 1)), (n, sorted(eths))
			    assert t["nodes"][n]["kind"] == "linux", n
		EOF
	else
		[ "$(grep -c '^    - endpoints: \["[a-z0-9.-]*:eth[0-9]*", "[a-z0-9.-]*:eth[0-9]*"\]' "$1")" -eq "$4" ] ||
			fail "$2: containerlab links"
		[ "$(grep -c '^      kind: linux$' "$1")" -eq "$3" ] || fail "$2: containerlab nodes"
		grep -q "^name: $2\$" "$1" || fail "$2: containerlab name"
	fi
}

# Exports $1 both ways, as nobody; checks counts, determinism and that both parse.
export_one() {
	local f=$1 b name nodes links
	b=$OUT/$(basename "$f" .yaml)
	name=$(sed -n 's/^name: *\([a-z0-9-]*\).*/\1/p' "$f")
	read -r nodes links <<<"$(counts "$f")"
	as_user "$TB" export --dot "$f" >"$b.dot" 2>"$b.err" || fail "export --dot $f: $(cat "$b.err")"
	as_user "$TB" export --dot "$f" 2>/dev/null | cmp -s - "$b.dot" || fail "$f: --dot differs run to run"
	[ "$(grep -c ' \[shape=' "$b.dot")" -eq "$nodes" ] || fail "$f: dot nodes, want $nodes"
	[ "$(grep -c '" -- "' "$b.dot")" -eq "$links" ] || fail "$f: dot edges, want $links"
	if ((HAVE_DOT)); then
		nice dot -Tsvg "$b.dot" >"$b.svg" 2>"$b.dot.err" || fail "dot -Tsvg $f: $(cat "$b.dot.err")"
		[ ! -s "$b.dot.err" ] || fail "dot warns on $f: $(cat "$b.dot.err")"
		grep -q '<svg' "$b.svg" || fail "dot made no SVG of $f"
	fi
	as_user "$TB" export --containerlab --out "$b.clab.yml" "$f" 2>/dev/null ||
		fail "export --containerlab $f"
	as_user "$TB" export --containerlab "$f" 2>/dev/null | cmp -s - "$b.clab.yml" ||
		fail "$f: --out differs from standard output"
	clab_check "$b.clab.yml" "$name" "$nodes" "$links"
	EXPORTED="$EXPORTED $name:$nodes/$links"
}

EXPORTED=
for f in scenarios/quickstart.yaml scenarios/ocs-small.yaml scenarios/hxmesh-ocs.yaml \
	scenarios/direct-torus-4x4.yaml scenarios/multidim-4x2x2.yaml scenarios/best-small.yaml \
	scenarios/sweep-ecmp-best.yaml; do
	export_one "$f"
done

# parallel links are edges of their own, a link's delay beside its rate
par=$(scenario_as scenarios/leafspine-small.yaml ls-par 's/links_per_pair: 1/links_per_pair: 2/' \
	's/^  fabric_rate: 1Gbit/&\n  delay: 20us/')
chmod 644 "$par"
export_one "$par"
[ "$(grep -c '^	"l0" -- "s1" \[label="1Gbit, 20us"\];$' "$OUT/ls-par.dot")" -eq 2 ] ||
	fail "two l0-s1 edges with rate and delay: $(grep '"l0" -- "s1"' "$OUT/ls-par.dot")"

# the paper's rates, said so; a sweep's baseline
grep -q '"n0" -- "n1" \[label="100Gbit"\]' "$OUT/direct-torus-4x4.dot" ||
	fail "torus: not the paper's 100Gbit: $(grep -m1 ' -- ' "$OUT/direct-torus-4x4.dot")"
grep -q 'rate_scale is 0.002: the rates written are the scenario' "$OUT/direct-torus-4x4.err" ||
	fail "no rate_scale note: $(cat "$OUT/direct-torus-4x4.err")"
grep -q 'sweeps 2 variants: this is the topology of its baseline (kind=leafspine)' \
	"$OUT/sweep-ecmp-best.err" || fail "no sweep note: $(cat "$OUT/sweep-ecmp-best.err")"
[ ! -s "$OUT/ls-par.err" ] || fail "notes for a scenario at rate_scale 1: $(cat "$OUT/ls-par.err")"

# bad input: the loader's message, exit 2; bad command lines: the usage, exit 2, after a line
# naming the option when one is unknown or lacks its value
bad=tests/fixtures/bad/01-yaml-syntax.yaml
rc=0
out=$(as_user "$TB" export --dot "$bad" 2>&1 >/dev/null) || rc=$?
((rc == 2)) || fail "bad scenario: exit $rc, want 2"
[ "$out" = "testbed export: $(cat "${bad%.yaml}.expect")" ] || fail "bad scenario: $out"
for args in "--bogus scenarios/quickstart.yaml" "scenarios/quickstart.yaml" \
	"--dot --containerlab scenarios/quickstart.yaml" "--dot --out" "--dot a.yaml b.yaml"; do
	rc=0
	# shellcheck disable=SC2086 # the words are the arguments
	out=$(as_user "$TB" export $args 2>&1 >/dev/null) || rc=$?
	((rc == 2)) || fail "export $args: exit $rc, want 2"
	case $args in
	--bogus*) want="testbed export: unknown option '--bogus'"$'\n' ;;
	"--dot --out") want="testbed export: --out needs a value"$'\n' ;;
	*) want="" ;;
	esac
	[[ $out == "${want}Usage: testbed export"* ]] || fail "export $args: $out"
done
rc=0
as_user "$TB" export --dot --out /proc/nowhere scenarios/quickstart.yaml 2>/dev/null || rc=$?
((rc == 1)) || fail "unwritable --out: exit $rc, want 1"

note "exported (name:nodes/links):$EXPORTED;" \
	"$( ((HAVE_DOT)) && echo "dot -Tsvg rendered each" || echo "dot not installed: graphs not rendered")," \
	"$( ((HAVE_YAML)) && echo "containerlab files read by python3 yaml" || echo "containerlab files checked by grep")"
