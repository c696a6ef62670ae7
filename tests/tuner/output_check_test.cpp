// The device-side output check compiles for the GPUs ktune targets (no GPU needed).
#include "measure/output_check.hpp"

#include <ktune/runtime/nvrtc_compiler.hpp>

#include <gtest/gtest.h>

namespace ktune {
namespace {

TEST(OutputCheck, KernelsCompileWithoutHeaders) {
  for (int arch : {80, 90}) {
    const CompileOutput out = compile_cubin(output_check_source(), output_check_kernels(), arch, "output check");
    EXPECT_EQ(out.lowered_names.size(), output_check_kernels().size()) << arch;
    EXPECT_FALSE(out.cubin.empty());
  }
}

}  // namespace
}  // namespace ktune
