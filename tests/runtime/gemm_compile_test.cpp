// Compiles the GEMM family with NVRTC for sm_90: needs no GPU, runs in CI.
#include <ktune/generator/gemm_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

std::pair<std::size_t, std::vector<std::string>> compile_space(DType dtype, std::int64_t align, std::size_t stride) {
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  const Problem p{dtype, {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"align", align}}};
  const auto configs = enumerate(spec, DeviceLimits{}, p);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < configs.size(); i += stride)
    names.push_back(instantiate(spec, configs[i], DeviceLimits{}, p, gemm_type_argument(dtype)).name_expression);
  return compile_all(spec.source(), names, "gemm");
}

TEST(GemmCompile, EveryF32ConfigCompilesForSm90) {
  const auto [n, f] = compile_space(DType::f32, 4, 1);
  EXPECT_TRUE(f.empty()) << f.size() << " failed, first: " << f.front();
  EXPECT_GE(n, 900u);
}

TEST(GemmCompile, F64AndUnalignedSample) {
  const auto [n, f] = compile_space(DType::f64, 1, 17);
  EXPECT_TRUE(f.empty()) << f.front();
  EXPECT_GE(n, 20u);
}

}  // namespace
}  // namespace ktune
