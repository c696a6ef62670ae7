#pragma once
#include <ktune/runtime/launch.hpp>
#include <reduce/reduce_family.hpp>

namespace ktune {

// ktune_reduce(const In* x, long long n, Acc* partials, unsigned* ticket, Out* out, int phase,
//              int partial_count)
using ReduceParams = KernelParams<DevicePtr, long long, DevicePtr, DevicePtr, DevicePtr, int, int>;
// ktune_reduce_rows and ktune_reduce_cols(const In* x, int rows, int cols, long long ld, Out* out)
using ReduceLinesParams = KernelParams<DevicePtr, int, int, long long, DevicePtr>;

// Bytes of workspace a whole-array reduction needs on `sm_count` SMs (partials and the
// last-block ticket); it must start zeroed and may be reused by launches in one stream.
std::size_t reduce_workspace_bytes(int sm_count);

// Launches a `reduce` instance (both phases when its config has passes = 2), a
// `reduce_rows` or a `reduce_cols` instance, per the spec's family.
void launch_reduce(const KernelSpec& spec, CUfunction f, const Instance& inst, const ReduceArgs& args,
                   CUdeviceptr workspace, CUstream stream);

}  // namespace ktune
