#pragma once
#include <reduce/reduce_family.hpp>
#include <ktune/runtime/driver.hpp>

namespace ktune {

// Bytes of workspace a whole-array reduction needs on `sm_count` SMs (partials and the
// last-block ticket); it must start zeroed and may be reused by launches in one stream.
std::size_t reduce_workspace_bytes(int sm_count);

// Launches a `reduce` instance (both phases when its config has passes = 2), a
// `reduce_rows` or a `reduce_cols` instance, per the spec's family.
void launch_reduce(const KernelSpec& spec, CUfunction f, const Instance& inst, const ReduceArgs& args,
                   CUdeviceptr workspace, CUstream stream);

}  // namespace ktune
