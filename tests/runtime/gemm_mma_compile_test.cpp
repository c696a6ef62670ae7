// Compiles the tensor-core GEMM (gemm_mma) with NVRTC for sm_90: needs no GPU. By
// default a pairwise covering sample of four half spaces that take each dtype and each
// operand orientation (k- or m/n-contiguous tiles, ldmatrix with and without .trans)
// twice, and two TF32 spaces (nn: 32-bit fragment loads of B; nt: the wgmma one);
// KTUNE_COMPILE_SWEEP=1 compiles every config of all twelve.
#include <ktune/generator/gemm_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

// Dense pitches, and pitches one element longer (16-byte copies from packed operands:
// the same kernels, a different problem).
CompileSpace mma_space(DType dtype, const char* layout) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  CompileSpace space{"gemm_mma " + std::string(to_string(dtype)) + " " + layout, &spec, spec.source(), {}, {}};
  for (std::int64_t extra : {0, 1}) {
    GemmArgs a{dtype, 4096, 4096, 4096};
    a.math = GemmMath::tf32;  // f32 on tensor cores; halves take them anyway
    EXPECT_TRUE(set_gemm_layout(a, layout));
    a = gemm_dense_pitches(a);
    a.lda += extra, a.ldb += extra;
    a = gemm_probe_args(a);
    EXPECT_EQ(&gemm_spec(a), &spec);
    space.problems.push_back(gemm_problem(a));
    space.type_argument = gemm_type_argument(a);
  }
  return space;
}

TEST(GemmMmaCompile, SpacesCompileForSm90) {
  std::vector<std::pair<DType, const char*>> spaces{
      {DType::bf16, "nn"}, {DType::bf16, "tt"}, {DType::f16, "nt"}, {DType::f16, "tn"}, {DType::f32, "nn"},
      {DType::f32, "nt"}};
  if (compile_sweep()) {
    spaces.clear();
    for (DType dtype : {DType::bf16, DType::f16, DType::f32})
      for (const char* layout : {"nn", "nt", "tn", "tt"}) spaces.emplace_back(dtype, layout);
  }
  for (const auto& [dtype, layout] : spaces) EXPECT_GE(expect_space_compiles(mma_space(dtype, layout)), 10u);
}

}  // namespace
}  // namespace ktune
