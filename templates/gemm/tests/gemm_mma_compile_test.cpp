// Compiles the tensor-core GEMM (gemm_mma) with NVRTC for sm_90 (and a sample for every
// other architecture): needs no GPU. By default one pairwise covering sample of these
// spaces together: four half spaces that take each dtype and each operand
// orientation (k- or m/n-contiguous tiles, ldmatrix with and without .trans) twice, two
// TF32 spaces (nn: 32-bit fragment loads of B; nt: the wgmma one) and one with f32 output
// (bf16 tn); KTUNE_COMPILE_SWEEP=1 compiles every config of all 20.
#include <ktune/generator/dtype.hpp>
#include <gemm/gemm_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

// Dense pitches, and pitches one element longer (16-byte copies from packed operands:
// the same kernels, a different problem).
CompileSpace mma_space(DType dtype, const char* layout, DType out) {
  const KernelSpec& spec = KernelSpec::builtin("gemm_mma");
  CompileSpace space{"gemm_mma " + dtype_key(dtype, out) + " " + layout, &spec, spec.source(), {}, {},
                     // each operand's orientation apart: it decides how its tiles are loaded
                     {std::string(to_string(out)), {layout[0]}, {layout[1]}}};
  for (std::int64_t extra : {0, 1}) {
    GemmArgs a{dtype, 4096, 4096, 4096};
    a.math = GemmMath::tf32;  // f32 on tensor cores; halves take them anyway
    if (out != dtype) a.out = out;
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

TEST(GemmMmaCompile, SpacesCompileForEveryArchitecture) {
  struct Space {
    DType dtype;
    const char* layout;
    DType out;
  };
  std::vector<Space> spaces{{DType::bf16, "nn", DType::bf16}, {DType::bf16, "tt", DType::bf16},
                            {DType::f16, "nt", DType::f16},   {DType::f16, "tn", DType::f16},
                            {DType::f32, "nn", DType::f32},   {DType::f32, "nt", DType::f32},
                            {DType::bf16, "tn", DType::f32}};
  if (compile_sweep()) {
    spaces.clear();
    for (DType dtype : {DType::bf16, DType::f16, DType::f32})
      for (const char* layout : {"nn", "nt", "tn", "tt"}) spaces.push_back({dtype, layout, dtype});
    for (DType dtype : {DType::bf16, DType::f16})
      for (const char* layout : {"nn", "nt", "tn", "tt"}) spaces.push_back({dtype, layout, DType::f32});
  }
  // One pairwise covering sample of all of them together (each pair of values, the
  // input type and the layout's orientations among them, at least once), for sm_90 and
  // the other architectures.
  std::vector<CompileSpace> all;
  for (const auto& [dtype, layout, out] : spaces) {
    all.push_back(mma_space(dtype, layout, out));
    all.back().tags.emplace_back(to_string(dtype));
  }
  EXPECT_GE(expect_spaces_compile("gemm_mma", all), 20u);
  expect_template_compiles_on_archs("gemm_mma", all);
}

}  // namespace
}  // namespace ktune
