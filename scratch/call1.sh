#!/usr/bin/env bash
# Call 1: transpose stmatrix verification + sanitizers, GEMM kmajor transpose-mode verification + sanitizers.
export KTUNE_BUILD=build-gpu
KTUNE_GPU_TESTS='layouts_gpu_test|transpose_gpu_test' timeout 330 bash scripts/gpu-check.sh $OUT tests
g=build-gpu/tests/gemm_gpu_test
{ timeout 120 $g --gtest_filter='*KmajorTransposeWalksTiles*:*EveryConfigVerifiedAtOddShapes/tf32_f32_nn_tma*:*EveryConfigVerifiedAtOddShapes/tf32_f32_tn_wgmma*'
  for tool in memcheck racecheck; do timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $g --gtest_filter='*KmajorTransposeWalksTiles*'; echo "$tool rc=$?"; done
} > $OUT/gemm-kmajor.log 2>&1
grep -E "OK|FAILED|rc=|SUMMARY|configs" $OUT/gemm-kmajor.log | tail -20
