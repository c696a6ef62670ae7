#!/usr/bin/env bash
# Tunes a workload over a Slurm cluster: an array job of N tasks, each with its share of
# the problems, one GPU and a database of its own, then a job that merges them.
#   bash scripts/slurm/submit.sh WORKLOAD RESULTS [--tasks N] [--dry-run] [--only I,J,...]
#        [--times FILE] [--sbatch "OPTIONS"] [--wait] [-- KTUNE_TUNE_OPTIONS...]
# --tasks N: array size (default: the number of problems, at most 16); --dry-run: compile
# each shard's configs into its program store on nodes without GPUs (no --gres; a later
# run with the same RESULTS on GPU nodes finds them); --only: rerun these tasks (what
# merge.sh prints); --times: how long each problem took in an earlier run (the
# RESULTS/tuning-times.tsv its merge wrote, or a log folder's tuning-times.tsv): the
# shards get equal work, longest problems first, instead of problems I, I+N, ...; kept
# as RESULTS/order-times.tsv, which every task and every rerun cuts its shard by;
# --sbatch: more sbatch options for the array (partition, time,
# account, --cpus-per-task: NVRTC uses the task's cores); --wait: return when the merge
# job has ended, with its exit status. After `--`: options for every `ktune tune`
# (e.g. --strategy model --budget-evals 60). The ktune binary: $KTUNE, else `ktune` on
# the PATH, else this checkout's build/tuner/ktune. Output: RESULTS/shard-I/ (database,
# programs, logs, status), RESULTS/logs/ (each task's and the merge's output), and the
# merged RESULTS/tuning.db.
set -euo pipefail
usage="usage: submit.sh WORKLOAD RESULTS [--tasks N] [--dry-run] [--only I,J] [--times FILE] [--sbatch OPTIONS] [--wait] [-- ktune tune options]"
workload=${1:?$usage}
results=${2:?$usage}
shift 2
tasks="" dry_run="" only="" extra="" wait="" times=""
while [ $# -gt 0 ]; do
  case $1 in
    --tasks) tasks=${2:?$usage}; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    --only) only=${2:?$usage}; shift 2 ;;
    --times) times=${2:?$usage}; shift 2 ;;
    --sbatch) extra=${2:?$usage}; shift 2 ;;
    --wait) wait=1; shift ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown option '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$workload" ] || { echo "submit.sh: no workload file $workload" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "submit.sh: sbatch not found (is this a Slurm login node?)" >&2; exit 2; }
if [ -z "${KTUNE:-}" ]; then
  KTUNE=$(command -v ktune || echo "$here/../../build/tuner/ktune")
fi
[ -x "$KTUNE" ] || { echo "submit.sh: no ktune binary at $KTUNE (set KTUNE)" >&2; exit 2; }
[ -z "$times" ] || [ -f "$times" ] || { echo "submit.sh: --times $times: no such file" >&2; exit 2; }
# sbatch expands % in an output path (%j, %a): RESULTS must not hold one.
case "$(realpath -m -- "$results")" in
  *%*) echo "submit.sh: RESULTS $results holds '%', which sbatch expands in log paths; choose another" >&2; exit 2 ;;
esac
# --sbatch "OPTIONS": split into words, never glob-expanded ("--partition=gpu *" stays as given).
read -r -a extra_words <<< "$extra"
# Absolute paths: the tasks start in another folder, maybe on another node (a shared
# file system holds RESULTS, the workload and its kernel files).
workload=$(cd "$(dirname "$workload")" && pwd)/$(basename "$workload")
mkdir -p "$results/logs"
results=$(cd "$results" && pwd)
KTUNE=$(cd "$(dirname "$KTUNE")" && pwd)/$(basename "$KTUNE")
# Every line checked before anything is submitted (the same check the tasks make).
"$KTUNE" tune --workload "$workload" --check > "$results/logs/check.txt" 2>&1 || {
  echo "submit.sh: the workload does not check:" >&2; cat "$results/logs/check.txt" >&2; exit 2; }
problems=$(grep -c "^line " "$results/logs/check.txt" || true)
[ "$problems" -gt 0 ] || { echo "submit.sh: $workload has no problems" >&2; exit 2; }
[ -n "$tasks" ] || tasks=$(( problems < 16 ? problems : 16 ))
[[ "$tasks" =~ ^[0-9]+$ ]] && [ "$tasks" -ge 1 ] || { echo "submit.sh: --tasks $tasks: a whole number >= 1" >&2; exit 2; }
[ "$tasks" -le "$problems" ] || tasks=$problems
# --only: task numbers and ranges (I,J,K-L) of the tasks that exist, 0 .. tasks-1.
if [ -n "$only" ]; then
  [[ "$only" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] || {
    echo "submit.sh: --only $only: task numbers or ranges, e.g. 3,5,7-9" >&2; exit 2; }
  for n in ${only//[,-]/ }; do
    [ "$n" -lt "$tasks" ] || { echo "submit.sh: --only $only: task $n does not exist (--tasks $tasks: 0-$(( tasks - 1 )))" >&2; exit 2; }
  done
fi
array=${only:-0-$(( tasks - 1 ))}
gres=(--gres=gpu:1)
opts=("$@")
# The times the shards are cut by stay those of the first submission: a rerun (--only)
# must cut the same shards, or a problem could fall in none.
order=$results/order-times.tsv
if [ -n "$times" ] && ! cmp -s "$times" "$order"; then
  if [ -f "$order" ]; then
    echo "submit.sh: $results was cut by $order; its reruns keep those times (a new RESULTS folder takes others)" >&2
    exit 2
  fi
  cp "$times" "$order"
fi
[ ! -f "$order" ] || opts=(--order-by "$order" "${opts[@]}")
if [ -n "$dry_run" ]; then gres=(); opts=(--dry-run "${opts[@]}"); fi
export KTUNE KTUNE_SLURM_DIR=$here
job=$(sbatch --parsable --array="$array" "${gres[@]}" "${extra_words[@]}" -o "$results/logs/task-%a.out" \
  "$here/ktune_array.sbatch" "$workload" "$results" "$tasks" "${opts[@]}")
merge=$(sbatch --parsable --dependency="afterany:${job%%;*}" -o "$results/logs/merge.out" --job-name=ktune-merge \
  "$here/merge.sh" "$results" "$workload" "$tasks")
echo "submitted: array job ${job%%;*} (tasks $array of $tasks, $problems problem(s)), merge job ${merge%%;*}"
echo "  results: $results/tuning.db once the merge job ends (its report: $results/logs/merge.out)"
if [ -n "$wait" ]; then
  while squeue -h -j "${merge%%;*}" 2>/dev/null | grep -q .; do sleep 2; done
  cat "$results/logs/merge.out"
  grep -q "^[0-9]* of $tasks task(s) finished" "$results/logs/merge.out" || exit 1
  ! grep -q "^task [0-9]*:\|not merged" "$results/logs/merge.out"
fi
