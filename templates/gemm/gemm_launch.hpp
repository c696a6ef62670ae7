#pragma once
#include <gemm/gemm_family.hpp>
#include <ktune/runtime/driver.hpp>

namespace ktune {

// Runs `inst` on `args` as `plan` (gemm_plan of the same three) says: copies A and B
// into pitch-aligned buffers when it packs, launches ktune_gemm (alpha and beta in the
// accumulator type), and sums the split-K slices in a second launch. `workspace` holds
// at least the plan's workspace_bytes (0 for most configs).
void launch_gemm(CUfunction f, const Instance& inst, const GemmArgs& args, const GemmPlan& plan,
                 CUdeviceptr workspace, CUstream stream);

}  // namespace ktune
