// Compiles the reduction families with NVRTC for sm_90 (and a sample for every other
// architecture): needs no GPU. By default, per family, a pairwise covering sample of its
// (op, dtype) spaces together; KTUNE_COMPILE_SWEEP=1 compiles every config of each (the
// sweep label).
#include <ktune/reduce.hpp>
#include <reduce/reduce_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

class ReduceCompile : public ::testing::TestWithParam<const char*> {};

TEST_P(ReduceCompile, EveryOpAndDtypeCompilesForEveryArchitecture) {
  const KernelSpec& spec = KernelSpec::builtin(GetParam());
  std::vector<CompileSpace> spaces;
  for (DType d : {DType::f32, DType::f16, DType::bf16, DType::f64})
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::max, ReduceOp::min, ReduceOp::mean}) {
      const std::int64_t align = 16 / size_of(d);
      const Problem p = spec.family() == "reduce" ? Problem{d, {{"n", 1000003}, {"align", align}}}
                                                  : Problem{d, {{"rows", 4097}, {"cols", 999}, {"align", align}}};
      const std::string dtype(to_string(d)), name(to_string(op));
      spaces.push_back({spec.family() + " " + name + " " + dtype, &spec, spec.source(), {p}, reduce_family().type_argument({Lines::whole, static_cast<int>(op), d}),
                        {name, dtype}});
    }
  EXPECT_GE(expect_spaces_compile(spec.family(), spaces), 16u);
  expect_template_compiles_on_archs(spec.family(), spaces);
}

INSTANTIATE_TEST_SUITE_P(Families, ReduceCompile, ::testing::Values("reduce", "reduce_rows", "reduce_cols"));

}  // namespace
}  // namespace ktune
