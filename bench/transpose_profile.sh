#!/usr/bin/env bash
# Nsight Compute over the 8191x4097 f32 winner and the same config at 8192x4096, to see
# what keeps the odd shape under the aligned one (DRAM bytes, L2 sectors, stalls).
#   bash bench/transpose_profile.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=${1:?build dir} out=${2:?out dir}
cfg='{"tile_m":128,"tile_n":128,"block_x":32,"block_y":32,"vec":1,"layout":"pad","realign":0,"copy":0}'
for shape in 8191x4097 8192x4096; do
  ncu --clock-control none -k regex:ktune_transpose --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
      --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum \
      "$build/tuner/ktune" bench transpose --dtype f32 --shape "$shape" --config "$cfg" --rounds 1 2>&1 \
    | grep -v '^==PROF==' > "$out/ncu-$shape.txt"
  echo "ncu $shape: rc=$? $(grep -E 'DRAM Throughput|Duration' "$out/ncu-$shape.txt" | head -2 | tr -s ' ' | tr '\n' ' ')"
done
