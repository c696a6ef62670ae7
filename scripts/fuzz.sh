#!/usr/bin/env bash
# Fuzzes the tuning-database loader and importer, the search-log reader, the CUBIN reader, the `// @`
# description parser and expression evaluator, the capture-bundle reader and the tuning-times
# reader, each for a bounded time with libFuzzer (Debian's clang):
#   bash scripts/fuzz.sh [SECONDS] [SEED_DB]
# Builds an instrumented copy in build-fuzz/ (clang -O1, -fsanitize=fuzzer-no-link,address),
# seeds the corpus with a healthy database and export, and fails on any crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
seed=${2:-}
if ! command -v clang++ > /dev/null; then echo "fuzz.sh: clang++ is required (apt-get install clang)" >&2; exit 1; fi
# Line tables only, so crash reports still name file and line. -O0 for CI's short runs
# (the build is most of the test's time: a translation unit compiles in 40-55% less time
# than at -O1); FUZZ_OPT=-O1 (as OSS-Fuzz builds) for long runs, which execute faster.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=None -DKTUNE_BUILD_TESTS=OFF \
  -DKTUNE_FUZZ=ON -DKTUNE_WERROR=OFF -DCMAKE_CXX_FLAGS="${FUZZ_OPT:--O0} -gline-tables-only -fsanitize=fuzzer-no-link,address" > /dev/null
cmake --build build-fuzz --target database_fuzz log_fuzz description_fuzz capture_fuzz cubin_fuzz times_fuzz shipped_fuzz -j "$(nproc)" > /dev/null
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
printf '{"ktune_schema": 1, "records": [{"device_key": "d", "family": "transpose", "dtype": "f32", "shape": [8, 8], "align": 4, "median_us": 1.0, "template_hash": "0", "config": {"tile_m": 64, "tile_n": 64, "block_x": 16, "block_y": 16, "vec": 4, "layout": "xor", "realign": 0, "copy": 0, "wide": 0}}]}' > "$corpus/seed.json"
# A healthy database as a seed, so mutations start from real SQLite pages.
if [ -n "$seed" ]; then cp "$seed" "$corpus/seed.db";
elif [ -x build/tuner/ktune ]; then
  KTUNE_CACHE_DIR="$corpus/cache" build/tuner/ktune cache import "$corpus/seed.json" > /dev/null
  cp "$corpus/cache/tuning.db" "$corpus/seed.db"; rm -rf "$corpus/cache"
fi
./build-fuzz/tests/fuzz/database_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 "$corpus" 2>&1 | tail -5
logs=$(mktemp -d)
trap 'rm -rf "$corpus" "$logs"' EXIT
head -40 tests/data/transpose-f32-8191x4097.jsonl > "$logs/seed.jsonl"  # a header and real candidate lines
# and a log whose closing line has hardware counters, as `ktune tune` writes them
python3 - tests/data/transpose-f32-8192x2048.jsonl "$logs/counters.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
closing = json.loads(lines[-1])
values = {"gpu__time_duration.sum": 3.4e4, "dram__bytes_read.sum": 6.7e7, "dram__bytes_write.sum": 4.0e7,
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 8.0e4, "sm__cycles_elapsed.avg.per_second": 1.9e9}
for f in closing.get("finalists", []):
    f["config"], f["counters"] = "tile_m=64 layout=xor", {"values": values}
closing["contrast"] = {"index": 9, "config": "tile_m=8", "timing": {"median_us": 900.0}, "counters": {"error": "x"}}
closing["counters"] = {"status": "collected", "chip": "GH100", "passes": 2, "seconds": 0.9, "metrics": list(values)}
open(sys.argv[2], "w").write("\n".join(lines[:20] + [json.dumps(closing)]) + "\n")
PY
./build-fuzz/tests/fuzz/log_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 "$logs" 2>&1 | tail -5
descriptions=$(mktemp -d)
trap 'rm -rf "$corpus" "$logs" "$descriptions"' EXIT
for f in templates/*/*.cuh tests/data/user_kernels/*.cu examples/*/*.cu; do cp "$f" "$descriptions/$(echo "$f" | tr / _)"; done
i=0  # elementwise expressions (and compaction predicates) too
for e in "out = a * b + c" "y = alpha * x + y" "keep = x > 0 && x < 3" "o = max(a, 0) ? sqrt(b) : -c; p = a"; do
  i=$((i + 1))
  printf '%s' "$e" > "$descriptions/expression_$i"
