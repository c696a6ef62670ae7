#include <elementwise/elementwise_family.hpp>
#include <ktune/error.hpp>
#include <ktune/generator/kernel_spec.hpp>

#include <gtest/gtest.h>

#include "launch_params.hpp"

#include "test_support.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <elementwise/elementwise_launch.hpp>

namespace ktune {
namespace {

const KernelSpec& spec() { return KernelSpec::builtin("elementwise"); }

ElementwiseArgs args(std::int64_t n, const std::vector<std::uintptr_t>& in, const std::vector<std::uintptr_t>& out,
                     std::size_t scalars = 0) {
  ElementwiseArgs a;
  a.n = n;
  for (auto p : in) a.inputs.push_back(p);
  for (auto p : out) a.outputs.push_back(p);
  for (std::size_t k = 0; k < scalars; ++k) a.scalars.push_back(1.0);
  return a;
}

TEST(ElementwiseFamily, SpaceCoversEveryDesignAndVectorWidth) {
  const auto op = make_elementwise_op("add", DType::f32, DType::f32);
  const auto space = enumerate(spec(), DeviceLimits{}, elementwise_problem(op, std::int64_t{1} << 28, 4));
  EXPECT_GE(space.size(), 200u);
  std::set<std::int64_t> vecs;
  bool grid_stride = false, one_per_thread = false;
  for (const auto& c : space) {
    vecs.insert(std::get<std::int64_t>(c[spec().tunable_index("vec")]));
    (std::get<std::int64_t>(c[spec().tunable_index("grid_stride")]) ? grid_stride : one_per_thread) = true;
  }
  EXPECT_EQ(vecs, (std::set<std::int64_t>{1, 2, 4}));  // 16 bytes of f32
  EXPECT_TRUE(grid_stride && one_per_thread);
  const auto f16 = make_elementwise_op("add", DType::f16, DType::f16);
  std::set<std::int64_t> vecs16;
  for (const auto& c : enumerate(spec(), DeviceLimits{}, elementwise_problem(f16, 1000, 8)))
    vecs16.insert(std::get<std::int64_t>(c[spec().tunable_index("vec")]));
  EXPECT_EQ(vecs16, (std::set<std::int64_t>{1, 2, 4, 8}));
}

TEST(ElementwiseFamily, AlignmentClassFromEveryPointer) {
  const auto op = make_elementwise_op("add", DType::f32, DType::f32);
  EXPECT_EQ(elementwise_alignment(op, args(1, {0x1000, 0x2000}, {0x3000})), 4);
  EXPECT_EQ(elementwise_alignment(op, args(1, {0x1000, 0x2008}, {0x3000})), 2);
  EXPECT_EQ(elementwise_alignment(op, args(1, {0x1000, 0x2000}, {0x3004})), 1);
  const auto cast = make_elementwise_op("cast", DType::f16, DType::f32);
  EXPECT_EQ(elementwise_alignment(cast, args(1, {0x1000}, {0x2000})), 4);  // limited by the 4-byte output
  EXPECT_EQ(elementwise_alignment(cast, args(1, {0x1008}, {0x2000})), 4);
  EXPECT_EQ(elementwise_alignment(cast, args(1, {0x1002}, {0x2000})), 1);
  // A misaligned pointer leaves only vec = 1 configs, never none.
  const auto problem = elementwise_problem(op, 1001, 1);
  for (const auto& c : enumerate(spec(), DeviceLimits{}, problem))
    EXPECT_EQ(std::get<std::int64_t>(c[spec().tunable_index("vec")]), 1);
  EXPECT_FALSE(why_invalid(spec(), declared_default(spec()), DeviceLimits{}, problem));
}

TEST(ElementwiseFamily, BadArgumentsAreRefusedBeforeLaunch) {
  const auto op = make_elementwise_op("out = a * b + c", DType::f32, DType::f32);
  const std::uintptr_t a = 0x10000, b = 0x20000, c = 0x30000, o = 0x40000;
  const auto check = [&](std::int64_t n, std::vector<std::uintptr_t> in, std::vector<std::uintptr_t> out) {
    return error_of([&] { validate_elementwise(op, args(n, in, out)); });
  };
  EXPECT_EQ(check(100, {a, b, c}, {o}), "");
  EXPECT_NE(check(0, {a, b, c}, {o}).find("n must be positive"), std::string::npos);
  EXPECT_NE(check(-5, {a, b, c}, {o}).find("n must be positive"), std::string::npos);
  EXPECT_NE(check(std::int64_t{1} << 41, {a, b, c}, {o}).find("above 2^40"), std::string::npos);
  EXPECT_NE(check(100, {a, b}, {o}).find("expects 3 input pointer(s), got 2"), std::string::npos);
  EXPECT_NE(check(100, {a, b, c}, {}).find("expects 1 output pointer(s), got 0"), std::string::npos);
  EXPECT_NE(check(100, {a, 0, c}, {o}).find("null input pointer"), std::string::npos);
  EXPECT_NE(check(100, {a, b, c}, {0}).find("null output pointer"), std::string::npos);
  EXPECT_NE(check(100, {a + 2, b, c}, {o}).find("input pointer not aligned"), std::string::npos);
  EXPECT_EQ(check(100, {a, b, c}, {c}), "");                     // in place
  EXPECT_NE(check(100, {a, b, c}, {c + 4}).find("partially overlaps"), std::string::npos);
  EXPECT_NE(check(100, {a, b, c}, {a - 8}).find("partially overlaps"), std::string::npos);
  EXPECT_EQ(check(100, {a, b, c}, {a + 400}), "");               // just past a's end
  EXPECT_NE(error_of([&] { validate_elementwise(op, args(100, {a, b, c}, {o}, 1)); }).find("expects 0 scalar(s), got 1"),
            std::string::npos);
  const auto two = make_elementwise_op("s = a + b; d = a - b", DType::f32, DType::f32);
  EXPECT_NE(error_of([&] { validate_elementwise(two, args(100, {a, b}, {o, o + 8})); }).find("two outputs overlap"),
            std::string::npos);
  // In place across dtypes is not elementwise-safe (element i covers other bytes).
  const auto cast = make_elementwise_op("cast", DType::f16, DType::f32);
  EXPECT_NE(error_of([&] { validate_elementwise(cast, args(100, {a}, {a})); }).find("partially overlaps"), std::string::npos);
  EXPECT_NE(error_of([] { make_elementwise_op("add", DType::u8, DType::u8); }).find("dtype u8 is not supported"),
            std::string::npos);
}

TEST(ElementwiseFamily, OperationSourceAndKeys) {
  const auto op = make_elementwise_op("y = alpha * x + y", DType::f16, DType::f16, {"alpha"});
  const std::string src = elementwise_op_source(op);
  EXPECT_NE(src.find("using in_t = ktune_half;"), std::string::npos);
  EXPECT_NE(src.find("using compute_t = float;"), std::string::npos);
  EXPECT_NE(src.find("inputs = 2, outputs = 1, scalars = 1"), std::string::npos);
  EXPECT_EQ(elementwise_tuning_problem(op, 1024, 8).variant, "o0=((s0*i0)+i1)");
  EXPECT_EQ(elementwise_dtype_key(op), "f16");
  EXPECT_EQ(elementwise_dtype_key(make_elementwise_op("cast", DType::f32, DType::bf16)), "f32>bf16");
  EXPECT_NE(elementwise_op_source(make_elementwise_op("cast", DType::f32, DType::f64)).find("compute_t = double"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(elementwise_bytes(make_elementwise_op("add", DType::f32, DType::f32), 1 << 20), 12.0 * (1 << 20));
}

TEST(ElementwiseFamily, HostConversionsRoundTrip) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-100, 100);
  for (DType d : {DType::f16, DType::bf16, DType::f32, DType::f64}) {
    unsigned char buf[8];
    for (int i = 0; i < 10000; ++i) {
      const double v = u(rng);
      double_to_element(d, v, buf);
      const double back = element_to_double(d, buf);
      const double ulp = d == DType::f16 ? std::ldexp(1, -11) : d == DType::bf16 ? std::ldexp(1, -8)
                         : d == DType::f32 ? std::ldexp(1, -24) : std::ldexp(1, -53);
      ASSERT_LE(std::fabs(back - v), std::fabs(v) * ulp * 1.0001) << to_string(d) << " " << v;
    }
  }
  unsigned char h[2] = {0x00, 0x3C};  // f16 1.0
  EXPECT_EQ(element_to_double(DType::f16, h), 1.0);
  h[1] = 0xC0;  // -2.0
  EXPECT_EQ(element_to_double(DType::f16, h), -2.0);
}

TEST(ElementwiseFamily, ReferenceOnStoredInputs) {
  const auto op = make_elementwise_op("y = alpha * x + y", DType::f32, DType::f32, {"alpha"});
  std::vector<float> x{1, 2, 3}, y{10, 20, 30};
  const auto ref = elementwise_reference(op, {x.data(), y.data()}, {0.5}, 3);
  ASSERT_EQ(ref.size(), 1u);
  EXPECT_EQ(ref[0], (std::vector<double>{10.5, 21, 31.5}));
  // Large n runs threaded and agrees with the serial loop.
  const auto add = make_elementwise_op("add", DType::f64, DType::f64);
  std::vector<double> a(3 << 20), b(3 << 20);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i), b[i] = 0.25;
  const auto big = elementwise_reference(add, {a.data(), b.data()}, {}, static_cast<std::int64_t>(a.size()));
  for (std::size_t i = 0; i < a.size(); i += 9973) ASSERT_EQ(big[0][i], static_cast<double>(i) + 0.25);
}

TEST(ElementwiseFamily, TemplateParametersMatchTunables) {
  EXPECT_EQ(spec().type_kind(), "operation");
  const auto op = make_elementwise_op("add", DType::f32, DType::f32);
  const auto problem = elementwise_problem(op, 4097, 4);
  const Config c = declared_default(spec());
  EXPECT_NE(error_of([&] { instantiate(spec(), c, DeviceLimits{}, problem); }).find("a type named by the caller"),
            std::string::npos);
  const Instance inst = instantiate(spec(), c, DeviceLimits{}, problem, k_elementwise_op_type);
  EXPECT_EQ(inst.name_expression, "ktune_elementwise<ktune_op, 1, 4, 256, 0, 1>");
  EXPECT_EQ(inst.grid[0], 5u);  // ceil(4097 / 1024)
}

// The launches' parameter lists are the kernels'.
TEST(ElementwiseLaunch, ParamsMatchTheKernels) {
  const std::string& source = KernelSpec::builtin("elementwise").source();
  EXPECT_TRUE(params_match(source, "ktune_elementwise", ElementwiseParams::kinds()));
  EXPECT_TRUE(params_match(source, "ktune_elementwise_check", ElementwiseCheckParams::kinds()));
}

}  // namespace
}  // namespace ktune
