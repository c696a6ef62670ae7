// Compiles the scan family with NVRTC for sm_90 (and a sample for every other
// architecture): needs no GPU. A pairwise covering sample of its (op, dtype, exclusive)
// spaces together; KTUNE_COMPILE_SWEEP=1 compiles every config (the sweep label).
#include <ktune/scan.hpp>
#include <scan/scan_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

class ScanCompile : public ::testing::TestWithParam<Lines> {};

TEST_P(ScanCompile, EveryOpAndDtypeCompilesForEveryArchitecture) {
  const KernelSpec& spec = array_spec(scan_family(), GetParam());
  std::vector<CompileSpace> spaces;
  for (DType d : {DType::f32, DType::f64, DType::i32, DType::i64, DType::f16, DType::bf16})
    for (ScanOp op : {ScanOp::sum, ScanOp::max, ScanOp::min}) {
      const std::int64_t align = std::min<std::int64_t>(4, 16 / size_of(d));
      const Problem p = GetParam() == Lines::whole ? Problem{d, {{"n", 1000003}, {"align", align}}}
                                                      : Problem{d, {{"rows", 999}, {"cols", 5001}, {"align", align}}};
      const std::string dtype(to_string(d)), name(to_string(op));
      spaces.push_back({spec.family() + " " + name + " " + dtype, &spec, spec.source(), {p}, scan_family().type_argument({Lines::whole, static_cast<int>(op), d}),
                        {name, dtype}});
    }
  EXPECT_GE(expect_spaces_compile(spec.family(), spaces), 18u);
  expect_template_compiles_on_archs(spec.family(), spaces);
}

INSTANTIATE_TEST_SUITE_P(Kinds, ScanCompile, ::testing::Values(Lines::whole, Lines::rows));

}  // namespace
}  // namespace ktune