done
./build-fuzz/tests/fuzz/description_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
  "$descriptions" 2>&1 | tail -5
bundles=$(mktemp -d)
trap 'rm -rf "$corpus" "$logs" "$descriptions" "$bundles"' EXIT
python3 tests/cli/make_capture.py kernel tests/data/user_kernels/scale.cu 100 "$bundles/scale.ktcap"
python3 tests/cli/make_capture.py problem '{"family":"transpose","variant":"","dtype":"f32","shape":[10,15]}' \
  "$bundles/transpose.ktcap"
./build-fuzz/tests/fuzz/capture_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 "$bundles" 2>&1 | tail -5
cubins=$(mktemp -d)
trap 'rm -rf "$corpus" "$logs" "$descriptions" "$bundles" "$cubins"' EXIT
# A real CUBIN to start from (NVRTC through ctypes; without it the fuzzer starts from nothing).
python3 - "$cubins/k.cubin" <<'PY' || echo "fuzz.sh: no seed CUBIN (NVRTC not loadable)"
import ctypes, sys
nv = ctypes.CDLL("libnvrtc.so.13")
src = b"template <int n> __global__ void k(float* y, const float* x, int m) { float t[64]; for (int i = 0; i < 64; ++i) t[i] = x[(i * n) % m]; y[threadIdx.x] = t[m & 63]; }"
p = ctypes.c_void_p()
assert nv.nvrtcCreateProgram(ctypes.byref(p), src, b"k.cu", 0, None, None) == 0
assert nv.nvrtcAddNameExpression(p, b"k<1>") == 0
opts = (ctypes.c_char_p * 1)(b"--gpu-architecture=sm_90a")
assert nv.nvrtcCompileProgram(p, 1, opts) == 0
size = ctypes.c_size_t()
nv.nvrtcGetCUBINSize(p, ctypes.byref(size))
buf = ctypes.create_string_buffer(size.value)
nv.nvrtcGetCUBIN(p, buf)
open(sys.argv[1], "wb").write(buf.raw)
PY
./build-fuzz/tests/fuzz/cubin_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 "$cubins" 2>&1 | tail -5
times=$(mktemp -d)
shipped=$(mktemp -d)
trap 'rm -rf "$corpus" "$logs" "$descriptions" "$bundles" "$cubins" "$times" "$shipped"' EXIT
printf '# seconds\tGPU\tproblem\n2.50\tNVIDIA H200\ttranspose --dtype f32 --shape 8192x2048\n16.1\tNVIDIA H200\t--kernel h.cu --problem n=5\n' \
  > "$times/seed.tsv"
# (a third of the time: one small line format, covered within seconds)
./build-fuzz/tests/fuzz/times_fuzz -max_total_time="$(( seconds / 3 + 1 ))" -rss_limit_mb=2048 -timeout=20 "$times" 2>&1 |
  tail -5
cp shipped/*.tsv "$shipped"/ 2> /dev/null ||
  printf '# ktune shipped winners, format 1\ntranspose\t-\tf32\t8192x2048\t4\t{"vec":4}\tNVIDIA H200|sm_90|132sm|143771MiB|60MiB\tabc\t50.000\t2026-11-28T00:00:00Z\n' \
    > "$shipped/seed.tsv"
./build-fuzz/tests/fuzz/shipped_fuzz -max_total_time="$(( seconds / 3 + 1 ))" -rss_limit_mb=2048 -timeout=20 "$shipped" 2>&1 |
  tail -5
