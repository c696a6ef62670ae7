#pragma once
#include <ktune/generator/gemm_family.hpp>
#include <ktune/runtime/driver.hpp>

namespace ktune {

// Binds GemmArgs to ktune_gemm's parameters (alpha and beta in the element type).
void launch_gemm(CUfunction f, const Instance& inst, const GemmArgs& args, CUstream stream);

}  // namespace ktune
