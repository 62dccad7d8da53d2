#!/bin/bash
# A job that cannot progress because a link on its paths is down says which link, even when
# the failure came long before the job (so no recent event explains it).
#
#   h0  h1     h2  h3
#     \ /        \ /
#     l0          l1
#       \x      /       x: the only cable l0-s0 fails at 300 ms; the job arrives at 2 s
#          s0
. "$(dirname "$0")/lib.sh"
n=it$$s
f="$TB_TMP/$n.yaml"
cat >"$f" <<EOT
name: $n
topology: {kind: leafspine, hosts_per_leaf: 2, leaves: 2, spines: 1, host_rate: 100Mbit, fabric_rate: 100Mbit}
workload:
  iterations: 5
  jobs:
    - {gpus: 4, collective: allreduce, algorithm: ring, bytes: 1MiB, compute: 10ms, arrival: 2s}
failures:
  - {at: 300ms, link: [l0, s0]}
run:
  progress_timeout: 1s
EOT
TB_NAMES+=("$n")
rc=0
(cd "$TB_TMP" && "$TB" up "$f") >"$TB_TMP/up.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$TB_TMP/up.log"; fail "up exited $rc with its job failed, not 1"; }
jobs=$(ls "$TB_TMP"/results/"$n"/*/jobs.csv)
row=$(sed -n 2p "$jobs")
[[ $row == *,failed,* ]] || fail "the job did not fail: $row"
[[ $row == *"l0-s0 down on its paths"* ]] || fail "the reason does not name the link: $row"
no_leftovers "$n"
note "reason: $(echo "$row" | cut -d, -f14)"
