#!/usr/bin/env bash
# Hardware counters in search logs, without a GPU: a recorded transpose run with counters
# written into its closing line as `ktune tune` writes them (finalists, the fastest
# config of each layout, the slowest), read by `ktune log show`, `explain` and `report`;
# a malformed record skipped with a warning; a run without counters says why; and the
# option's bad input refused before anything runs.
#   log_counters_test.sh PATH_TO_KTUNE DATA_DIR
set -euo pipefail
ktune=${1:?usage: log_counters_test.sh KTUNE DATA_DIR}
data=${2:?usage: log_counters_test.sh KTUNE DATA_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export KTUNE_CACHE_DIR="$dir/cache"
fail() { echo "FAIL: $*" >&2; exit 1; }

# with_counters SRC DST MODE: MODE ok | tie | malformed | unavailable
with_counters() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
src, dst, mode = sys.argv[1:]
lines = open(src).read().splitlines()
closing = json.loads(lines[-1])
def values(dram_mb, conflicts, occupancy, us):
    return {"gpu__time_duration.sum": us * 1e3, "dram__bytes_read.sum": dram_mb * 5e5, "dram__bytes_write.sum": dram_mb * 5e5,
            "dram__throughput.avg.pct_of_peak_sustained_elapsed": 90.0, "lts__t_sector_hit_rate.pct": 50.0,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": conflicts,
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 0.0,
            "sm__warps_active.avg.pct_of_peak_sustained_active": occupancy,
            "sm__inst_issued.avg.pct_of_peak_sustained_active": 20.0,
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": 0.0,
            "sm__cycles_elapsed.avg.per_second": 1.755e9}
configs = ["tile_m=32 tile_n=128 block_x=8 block_y=32 vec=4 layout=xor",
           "tile_m=32 tile_n=128 block_x=8 block_y=32 vec=4 layout=xor realign=1",
           "tile_m=64 tile_n=64 block_x=16 block_y=16 vec=4 layout=pad", "tile_m=32 tile_n=64 layout=shift",
           "tile_m=32 tile_n=32 layout=xor"]
for j, f in enumerate(closing["finalists"]):
    f["config"] = configs[j]
    f["counters"] = {"values": values(67.1 if j == 0 else 97.2, 0.0 if j == 0 else 4.2e6, 62.0 if j == 0 else 48.0,
                                      f["timing"]["median_us"])}
closing["finalists"][4]["counters"] = {"skipped": "its 40 replays would take about 200.0 s, past --config-timeout 120 s"}
closing["design"] = [{"index": 1, "config": "tile_m=32 tile_n=128 layout=none", "timing": {"median_us": 48.0},
                      "counters": {"values": values(67.1, 3.1e7, 60.0, 48.0)}},
                     {"index": 2, "config": "tile_m=32 tile_n=128 layout=direct", "timing": {"median_us": 61.0},
                      "counters": {"values": values(120.0, 0.0, 60.0, 61.0)}}]
closing["contrast"] = {"index": 9, "config": "tile_m=8 tile_n=8 layout=none", "timing": {"median_us": 900.0},
                       "counters": {"error": "tile_m=8: counters: cuptiRangeProfilerStart failed: CUPTI_ERROR_UNKNOWN"}}
closing["counters"] = {"status": "collected", "chip": "GH100", "passes": 4, "seconds": 1.5, "metrics": list(values(1, 1, 1, 1))}
if mode == "malformed":
    closing["finalists"][2]["counters"] = {"values": {"dram__bytes_read.sum": "many"}}
    closing["design"][1]["counters"] = 7
if mode == "tie":  # ranked within the noise: the runner-up's median a hair lower
    closing["finalists"][1]["timing"]["median_us"] = closing["finalists"][0]["timing"]["median_us"] - 0.1
if mode == "unavailable":
    for k in ("design", "contrast"): closing.pop(k)
    for f in closing["finalists"]: f.pop("counters")
    closing["counters"] = {"status": "unavailable", "metrics": [],
                           "reason": "hardware counters are restricted to administrators on this machine (ERR_NVGPUCTRPERM)"}
lines[-1] = json.dumps(closing)
open(dst, "w").write("\n".join(lines) + "\n")
PY
}

src="$data/transpose-f32-8192x2048.jsonl"
with_counters "$src" "$dir/ok.jsonl" ok
"$ktune" log show "$dir/ok.jsonl" > "$dir/show.txt" || fail "log show: $(cat "$dir/show.txt")"
grep -q "^counters (GH100, 4 passes a launch, 1.5 s)" "$dir/show.txt" || fail "no counters table: $(cat "$dir/show.txt")"
grep -qE "^1 +34.56 +[0-9]+ +67.1 +50.0 +0 +62.0 " "$dir/show.txt" || fail "winner row: $(grep -A8 '^counters' "$dir/show.txt")"
grep -qE "^2 +34.58 .* 4200000 +48.0 " "$dir/show.txt" || fail "runner-up row"
grep -q "skipped: its 40 replays would take" "$dir/show.txt" || fail "skipped row"
grep -q "^slowest .*failed: tile_m=8: counters: cuptiRangeProfilerStart failed" "$dir/show.txt" || fail "failed row"
grep -q "^design .*layout=none" "$dir/show.txt" || fail "design rows"

