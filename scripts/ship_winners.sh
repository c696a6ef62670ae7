#!/usr/bin/env bash
# Makes a shipped winners table (shipped/<device>.tsv, docs/runtime-api.md) on the GPU it
# runs on: tunes every problem of a workload file into a fresh database, then writes that
# database's records as the table. Never edit a table by hand: run this again.
#   bash scripts/ship_winners.sh WORKLOAD OUT.tsv [ktune tune options...]
# e.g. bash scripts/ship_winners.sh bench/zoo/zoo.txt shipped/nvidia-h200.tsv --strategy anneal --budget-evals 64
# KTUNE: the ktune binary (default: ktune from PATH).
set -euo pipefail
if [ $# -lt 2 ]; then sed -n 2,8p "$0" >&2; exit 2; fi
workload=$1 out=$2
shift 2
ktune=${KTUNE:-ktune}
[ -f "$workload" ] || { echo "ship_winners.sh: no workload file $workload" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$ktune" tune --workload "$workload" --database "$work/tuning.db" "$@"
"$ktune" cache ship --database "$work/tuning.db" -o "$out"
