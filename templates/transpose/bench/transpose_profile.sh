#!/usr/bin/env bash
# Nsight Compute over ktune's odd-pitch winners and the autotuned Triton kernel's config
# at the same shape (templates/transpose/bench/transpose_ncu_triton.py), to see what separates them (DRAM
# bytes, sectors per request, L2 traffic, occupancy, stalls).
#   bash templates/transpose/bench/transpose_profile.sh BUILD_DIR OUT_DIR
# KTUNE_PROFILE: "DTYPE SHAPE KTUNE_CONFIG_JSON BM BN WARPS;..." (default: the H100 winners
# of f32 and u8 8191x4097 and Triton's winners there).
set -uo pipefail
build=${1:?build dir} out=${2:?out dir}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cases=${KTUNE_PROFILE:-'f32 8191x4097 {"tile_m":128,"tile_n":32,"block_x":32,"block_y":8,"vec":1,"layout":"xor","realign":0,"copy":0,"wide":0,"order":"src","words":0} 128 32 4;u8 8191x4097 {"tile_m":128,"tile_n":32,"block_x":32,"block_y":4,"vec":1,"layout":"pad","realign":0,"copy":0,"wide":0,"order":"src","words":0} 128 32 2'}
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,launch__registers_per_thread,launch__grid_size,launch__block_size
profile() {  # name, kernel regex, command...
  local name=$1 kernel=$2; shift 2
  ncu --clock-control none -k "regex:$kernel" --launch-skip 3 --launch-count 1 --metrics "$metrics" "$@" 2>&1 \
    | grep -v '^==PROF==' > "$out/ncu-$name.txt"
  echo "== $name (rc=$?)"; grep -E '^\s+(gpu__|dram__|lts__|l1tex__|sm__|smsp__|launch__)' "$out/ncu-$name.txt" | tr -s ' '
}
IFS=';' read -ra list <<< "$cases"
for c in "${list[@]}"; do
  read -r dtype shape cfg bm bn warps <<< "$c"
  profile "ktune-$dtype-$shape" ktune_transpose "$build/tuner/ktune" bench transpose --dtype "$dtype" --shape "$shape" \
    --config "$cfg" --rounds 1
  profile "triton-$dtype-$shape" triton_transpose python3 "$here/transpose_ncu_triton.py" "$dtype" "$shape" "$bm" "$bn" "$warps"
done
