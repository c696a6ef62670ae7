#pragma once
#include <elementwise/elementwise_family.hpp>
#include <ktune/runtime/launch.hpp>

#include <cstdint>

namespace ktune {

// The kernel's one parameter, `struct ktune_ew_args` of elementwise.cuh, byte for byte.
struct ElementwiseKernelArgs {
  std::uint64_t in[6];
  std::uint64_t out[2];
  double scalar[6];
  long long n;
};
static_assert(sizeof(ElementwiseKernelArgs) == 120, "ktune_ew_args layout");
// ktune_elementwise(const ktune_ew_args a)
using ElementwiseParams = KernelParams<ElementwiseKernelArgs>;
// ktune_elementwise_check(const Out* got, const double* ref, long long n, double tol, unsigned long long* bad)
using ElementwiseCheckParams = KernelParams<DevicePtr, DevicePtr, long long, double, DevicePtr>;

// Binds the arguments to the kernel's `ktune_ew_args` parameter and launches.
void launch_elementwise(CUfunction f, const Instance& inst, const ElementwiseArgs& args, CUstream stream);

}  // namespace ktune
