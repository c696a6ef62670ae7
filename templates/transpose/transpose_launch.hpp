#pragma once
#include <ktune/generator/space.hpp>
#include <ktune/runtime/launch.hpp>
#include <transpose/transpose_family.hpp>

namespace ktune {

// ktune_transpose(T* dst, const T* src, int rows, int cols, long long ld_dst, long long ld_src)
using TransposeParams = KernelParams<DevicePtr, DevicePtr, int, int, long long, long long>;

// Binds TransposeArgs to the kernel's parameter list and launches one instance.
void launch_transpose(CUfunction f, const Instance& inst, const TransposeArgs& args, CUstream stream);

}  // namespace ktune
