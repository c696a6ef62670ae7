#!/usr/bin/env bash
# Whether a rewrite of a template left its machine code as it was: compares the SASS of
# two dumps of a compile test (KTUNE_COMPILE_DUMP=DIR, tests/test_support.hpp), e.g.
#   KTUNE_COMPILE_DUMP=/tmp/old build-old/templates/gemm/gemm_mma_compile_test
#   KTUNE_COMPILE_DUMP=/tmp/new build/templates/gemm/gemm_mma_compile_test
#   bash scripts/sass_diff.sh /tmp/old /tmp/new
# Identical SASS for every kernel is what lets a template's `// @compatible` line keep
# the records of the old text (docs/adding-a-family.md). Needs cuobjdump and nvdisasm
# (the CUDA toolkit's, or pip's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm).
# Exit status: 0 all identical, 1 some differ, 2 a dump or the tools are missing.
set -uo pipefail
old=${1:?usage: scripts/sass_diff.sh OLD_DUMP_DIR NEW_DUMP_DIR}
new=${2:?usage: scripts/sass_diff.sh OLD_DUMP_DIR NEW_DUMP_DIR}
command -v cuobjdump >/dev/null || { echo "sass_diff: cuobjdump not on PATH" >&2; exit 2; }
shopt -s nullglob
cubins=("$old"/*.cubin)
[ ${#cubins[@]} -gt 0 ] || { echo "sass_diff: no .cubin in $old" >&2; exit 2; }
same=0 differ=0
for a in "${cubins[@]}"; do
  b=$new/$(basename "$a")
  if [ ! -f "$b" ]; then
    echo "missing in $new: $(basename "$a")"; differ=$((differ + 1)); continue
  fi
  if [ -f "${a%.cubin}.names" ] && ! cmp -s "${a%.cubin}.names" "${b%.cubin}.names"; then
    echo "other kernels in $(basename "$a")"; differ=$((differ + 1)); continue
  fi
  sa=$(cuobjdump -sass "$a") || exit 2
  sb=$(cuobjdump -sass "$b") || exit 2
  if [ "$sa" = "$sb" ]; then
    same=$((same + 1))
  else
    echo "SASS differs: $(basename "$a")"; differ=$((differ + 1))
  fi
done
echo "sass_diff: ${#cubins[@]} units, $same identical, $differ differ"
[ "$differ" = 0 ]
