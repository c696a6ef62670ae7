#!/usr/bin/env bash
# Like-for-like check of the elementwise winners against PyTorch: each config timed
# by `ktune bench` under ktune's protocol (short kernels in CUDA-graph batches with
# their flushes) and with --single-launch (one launch between two events, as
# templates/elementwise/bench/torch_elementwise.py times PyTorch), PyTorch timed in the same run.
#   bash templates/elementwise/bench/elementwise_protocols.sh BUILD_DIR > OUT_FILE
set -uo pipefail
build=${1:?usage: templates/elementwise/bench/elementwise_protocols.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
while read -r dtype n config; do
  for mode in "" --single-launch; do
    echo "== add $dtype n=$n ${mode:-(graph batches)}"
    "$build/tuner/ktune" bench elementwise --expr add --dtype "$dtype" --n "$n" --config "$config" --rounds 10 $mode
  done
done <<'PROBLEMS'
f16 8388608 {"vec":2,"items":2,"block":128,"grid_stride":0,"waves":1}
f16 8388608 {"vec":8,"items":1,"block":512,"grid_stride":0,"waves":1}
f32 8388608 {"vec":2,"items":8,"block":256,"grid_stride":1,"waves":4}
f16 268435456 {"vec":4,"items":2,"block":1024,"grid_stride":0,"waves":1}
PROBLEMS
python3 "$here/torch_elementwise.py" add:f16:8388608 add:f32:8388608 add:f16:268435456
