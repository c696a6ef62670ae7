// Compiles the spmv family with NVRTC for sm_90 (and a sample for every other
// architecture): needs no GPU. A pairwise covering sample of its dtypes' spaces together;
// KTUNE_COMPILE_SWEEP=1 compiles every config.
#include <spmv/spmv_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

TEST(SpmvCompile, EveryDtypeCompilesForEveryArchitecture) {
  const KernelSpec& spec = spmv_spec();
  std::vector<CompileSpace> spaces;
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    const SparseShape s{100003, 90001, 1700000, 40000, 4};
    const TuningProblem p = spmv_tuning_problem(s, d);
    const std::string dtype(to_string(d));
    spaces.push_back({"spmv " + dtype, &spec, spec.source(), {p.problem}, p.type_argument, {dtype}});
  }
  EXPECT_GE(expect_spaces_compile("spmv", spaces), 4u);
  expect_template_compiles_on_archs("spmv", spaces);
}

}  // namespace
}  // namespace ktune
