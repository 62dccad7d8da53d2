#!/bin/bash
# SPDX-License-Identifier: MIT
# Self-test for slurm_env.sh: start a one-node Slurm cluster, run a 3-task
# job array plus a job that depends on it (afterok), check the results and
# the ordering, tear the cluster down. Needs root (see slurm_env.sh).
# Prints "slurm selftest: ok" and exits 0 on success, exits 1 otherwise.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=slurm_env.sh
. "$here/slurm_env.sh"

fail() {
    echo "slurm selftest: FAILED: $*" >&2
    # Show what the jobs and daemons said before the EXIT trap removes it.
    local f
    for f in "$tmp"/out/*; do
        [ -s "$f" ] || continue
        echo "----- ${f##*/} -----" >&2
        cat "$f" >&2
    done
    slurm_dump_logs
    exit 1
}

slurm_install

tmp=$(mktemp -d)
# EXIT covers normal ends and `set -e` failures; a signal is turned into an
# exit first, since bash skips the EXIT trap when killed by TERM.
trap slurm_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

slurm_start "$tmp"

results=$tmp/results
mkdir "$results" "$tmp/out"

# Each task writes its end time (date +%s.%N) as the last thing it does, so
# the file's content is when the task ended.
array_id=$(sbatch --parsable --array=0-2 --job-name=selftest-array \
    --chdir="$tmp" --output="$tmp/out/array-%A_%a.out" --error="$tmp/out/array-%A_%a.err" \
    --wrap "sleep 1; date +%s.%N > '$results/task-'\$SLURM_ARRAY_TASK_ID")

# Starts only after every array task succeeded; records its start time first.
report_id=$(sbatch --parsable --dependency="afterok:$array_id" --job-name=selftest-report \
    --chdir="$tmp" --output="$tmp/out/report.out" --error="$tmp/out/report.err" \
    --wrap "date +%s.%N > '$results/report-start'
            for i in 0 1 2; do test -f '$results/task-'\$i || exit 1; done
            touch '$results/report-ok'")
echo "slurm selftest: submitted array job $array_id and report job $report_id"

slurm_wait_jobs 120 "$array_id" "$report_id" || fail "jobs did not finish in time"

# --- checks ---
n=$(find "$results" -name 'task-*' | wc -l)
[ "$n" -eq 3 ] || fail "expected 3 task files, found $n"
[ -f "$results/report-ok" ] || fail "report job did not write report-ok"
[ -s "$results/report-start" ] || fail "report job did not record its start"

start=$(cat "$results/report-start")
for i in 0 1 2; do
    end=$(cat "$results/task-$i")
    awk -v s="$start" -v e="$end" 'BEGIN { exit !(s > e) }' ||
        fail "report job started at $start, before task $i ended at $end"
done

echo "slurm selftest: ok"
