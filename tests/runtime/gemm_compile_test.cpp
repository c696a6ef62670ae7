// Compiles the GEMM family with NVRTC for sm_90: needs no GPU, runs in CI.
#include <ktune/generator/gemm_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

// Every `stride`-th config of the space of an m x n x k problem (pitches = stored row
// lengths, cuMemAlloc'd pointers).
std::pair<std::size_t, std::vector<std::string>> compile_space(DType dtype, const char* layout, std::int64_t m,
                                                               std::int64_t n, std::int64_t k, std::size_t stride,
                                                               std::size_t offset = 0) {
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  GemmArgs a{dtype, m, n, k};
  EXPECT_TRUE(set_gemm_layout(a, layout));
  a = gemm_probe_args(gemm_dense_pitches(a));
  const Problem p = gemm_problem(a);
  const auto configs = enumerate(spec, DeviceLimits{}, p);
  std::vector<std::string> names;
  for (std::size_t i = offset; i < configs.size(); i += stride)
    names.push_back(instantiate(spec, configs[i], DeviceLimits{}, p, gemm_type_argument(a)).name_expression);
  return compile_all(spec.source(), names, "gemm");
}

// The f32 nn space of a square problem: what `ktune tune gemm` searches at 4096^3.
TEST(GemmCompile, EveryF32ConfigCompilesForSm90) {
  const auto [n, f] = compile_space(DType::f32, "nn", 4096, 4096, 4096, 1);
  EXPECT_TRUE(f.empty()) << f.size() << " failed, first: " << f.front();
  EXPECT_GE(n, 3000u);
}

// Split-K, transposed operands, halves and doubles, odd pitches: a sample of each, at
// different offsets so that different configs are drawn.
TEST(GemmCompile, OtherLayoutsDtypesAndSplitKSample) {
  struct Case {
    DType dtype;
    const char* layout;
    std::int64_t m, n, k;
  };
  std::size_t offset = 0;
  for (const Case& c : {Case{DType::f32, "nn", 2048, 64, 8192}, Case{DType::f32, "nt", 1024, 1024, 1024},
                        Case{DType::f32, "tn", 1024, 1024, 1024}, Case{DType::f32, "tt", 1023, 1025, 1027},
                        Case{DType::f16, "nn", 1024, 1024, 1024}, Case{DType::bf16, "tn", 1024, 1024, 1024},
                        Case{DType::f64, "nt", 1023, 1025, 1027}}) {
    const auto [n, f] = compile_space(c.dtype, c.layout, c.m, c.n, c.k, 61, offset++ * 7);
    EXPECT_TRUE(f.empty()) << to_string(c.dtype) << " " << c.layout << ": " << f.size() << " failed, first: " << f.front();
    EXPECT_GE(n, 20u) << to_string(c.dtype) << " " << c.layout;
  }
}

}  // namespace
}  // namespace ktune
