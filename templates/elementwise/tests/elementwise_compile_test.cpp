// Compiles elementwise configs with NVRTC for sm_90 (and a sample for every other
// architecture): needs no GPU. By default a covering sample of each expression's space;
// KTUNE_COMPILE_SWEEP=1 compiles every config (the sweep label).
#include <elementwise/elementwise_family.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace ktune {
namespace {

const KernelSpec& spec() { return KernelSpec::builtin("elementwise"); }

TEST(ElementwiseCompile, EveryDtypeCastScalarAndFunctionCompiles) {
  struct Case {
    const char* expr;
    DType in, out;
    std::vector<std::string> scalars;
  };
  const Case cases[] = {
      {"out = a * b + c", DType::f32, DType::f32, {}},
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
  std::vector<CompileSpace> spaces;
  for (const auto& c : cases) {
    const auto op = make_elementwise_op(c.expr, c.in, c.out, c.scalars);
    const std::int64_t align = 16 / std::max(size_of(c.in), size_of(c.out));
    const std::string label = "elementwise " + std::string(to_string(c.in)) + "->" + std::string(to_string(c.out)) + " " + c.expr;
    const CompileSpace space{label, &spec(), spec().source() + elementwise_op_source(op),
                             {elementwise_problem(op, 1000003, align)}, k_elementwise_op_type};
    EXPECT_GE(expect_space_compiles(space), 4u) << c.expr;
    spaces.push_back(space);
  }
  expect_template_compiles_on_archs("elementwise", spaces);
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
