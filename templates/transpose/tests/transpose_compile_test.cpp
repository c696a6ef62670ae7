// Compiles the transpose family with NVRTC for sm_90 (and a sample for every other
// architecture): needs no GPU. By default one pairwise covering sample of the four element
// sizes' spaces together; KTUNE_COMPILE_SWEEP=1 compiles every config (the sweep label).
#include <transpose/transpose_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

// Kernels move bits, so one dtype per element size is the whole family. Aligned
// pointers and pitches admit every vector width; odd pitches (align 1) admit the
// realigned configs; a degenerate n x 1 shape admits the copies.
TEST(TransposeCompile, EveryElementSizeCompilesForEveryArchitecture) {
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  std::vector<CompileSpace> spaces;
  for (DType d : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    const std::int64_t widest = 16 / size_of(d);
    const std::vector<Problem> problems{{d, {{"rows", 8192}, {"cols", 2048}, {"align", widest}, {"copy_align", 0}}},
                                        {d, {{"rows", 8191}, {"cols", 4097}, {"align", 1}, {"copy_align", 0}}},
                                        {d, {{"rows", 1000003}, {"cols", 1}, {"align", 1}, {"copy_align", widest}}}};
    const std::string label = "transpose " + std::string(to_string(d));
    spaces.push_back({label, &spec, spec.source(), problems, {}, {std::string(to_string(d))}});
  }
  // One pairwise covering sample of the four element sizes together (each pair of values,
  // the element size among them, at least once), for sm_90 and the other architectures.
  EXPECT_GE(expect_spaces_compile("transpose", spaces), 40u);
  expect_template_compiles_on_archs("transpose", spaces);
}

}  // namespace
}  // namespace ktune
