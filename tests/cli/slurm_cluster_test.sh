#!/usr/bin/env bash
# The Slurm array job for real: a private Slurm cluster on this host (Debian's slurmctld,
# slurmd, slurm-client and munge; scripts/slurm/local_cluster.sh) with two node names,
# scripts/slurm/submit.sh over a workload, the merge job after it, a task killed
# mid-run and rerun as merge.sh says. Without a GPU the shards compile their configs
# ahead (--dry-run), and a second pass over each shard finds every program in its store;
# with GPUs (KTUNE_SLURM_GPUS=N, one per node name) they tune for real, a problem listed
# twice lands in two shards and the merge keeps the faster record, every problem of the
# workload is stored exactly once, and an application finds its winner in the merged
# database. Skips (77) without the packages or root.
#   slurm_cluster_test.sh PATH_TO_KTUNE SOURCE_DIR [BUILD_DIR]
set -euo pipefail
ktune=${1:?usage: slurm_cluster_test.sh KTUNE SOURCE_DIR [BUILD_DIR]}
src=${2:?usage: slurm_cluster_test.sh KTUNE SOURCE_DIR [BUILD_DIR]}
build=${3:-$(dirname "$(dirname "$ktune")")}
for tool in slurmctld slurmd sbatch munged; do
  if ! command -v $tool > /dev/null; then
    echo "*** ktune: SKIPPING the Slurm test: $tool not installed (apt-get install slurmctld slurmd slurm-client munge)" >&2
    exit 77
  fi
