// Compiles the compact family with NVRTC for sm_90 (and a sample for every other
// architecture): needs no GPU. A pairwise covering sample of its dtypes' spaces;
// KTUNE_COMPILE_SWEEP=1 compiles every config.
#include <compact/compact_family.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

TEST(CompactCompile, EveryDtypeCompilesForEveryArchitecture) {
  const KernelSpec& spec = compact_spec();
  std::vector<CompileSpace> spaces;
  for (DType d : {DType::f32, DType::f64, DType::i32, DType::i64, DType::f16, DType::bf16, DType::u8}) {
    const std::string dtype(to_string(d));
    spaces.push_back({"compact " + dtype, &spec, spec.source(), {Problem{d, {{"n", 1000003}}}}, compact_type_argument(d),
                      {dtype}});
  }
  EXPECT_GE(expect_spaces_compile("compact", spaces), 7u);
  expect_template_compiles_on_archs("compact", spaces);
}

// A predicate's source: the template with ktune_keep_if specialized after it.
TEST(CompactCompile, PredicatesCompileForSm90) {
  const KernelSpec& spec = compact_spec();
  for (DType d : {DType::f32, DType::i32, DType::f16, DType::f64}) {
    CompactArgs a{d, 1000003, CompactMode::predicate, 0, 0, 0, 0, 0, "keep = x > 0 && x < 3 || x == -7"};
    const TuningProblem p = compact_tuning_problem(compact_probe_args(a));
    const std::string dtype(to_string(d));
    EXPECT_GE(expect_space_compiles({"compact predicate " + dtype, &spec, p.source, {p.problem}, p.type_argument, {dtype}}),
              1u);
  }
}

// Every function of the expression language in a predicate (they compiled nowhere but
// in the elementwise family before), for a float and an integer element.
TEST(CompactCompile, EveryFunctionOfThePredicateLanguageCompiles) {
  const KernelSpec& spec = compact_spec();
  const std::string predicate =
      "keep = abs(x) + min(x, 1) + max(x, 2) + exp(x) + log(x) + sqrt(x) + rsqrt(x) + tanh(x) + sin(x) + cos(x) + "
      "erf(x) + floor(x) + ceil(x) + pow(x, 2) + fma(x, x, 1) + sigmoid(x) > 3";
  std::vector<CompileSpace> spaces;  // float and double overloads; sampled together (CI's time)
  for (DType d : {DType::f32, DType::i64}) {
    CompactArgs a{d, 1000003, CompactMode::predicate, 0, 0, 0, 0, 0, predicate};
    const TuningProblem p = compact_tuning_problem(compact_probe_args(a));
    const std::string dtype(to_string(d));
    spaces.push_back({"compact predicate functions " + dtype, &spec, p.source, {p.problem}, p.type_argument, {dtype}});
  }
  EXPECT_GE(expect_spaces_compile("compact predicate functions", spaces), 2u);
}

}  // namespace
}  // namespace ktune