"$ktune" log explain "$dir/ok.jsonl" > "$dir/explain.txt" || fail "log explain"
grep -q "The winner (34.56 us, tile_m=32 tile_n=128 block_x=8 block_y=32 vec=4 layout=xor) is 0.0% faster than the runner-up" "$dir/explain.txt" \
  || fail "explain head: $(head -3 "$dir/explain.txt")"
grep -q "it reads 31% fewer bytes from DRAM (33.5 MB against 48.6 MB)" "$dir/explain.txt" || fail "explain DRAM: $(head -3 "$dir/explain.txt")"
grep -q "it writes 31% fewer bytes to DRAM by its end (33.5 MB against 48.6 MB; what is still in L2 then is written later)" \
  "$dir/explain.txt" || fail "explain DRAM writes: $(head -3 "$dir/explain.txt")"
grep -q "the runner-up has 4.2M shared-memory bank conflicts, the winner 0M" "$dir/explain.txt" || fail "explain conflicts: $(head -3 "$dir/explain.txt")"
grep -q "achieved occupancy 62% against 48%" "$dir/explain.txt" || fail "explain occupancy"
with_counters "$src" "$dir/tie.jsonl" tie
"$ktune" log explain "$dir/tie.jsonl" > "$dir/tie.txt" || fail "log explain (tie)"
grep -q "layout=xor) ties (within the noise, 0.3% apart) the runner-up (34.46 us" "$dir/tie.txt" || fail "tie: $(head -2 "$dir/tie.txt")"

"$ktune" log report "$dir/ok.jsonl" -o "$dir/report.html" > /dev/null || fail "log report"
for want in "Hardware counters" "shared-memory bank conflicts by layout" "time by layout" "it reads 31% fewer bytes from DRAM" \
            "4 passes a launch on GH100"; do
  grep -qF "$want" "$dir/report.html" || fail "report lacks '$want'"
done

# A malformed record: skipped with a warning, the rest shown.
with_counters "$src" "$dir/bad.jsonl" malformed
"$ktune" log show "$dir/bad.jsonl" > "$dir/show.txt" 2>&1 || fail "log show (malformed): $(cat "$dir/show.txt")"
grep -q "warning: the counters record of the 3 config is malformed (the value of dram__bytes_read.sum is not a number); skipped" "$dir/show.txt" \
  || fail "malformed warning: $(grep -i warn "$dir/show.txt")"
grep -q "warning: the counters record of the design config is malformed (not an object); skipped" "$dir/show.txt" || fail "malformed design"
grep -qE "^1 +34.56 " "$dir/show.txt" || fail "the good rows after a malformed one"
"$ktune" log report "$dir/bad.jsonl" -o "$dir/bad.html" > /dev/null || fail "report (malformed)"
grep -qF "is malformed (the value of dram__bytes_read.sum is not a number)" "$dir/bad.html" || fail "report warning"

# No counters for the run: said, once, with the reason.
with_counters "$src" "$dir/none.jsonl" unavailable
"$ktune" log show "$dir/none.jsonl" > "$dir/show.txt" || fail "log show (unavailable)"
grep -q "^counters: none for this run: hardware counters are restricted to administrators" "$dir/show.txt" || fail "unavailable"
"$ktune" log explain "$dir/none.jsonl" | grep -q "No counters for this run: hardware counters are restricted" || fail "explain unavailable"
"$ktune" log explain "$src" | grep -q "no counters in this log" || fail "explain without counters"

# The option's bad input, before anything runs (no GPU needed).
for bad in "Dram__bytes.sum" "dram__bytes_read.sum,,lts__t_sector_hit_rate.pct" "a__b,a__b"; do
  if "$ktune" tune transpose --shape 1000x1000 --counters "$bad" > "$dir/out" 2>&1; then fail "--counters '$bad' accepted"; fi
  grep -q "ktune: error: --counters" "$dir/out" || fail "--counters '$bad': $(cat "$dir/out")"
done
if "$ktune" tune transpose --shape 1000x1000 --dry-run --counters default > "$dir/out" 2>&1; then fail "--counters with --dry-run accepted"; fi
grep -q "a dry run launches nothing" "$dir/out" || fail "dry run: $(cat "$dir/out")"
echo "log counters: all checks passed"