done
[ "$(id -u)" = 0 ] || { echo "*** ktune: SKIPPING the Slurm test: it runs Slurm's daemons as root" >&2; exit 77; }
dir=$(mktemp -d)
chmod 700 "$dir"
cluster=$dir/cluster
gpus=${KTUNE_SLURM_GPUS:-0}
cleanup() {  # KTUNE_TEST_KEEP=DIR: the results, the tasks' output and the cluster's logs are copied there
  bash "$src/scripts/slurm/local_cluster.sh" stop "$cluster" > /dev/null 2>&1 || true
  [ -z "${KTUNE_TEST_KEEP:-}" ] || { mkdir -p "$KTUNE_TEST_KEEP"; cp -r "$dir/results" "$cluster/log" "$KTUNE_TEST_KEEP/" 2>/dev/null; }
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$dir"/results/logs/*; do echo "== $f" >&2; tail -5 "$f" >&2; done; exit 1; }
source "$(dirname "$0")/contains.sh"
nodes=2; per_node=0
if [ "$gpus" -gt 0 ]; then per_node=$(( gpus / 2 )); [ $per_node -ge 1 ] || { nodes=1; per_node=$gpus; }; fi
bash "$src/scripts/slurm/local_cluster.sh" start "$cluster" $nodes $per_node
export SLURM_CONF=$cluster/slurm.conf
[ "$(sinfo -h -N -o '%N' | sort -u | wc -l)" -ge 1 ] || fail "no node"
export KTUNE_CACHE_DIR=$dir/cache

# A task that dies the first time it runs (SIGKILL, as a node lost or a job killed):
# the merge reports it, and the rerun merge.sh prints finishes it.
cat > "$dir/ktune-flaky" <<SH
#!/usr/bin/env bash
if [ "\$SLURM_ARRAY_TASK_ID" = 1 ] && [ ! -e "$dir/killed-once" ]; then touch "$dir/killed-once"; kill -9 \$PPID \$\$; fi
exec "$ktune" "\$@"
SH
chmod +x "$dir/ktune-flaky"
export KTUNE=$dir/ktune-flaky

if [ "$gpus" = 0 ]; then
  # No GPU: each shard compiles what its search would try first (3 configs a problem).
  cat > "$dir/w.txt" <<W
reduce --dtype f32 --n 100003 --op sum
reduce --dtype f64 --n 4097 --op max
elementwise --expr "out = a * b + c" --dtype f32 --n 1000003
transpose --dtype f32 --shape 1000x1000
transpose --dtype u8 --shape 999x1001
--kernel $src/tests/data/user_kernels/scale.cu --problem n=1000
W
  set +e
  bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/results" --tasks 3 --dry-run --wait -- --budget-evals 3 \
    > "$dir/first.txt" 2>&1
  rc=$?
  set -e
  cat "$dir/first.txt"
  [ $rc != 0 ] || fail "a killed task went unreported"
  contains "^task 1: running since" < "$dir/first.txt" || fail "the killed task's state"
  contains "^2 of 3 task(s) finished" < "$dir/first.txt" || fail "finished count"
  rerun=$(grep -A1 "^rerun the tasks" "$dir/first.txt" | tail -1 | sed 's/\[the options given before\]//')
  contains -- "--only 1 " <<< "$rerun " || fail "rerun command: $rerun"
  eval "$rerun --dry-run --wait -- --budget-evals 3" > "$dir/second.txt" 2>&1 || { cat "$dir/second.txt"; fail "rerun"; }
  cat "$dir/second.txt"
  contains "^3 of 3 task(s) finished" < "$dir/second.txt" || fail "after the rerun"
  # Every problem in exactly one shard, compiled there.
  total=0
  for i in 0 1 2; do
    n=$(sed -n 's/^shard '$i'\/3: \([0-9]*\) of the 6 problems$/\1/p' "$dir/results/logs/task-$i.out" | tail -1)
    [ -n "$n" ] || fail "task $i did not say its share"
    total=$(( total + n ))
    [ "$(grep -c '^dry run (no GPU): .* 3 compiled for sm_90 .*0 failed' "$dir/results/logs/task-$i.out")" -ge "$n" ] ||
      fail "task $i did not compile its problems"
    # A later run over the shard's store (as the GPU run after it would) finds them all.
    "$ktune" tune --workload "$dir/w.txt" --shard $i/3 --dry-run --budget-evals 3 --database "$dir/results/shard-$i/tuning.db" \
      > "$dir/again-$i.txt"
    [ "$(grep -c '3 compiled for sm_90 (3 of them found in the program store)' "$dir/again-$i.txt")" = "$n" ] ||
      fail "shard $i's programs were not found by a later run: $(cat "$dir/again-$i.txt")"
  done
  [ $total = 6 ] || fail "the shards hold $total problems, not 6"
  # --times: shards cut by an earlier run's times (equal work, longest first; --check
  # lists a shard, compiles nothing): the 100 s problem alone in task 0's share. A rerun
  # keeps those times; other ones are refused.
  "$ktune" tune --workload "$dir/w.txt" --check | sed -n 's/^line [0-9]*: //p' |
    awk '{ printf "%s\tNVIDIA H200\t%s\n", NR == 6 ? 100 : 1, $0 }' > "$dir/times.tsv"
  bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/timed" --tasks 3 --times "$dir/times.tsv" --dry-run --wait -- --check \
    > "$dir/timed.txt" 2>&1 || { cat "$dir/timed.txt"; fail "--times submission"; }
  contains "^shard 0/3: 1 of the 6 problems" < "$dir/timed/logs/task-0.out" &&
    contains "^order: longest first by the recorded times of 6 of the 6 problems" < "$dir/timed/logs/task-0.out" &&
    contains "^line 6: --kernel" < "$dir/timed/logs/task-0.out" || fail "task 0's share: $(cat "$dir/timed/logs/task-0.out")"
  cmp -s "$dir/times.tsv" "$dir/timed/order-times.tsv" || fail "the times the shards were cut by were not kept"
  sed 's/^100/1/' "$dir/times.tsv" > "$dir/other.tsv"
  if bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/timed" --tasks 3 --only 1 --times "$dir/other.tsv" \
    > "$dir/other.out" 2>&1; then fail "a rerun cut by other times was submitted"; fi
  contains "reruns keep those times" < "$dir/other.out" || fail "other times: $(cat "$dir/other.out")"
  if bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/none" --times "$dir/none.tsv" > "$dir/none.out" 2>&1; then
    fail "--times naming no file was submitted"
  fi
  contains "none.tsv: no such file" < "$dir/none.out" || fail "--times naming no file: $(cat "$dir/none.out")"
  bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/timed" --tasks 3 --only 2 --dry-run --wait -- --check > /dev/null 2>&1 ||
    fail "--only 2 after --times"
  contains "^shard 2/3: 2 of the 6 problems" < "$dir/timed/logs/task-2.out" || fail "the rerun cut another share"
  # A workload that does not check is refused before anything is submitted.
  echo "transpose --dtype f33 --shape 8x8" > "$dir/bad.txt"
  if bash "$src/scripts/slurm/submit.sh" "$dir/bad.txt" "$dir/bad" > "$dir/bad.out" 2>&1; then fail "bad workload submitted"; fi
  contains "bad.txt:1:" < "$dir/bad.out" || fail "bad workload message: $(cat "$dir/bad.out")"
  # Issue 66, item 8: tasks that cannot exist, and a RESULTS path sbatch would expand.
  if bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/only" --tasks 2 --only 0-3 --dry-run > "$dir/only.out" 2>&1; then
    fail "--only beyond --tasks submitted"
  fi
  contains "task 3 does not exist (--tasks 2: 0-1)" < "$dir/only.out" || fail "--only 0-3: $(cat "$dir/only.out")"
  if bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/res %j" --dry-run > "$dir/pct.out" 2>&1; then
    fail "a RESULTS path with % submitted"
  fi
  contains "which sbatch expands" < "$dir/pct.out" || fail "% in RESULTS: $(cat "$dir/pct.out")"
  echo "slurm_cluster_test (no GPU: dry runs): all checks passed"
  exit 0
fi

# GPUs: real tuning, one GPU a task. Problem 1 is listed twice, on lines 1 and 8, which
# shards 0 and 3 (of 4) tune apart: the merge must keep one record, the faster.
cat > "$dir/w.txt" <<W
transpose --dtype f32 --shape 4096x4096 --strategy random --budget-evals 40
transpose --dtype u8 --shape 8191x4097 --strategy random --budget-evals 40
reduce --dtype f32 --n 10000003 --op sum --strategy random --budget-evals 40
elementwise --expr "out = a * b + c" --dtype f32 --n 10000003 --strategy random --budget-evals 40
transpose --dtype f16 --shape 8192x2048 --strategy random --budget-evals 40
reduce --dtype f64 --n 1000003 --op max --strategy random --budget-evals 40
--kernel $src/examples/stencil/jacobi.cu --problem nx=2048,ny=2048 --strategy random --budget-evals 40
transpose --dtype f32 --shape 4096x4096 --strategy random --budget-evals 40 --seed 7
W
set +e
bash "$src/scripts/slurm/submit.sh" "$dir/w.txt" "$dir/results" --tasks 4 --wait > "$dir/first.txt" 2>&1
set -e
cat "$dir/first.txt"
contains "^task 1: running since" < "$dir/first.txt" || fail "the killed task's state"
rerun=$(grep -A1 "^rerun the tasks" "$dir/first.txt" | tail -1 | sed 's/\[the options given before\]//')
eval "$rerun --wait" > "$dir/second.txt" 2>&1 || { cat "$dir/second.txt"; fail "rerun"; }
cat "$dir/second.txt"
contains "^4 of 4 task(s) finished" < "$dir/second.txt" || fail "after the rerun"
for i in 0 1 2 3; do
  grep -h "^NVIDIA\|configs evaluated" "$dir/results/logs/task-$i.out" | head -3
done
export KTUNE_CACHE_DIR=$dir/results  # the merged database: $dir/results/tuning.db
list=$("$ktune" cache list)
echo "$list"
[ "$(grep -c ' us ' <<< "$list")" = 7 ] || fail "the 7 problems are not stored once each"
fast=$(for i in 0 3; do "$ktune" cache show --database "$dir/results/shard-$i/tuning.db" --family transpose --shape 4096x4096; done |
  grep -o '"median_us": [0-9.e+-]*' | sort -t: -k2 -g | head -1)
"$ktune" cache show --family transpose --shape 4096x4096 | contains "$fast" || fail "the merge did not keep the faster record ($fast)"
# An application reads the merged database: its call runs the stored winner.
LD_LIBRARY_PATH="$build/runtime" "$build/examples/transpose_app" 4096 4096 | tee "$dir/app.txt"
contains "match=exact" < "$dir/app.txt" || fail "the application did not find the merged record"
echo "slurm_cluster_test ($gpus GPUs): all checks passed"
