// Compiles the GEMM family with NVRTC for sm_90 (and a sample for every other
// architecture): needs no GPU. By default one pairwise covering sample of every dtype and
// layout together (the cpu label, CI); KTUNE_COMPILE_SWEEP=1 compiles every config (the
// sweep label, scripts/gpu-check.sh).
#include <gemm/gemm_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

// A (dtype, layout) space: dense pitches (widest loads, split-K) and pitches one, two and
// four elements longer, which allow only narrower vectors.
CompileSpace gemm_space(DType dtype, const char* layout) {
  CompileSpace space{"gemm " + std::string(to_string(dtype)) + " " + layout, &KernelSpec::builtin("gemm"),
                     KernelSpec::builtin("gemm").source(), {}, {}, {layout}};
  for (std::int64_t extra : {0, 1, 2, 4}) {
    GemmArgs a{dtype, 2048, 2048, 2048};
    EXPECT_TRUE(set_gemm_layout(a, layout));
    a = gemm_dense_pitches(a);
    a.lda += extra, a.ldb += extra;
    a = gemm_probe_args(a);
    space.problems.push_back(gemm_problem(a));
    space.type_argument = gemm_type_argument(a);
  }
  return space;
}

// Every dtype and layout in one pairwise covering sample (each pair of values, the
// dtype and layout among them, at least once), for sm_90 and the other architectures.
TEST(GemmCompile, EveryDtypeAndLayoutCompilesForEveryArchitecture) {
  std::vector<CompileSpace> spaces;
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::f64})
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      spaces.push_back(gemm_space(dtype, layout));
      spaces.back().tags.emplace_back(to_string(dtype));
    }
  EXPECT_GE(expect_spaces_compile("gemm", spaces), 20u);
  expect_template_compiles_on_archs("gemm", spaces);
}

}  // namespace
}  // namespace ktune
