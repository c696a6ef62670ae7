#pragma once
#include <elementwise/elementwise_family.hpp>
#include <ktune/runtime/driver.hpp>

namespace ktune {

// Binds the arguments to the kernel's `ktune_ew_args` parameter and launches.
void launch_elementwise(CUfunction f, const Instance& inst, const ElementwiseArgs& args, CUstream stream);

}  // namespace ktune
