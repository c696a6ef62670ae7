#!/usr/bin/env bash
# After ktune's array job (scripts/slurm/submit.sh submits this as a job that waits for
# it): says how each task ended, merges every shard's database into one, and prints the
# command that reruns the tasks that did not finish; gathers the shards' tuning times.
#   bash scripts/slurm/merge.sh RESULTS WORKLOAD N [DATABASE]     (DATABASE: RESULTS/tuning.db)
# Each shard is merged all or nothing (`ktune cache merge`: the faster record kept where
# two shards tuned one problem; records of another template version or an unknown kernel
# refused). A failed task's database holds the problems it finished: merged too, and a
# rerun tunes only the rest. Exit status 1 when a task did not finish or a shard was not merged.
set -uo pipefail
results=${1:?usage: merge.sh RESULTS WORKLOAD N [DATABASE]}
workload=${2:?usage: merge.sh RESULTS WORKLOAD N [DATABASE]}
tasks=${3:?usage: merge.sh RESULTS WORKLOAD N [DATABASE]}
database=${4:-$results/tuning.db}
ktune=${KTUNE:-ktune}
status=0
unfinished=()
shards=()
for i in $(seq 0 $(( tasks - 1 ))); do
  state=$(cat "$results/shard-$i/status" 2>/dev/null || echo "never started")
  case $state in
    ok*) ;;
    *) echo "task $i: $state"; unfinished+=("$i"); status=1 ;;
  esac
  [ -f "$results/shard-$i/tuning.db" ] && shards+=("$results/shard-$i/tuning.db")
done
echo "$(( tasks - ${#unfinished[@]} )) of $tasks task(s) finished"
if [ ${#shards[@]} -gt 0 ]; then
  "$ktune" cache merge --database "$database" --workload "$workload" "${shards[@]}" || status=1
else
  echo "no shard database to merge (a --dry-run stores compiled programs only)"
fi
# How long each problem took, for the next submission's --times (longest first, equal shares).
times=("$results"/shard-*/logs/tuning-times.tsv)
if [ -f "${times[0]}" ]; then
  cat "${times[@]}" > "$results/tuning-times.tsv"
  echo "tuning times: $results/tuning-times.tsv (submit.sh --times takes it)"
fi
if [ ${#unfinished[@]} -gt 0 ]; then
  here=${KTUNE_SLURM_DIR:-$(cd "$(dirname "$0")" && pwd)}  # (a job runs a copy of this script)
  echo "rerun the tasks that did not finish (their stored problems are skipped):"
  # (quoted for a shell: a pasted line runs nothing a file name holds)
  printf '  bash %q %q %q --tasks %q --only %q [the options given before]\n' "$here/submit.sh" "$workload" "$results" \
    "$tasks" "$(IFS=,; echo "${unfinished[*]}")"
fi
exit $status
