#!/usr/bin/env bash
# Sets up, builds and tunes the default problem (transpose, f32, 8192x2048) on GPU 0.
# Extra arguments go to `ktune tune transpose` (e.g. --shape 16384x16384 --dtype f16).
# Without a GPU it says so and compiles the whole space with NVRTC instead (--dry-run).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
./build/tuner/ktune tune transpose --dtype f32 --shape 8192x2048 "$@"
rc=$?
if [ $rc = 2 ]; then
  echo "ktune: no GPU here; compiling every config of the space for sm_90 instead (dry run)..." >&2
  ./build/tuner/ktune tune transpose --dtype f32 --shape 8192x2048 --dry-run "$@"
  rc=$?
fi
exit $rc
