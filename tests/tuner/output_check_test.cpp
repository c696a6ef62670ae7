// The device-side output check and the FMA ceiling compile for the GPUs ktune targets
// (no GPU needed).
#include <ktune/tuner/output_check.hpp>

#include <ktune/tuner/fma_ceiling.hpp>

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

TEST(FmaCeiling, KernelsCompileForEveryArithmetic) {
  std::vector<std::string> names;
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16}) names.push_back(FmaCeiling::kernel_name(d));
  const CompileOutput out = compile_cubin(FmaCeiling::source(), names, 90, "fma ceiling");
  EXPECT_EQ(out.lowered_names.size(), 4u);
}

}  // namespace
}  // namespace ktune
