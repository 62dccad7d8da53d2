#!/bin/bash
# SPDX-License-Identifier: MIT
# On a real Slurm (issue 38): Debian's slurm-wlm and munge (installed when absent), a one-node
# slurmctld + slurmd on localhost with a generated config in a temporary folder
# (tests/slurm/slurm_env.sh, torn down whatever happens). The scripts `testbed slurm` writes
# are submitted as they are (the results folder of the first with a space and a quote): scenarios/sweep-baseline.yaml's 12 runs in virtual time as a job
# array of 3 tasks, and `reproduce --sim --quick` as 4. Each array ran its N tasks, each task
# its own shard; the report job ran after every task had ended (afterok); the merged
# comparison equals the unsharded run's byte for byte, and the reproduction's report.md has the
# unsharded one's figures.
. "$(dirname "$0")/lib.sh"
. tests/slurm/slurm_env.sh
slurm_install >"$TB_TMP/install.out" 2>&1 || fail "slurm_install: $(tail -5 "$TB_TMP/install.out")"
mkdir "$TB_TMP/slurm"
trap 'slurm_stop; tb_cleanup' EXIT
slurm_start "$TB_TMP/slurm" >"$TB_TMP/start.out" 2>&1 || fail "slurm_start: $(tail -20 "$TB_TMP/start.out")"

# submits script $1 (its output in $2): the array's and the report's job ids into $array $report
submit() {
	bash "$1" >"$2" 2>&1 || fail "bash $1: $(cat "$2")"
	array=$(sed -n 's/^testbed slurm: job array \([0-9]*\) .*then report job \([0-9]*\):.*/\1/p' "$2")
	report=$(sed -n 's/^testbed slurm: job array \([0-9]*\) .*then report job \([0-9]*\):.*/\2/p' "$2")
	[ -n "$array" ] && [ -n "$report" ] || fail "$1 said no job ids: $(cat "$2")"
}

# the tasks' logs: N of them, task I having run shard I/N; the report after all of them
check_jobs() { # results-folder job-name N what-a-task-says
	local res=$1 name=$2 n=$3 i last=0 t rep logs
	for i in $(seq 0 $((n - 1))); do
		f="$res/slurm/$name-${array}_$i.out"
		[ -s "$f" ] || fail "task $i of array $array left no log ($(ls "$res/slurm"))"
		grep -q "shard $((i + 1))/$n" "$f" || fail "task $i did not run shard $((i + 1))/$n: $(tail -3 "$f")"
		grep -q "$4" "$f" || fail "task $i: $(tail -3 "$f")"
		t=$(date -r "$f" +%s%N)
		[ "$t" -gt "$last" ] && last=$t
	done
	logs=("$res/slurm/$name-${array}_"*.out)
	[ "${#logs[@]}" = "$n" ] || fail "array $array: ${#logs[@]} task logs, not $n: $(ls "$res/slurm")"
	rep="$res/slurm/$name-report-$report.out"
	[ -s "$rep" ] || fail "the report job $report left no log ($(ls "$res/slurm"))"
	t=$(date -r "$rep" +%s%N)
	[ "$t" -ge "$last" ] || fail "the report job's log is older than a task's"
}

# ---- a sweep in virtual time, 3 shards ----
s=scenarios/sweep-baseline.yaml
"$TB" sim -q --results "$TB_TMP/whole" $s >"$TB_TMP/whole.out" 2>&1 || fail "sim: $(tail -3 "$TB_TMP/whole.out")"
cut="$TB_TMP/cut it's" # a space and a quote: the script's quoting, on a real sbatch
"$TB" slurm --partition test --time 10 --shards 3 --array-max 2 --results "$cut" \
	--out "$TB_TMP/sweep.sh" $s >"$TB_TMP/slurm.out" 2>&1 || fail "testbed slurm: $(cat "$TB_TMP/slurm.out")"
grep -q -- "--array=0-2%2 " "$TB_TMP/sweep.sh" || fail "sweep.sh: no --array=0-2%2"
grep -q -- "--dependency=afterok:" "$TB_TMP/sweep.sh" || fail "sweep.sh: no afterok dependency"
submit "$TB_TMP/sweep.sh" "$TB_TMP/submit.out"
slurm_wait_jobs 300 "$array" "$report" || fail "the sweep's jobs did not end: $(slurm_dump_logs 2>&1 | tail -20)"
check_jobs "$cut" testbed-sweep-base 3 "shard [123]/3 done"
grep -q "comparison: " "$cut/slurm/testbed-sweep-base-report-$report.out" ||
	fail "report job: $(tail -5 "$cut/slurm/testbed-sweep-base-report-$report.out")"
a=$(ls -d "$TB_TMP"/whole/*/*-sweep) b="$cut/sweep-base/sweep"
cmp "$a/comparison.txt" "$b/comparison.txt" || fail "Slurm: comparison.txt differs from the unsharded run's"
cmp "$a/comparison.json" "$b/comparison.json" || fail "Slurm: comparison.json differs from the unsharded run's"
cmp "$a/sweep.json" "$b/sweep.json" || fail "Slurm: sweep.json differs from the unsharded run's"
note "sweep-baseline on Slurm: array $array of 3 tasks, report job $report after them; comparison identical"

# ---- reproduce --sim --quick, 4 shards ----
"$TB" reproduce -q --sim --quick --results "$TB_TMP/rwhole" >"$TB_TMP/rwhole.out" 2>&1 || fail "reproduce: $(tail -3 "$TB_TMP/rwhole.out")"
"$TB" slurm --shards 4 --results "$TB_TMP/rcut" --out "$TB_TMP/repro.sh" reproduce --sim --quick \
	>"$TB_TMP/rslurm.out" 2>&1 || fail "testbed slurm reproduce: $(cat "$TB_TMP/rslurm.out")"
submit "$TB_TMP/repro.sh" "$TB_TMP/rsubmit.out"
slurm_wait_jobs 300 "$array" "$report" || fail "the reproduction's jobs did not end"
check_jobs "$TB_TMP/rcut" testbed-reproduce 4 "testbed reproduce: shard [1234]/4 done"
grep -q "report: .*report.md (4 of 4 shards merged)" "$TB_TMP/rcut/slurm/testbed-reproduce-report-$report.out" ||
	fail "report job: $(tail -5 "$TB_TMP/rcut/slurm/testbed-reproduce-report-$report.out")"
# the figures (variant, metric, paper, measured, ratio) and every scenario's verdict
figures() { grep '^| ' "$1" | sed 's/ | [0-9]* s |$/ |/'; }
diff <(figures "$TB_TMP/rwhole/report.md") <(figures "$TB_TMP/rcut/report.md") >"$TB_TMP/fig.diff" ||
	fail "report.md's figures differ: $(head -20 "$TB_TMP/fig.diff")"
[ "$(figures "$TB_TMP/rcut/report.md" | wc -l)" -ge 30 ] || fail "report.md: too few figures"
note "reproduce --sim --quick on Slurm: array $array of 4 tasks, report job $report; report.md's $(figures "$TB_TMP/rcut/report.md" | wc -l) table rows as unsharded"
