#pragma once
#include <ktune/generator/space.hpp>
#include <transpose/transpose_family.hpp>
#include <ktune/runtime/driver.hpp>

namespace ktune {

// Binds TransposeArgs to the kernel's parameter list and launches one instance.
void launch_transpose(CUfunction f, const Instance& inst, const TransposeArgs& args, CUstream stream);

}  // namespace ktune
