#pragma once
#include <gemm/gemm_family.hpp>
#include <ktune/runtime/launch.hpp>
#include <ktune/runtime/pitched_copy.hpp>

namespace ktune {

// ktune_gemm_mma(const In* A, const In* B, Out* C, int m, int n, int k, long long lda,
//   long long ldb, long long ldc, float alpha, float beta, float* work, int sum_slices,
//   ktune_tensor_map tma_a, ktune_tensor_map tma_b, unsigned* flags); ktune_gemm declares the first 13,
// alpha and beta in its accumulator type (a kernel reads only the parameters it declares).
template <class Acc>
using GemmParams = KernelParams<DevicePtr, DevicePtr, DevicePtr, int, int, int, long long, long long, long long, Acc, Acc,
                                DevicePtr, int, CUtensorMap, CUtensorMap, DevicePtr>;

// Runs `inst` on `args` as `plan` (gemm_plan of the same three) says: copies a misaligned
// A or B into a pitch-aligned buffer with `copy` when it packs (null where the plan packs
// nothing), launches ktune_gemm (alpha and beta in the accumulator type), and sums the
// split-K slices in a second launch. `workspace` holds at least the plan's workspace_bytes
// (0 for most configs), `flags` its flags_bytes, zero (stream-K's counters, which each
// launch leaves zero).
void launch_gemm(CUfunction f, const Instance& inst, const GemmArgs& args, const GemmPlan& plan,
                 CUdeviceptr workspace, CUdeviceptr flags, const PitchedCopy* copy, CUstream stream);

}  // namespace ktune
