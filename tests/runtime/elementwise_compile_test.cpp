// Compiles elementwise configs with NVRTC for sm_90: needs no GPU, runs in CI.
#include <ktune/generator/elementwise_family.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/compile_pool.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

const KernelSpec& spec() { return KernelSpec::builtin("elementwise"); }

// Compiles every stride-th valid config of `op` at n and align; returns (compiled, failures).
std::pair<std::size_t, std::vector<std::string>> compile_space(const ElementwiseOp& op, std::int64_t n, std::int64_t align,
                                                               std::size_t stride) {
  const Problem p = elementwise_problem(op, n, align);
  const auto configs = enumerate(spec(), DeviceLimits{}, p);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < configs.size(); i += stride)
    names.push_back(instantiate(spec(), configs[i], DeviceLimits{}, p, k_elementwise_op_type).name_expression);
  return compile_all(spec().source() + elementwise_op_source(op), names, "elementwise");
}

TEST(ElementwiseCompile, EveryF32ConfigCompilesForSm90) {
  const auto [n, failures] = compile_space(make_elementwise_op("out = a * b + c", DType::f32, DType::f32),
                                           std::int64_t{1} << 28, 4, 1);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures.front();
  EXPECT_GE(n, 200u);
}

TEST(ElementwiseCompile, EveryDtypeCastScalarAndFunctionCompiles) {
  struct Case {
    const char* expr;
    DType in, out;
    std::vector<std::string> scalars;
  };
  const Case cases[] = {
      {"add", DType::f16, DType::f16, {}},
      {"add", DType::bf16, DType::bf16, {}},
      {"add", DType::f64, DType::f64, {}},
      {"axpy", DType::f32, DType::f32, {}},
      {"cast", DType::f32, DType::f16, {}},
      {"cast", DType::f16, DType::f32, {}},
      {"cast", DType::f64, DType::bf16, {}},
      {"out = a > 0 && b < 1 ? sigmoid(a) * erf(b) : pow(abs(a), 0.5) - min(exp(a), log(b)); o2 = fma(a, b, rsqrt(tanh(a) + sin(b) * cos(a)) + floor(a) + ceil(b) + sqrt(b) / -a)",
       DType::f16, DType::f16, {}},
      {"out = k * max(a, 0)", DType::f64, DType::f64, {"k"}},
  };
  for (const auto& c : cases) {
    const auto op = make_elementwise_op(c.expr, c.in, c.out, c.scalars);
    const auto [n, failures] = compile_space(op, 1000003, 16 / std::max(size_of(c.in), size_of(c.out)), 7);
    EXPECT_TRUE(failures.empty()) << c.expr << ": " << failures.size() << " failed, first: " << failures.front();
    EXPECT_GE(n, 10u) << c.expr;
  }
}

TEST(ElementwiseCompile, VerificationKernelForEveryOutputType) {
  // The tuner's tolerance check is instantiated through the generated type's out_t.
  for (DType out : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
    const auto op = make_elementwise_op("cast", DType::f32, out);
    const CompileOutput c = compile_cubin(spec().source() + elementwise_op_source(op),
                                          {"ktune_elementwise_check<ktune_op::out_t>"}, 90, "check");
    EXPECT_FALSE(c.cubin.empty()) << to_string(out);
    ASSERT_EQ(c.lowered_names.size(), 1u);
    EXPECT_NE(c.lowered_names[0].find("ktune_elementwise_check"), std::string::npos) << c.lowered_names[0];
  }
}

}  // namespace
}  // namespace ktune
