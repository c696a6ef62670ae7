#!/usr/bin/env bash
# Issue 55's numbers, on a machine with four identical GPUs: bench/workload_40.txt (40
# problems) tuned on one GPU (--devices 0), on four (--devices all) in file order, on four
# longest first by the one-GPU run's recorded times (--order-by), and as a Slurm array
# job of four tasks with one GPU each cut into equal shares by those times (a private
# cluster on this host, scripts/slurm/local_cluster.sh; Slurm's commands on PATH), each
# into fresh databases; then the databases' keys and winners compared
# (bench/workload_compare.py).
#   bash bench/cluster_bench.sh BUILD OUT_DIR
# KTUNE_WORKLOAD_ARGS: the search of every problem (default: --strategy model --budget-evals 40).
set -uo pipefail
build=${1:?usage: cluster_bench.sh BUILD OUT_DIR}
out=${2:?usage: cluster_bench.sh BUILD OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
ktune="$build/tuner/ktune"
work=$(mktemp -d)
mkdir -p "$out"
read -r -a search <<< "${KTUNE_WORKLOAD_ARGS:---strategy model --budget-evals 40}"
log() { echo "$*" | tee -a "$out/cluster_summary.txt"; }
now() { date +%s.%N; }
since() { python3 -c "print(f'{$(now) - $1:.1f}')"; }
log "cluster bench, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=index,name --format=csv,noheader | tr '\n' ';')"
workload=$here/bench/workload_40.txt
log "workload: $("$ktune" tune --workload "$workload" --check | tail -1); search: ${search[*]}"
times=$work/one/logs/tuning-times.tsv  # what the one-GPU run recorded
for run in "one --devices 0" "four --devices all" "ordered --devices all --order-by $times"; do
  read -r name devices <<< "$run"
  t0=$(now)
  # shellcheck disable=SC2086
  KTUNE_CACHE_DIR="$work/$name" "$ktune" tune --workload "$workload" $devices "${search[@]}" > "$out/cluster-$name.txt" 2>&1
  log "$name ($devices): rc=$?, $(since "$t0") s wall; $(tail -1 "$out/cluster-$name.txt")"
  log "  the problems' times summed: $(awk -F'\t' '/^[0-9]/ { s += $1 } END { print s }' "$work/$name/logs/tuning-times.tsv") s"
done
bash "$here/scripts/slurm/local_cluster.sh" start "$work/cluster" 2 2 | tee -a "$out/cluster_summary.txt"
export SLURM_CONF=$work/cluster/slurm.conf
t0=$(now)
KTUNE=$ktune bash "$here/scripts/slurm/submit.sh" "$workload" "$work/slurm" --tasks 4 --times "$times" --wait \
  -- "${search[@]}" > "$out/cluster-slurm.txt" 2>&1
log "slurm (4 tasks, one GPU each, --times of the one-GPU run): rc=$?, $(since "$t0") s wall, submission to merged; $(grep 'task(s) finished\|^merged' "$out/cluster-slurm.txt" | tr '\n' ' ')"
bash "$here/scripts/slurm/local_cluster.sh" stop "$work/cluster"
for i in 0 1 2 3; do log "  task $i: $(grep -c 'configs evaluated' "$work/slurm/logs/task-$i.out") problems, $(head -1 "$work/slurm/shard-$i/status" 2>/dev/null)"; done
KTUNE_CACHE_DIR="$work/one" "$ktune" cache export -o "$work/one.json"
KTUNE_CACHE_DIR="$work/four" "$ktune" cache export -o "$work/four.json"
KTUNE_CACHE_DIR="$work/ordered" "$ktune" cache export -o "$work/ordered.json"
"$ktune" cache export --database "$work/slurm/tuning.db" -o "$work/slurm.json"
python3 "$here/bench/workload_compare.py" "$work/one.json" "$work/four.json" "$work/ordered.json" "$work/slurm.json" |
  tee -a "$out/cluster_summary.txt"
cp "$times" "$out/tuning-times.tsv"
rm -rf "$work"
