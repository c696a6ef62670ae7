#include <ktune/generator/gemm_family.hpp>
#include <ktune/generator/kernel_spec.hpp>

#include <gtest/gtest.h>

#include <set>

#include "test_support.hpp"

namespace ktune {
namespace {

GemmArgs args(std::int64_t m, std::int64_t n, std::int64_t k) {
  return {DType::f32, m, n, k, k, n, n, 0x100000, 0x200000000, 0x400000000, 1, 0};
}

TEST(GemmFamily, BadArgumentsAreRefused) {
  EXPECT_EQ(error_of([] { validate(args(64, 64, 64)); }), "");
  EXPECT_NE(error_of([] { validate(args(0, 4, 4)); }).find("sizes must be positive"), std::string::npos);
  EXPECT_NE(error_of([] { validate(args(std::int64_t{1} << 31, 4, 4)); }).find("below 2^31"), std::string::npos);
  GemmArgs a = args(8, 8, 8);
  a.lda = 7;
  EXPECT_NE(error_of([&] { validate(a); }).find("lda 7 is smaller than k"), std::string::npos);
  a = args(8, 8, 8);
  a.b = 0;
  EXPECT_NE(error_of([&] { validate(a); }).find("null pointer"), std::string::npos);
  a = args(8, 8, 8);
  a.c = a.a + 16;
  EXPECT_NE(error_of([&] { validate(a); }).find("C overlaps A"), std::string::npos);
  a = args(8, 8, 8);
  a.c = a.b + 8;
  EXPECT_NE(error_of([&] { validate(a); }).find("C overlaps B"), std::string::npos);
  a = args(8, 8, 8);
  a.a += 2;
  EXPECT_NE(error_of([&] { validate(a); }).find("aligned to the element size"), std::string::npos);
  a = args(8, 8, 8);
  a.dtype = DType::f16;
  EXPECT_NE(error_of([&] { validate(a); }).find("dtype not supported"), std::string::npos);
}

TEST(GemmFamily, AlignmentAndSpace) {
  EXPECT_EQ(gemm_alignment(args(64, 64, 64)), 4);
  EXPECT_EQ(gemm_alignment(args(64, 64, 63)), 1);  // lda = 63
  GemmArgs shifted = args(64, 64, 64);
  shifted.b += 4;
  EXPECT_EQ(gemm_alignment(shifted), 1);
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  const auto space = enumerate(spec, DeviceLimits{}, gemm_problem(args(4096, 4096, 4096)));
  EXPECT_GE(space.size(), 500u);
  std::set<std::string> seen;
  for (const auto& c : space)
    seen.insert(to_string(c[spec.tunable_index("vec")]) + to_string(c[spec.tunable_index("layout")]) +
                to_string(c[spec.tunable_index("buffer")]));
  EXPECT_EQ(seen.size(), 8u);  // every vec x layout x buffer combination
  const Problem odd = gemm_problem(args(4095, 4097, 1023));
  EXPECT_FALSE(why_invalid(spec, gemm_default_config(spec), DeviceLimits{}, odd));
  for (const auto& c : enumerate(spec, DeviceLimits{}, odd)) EXPECT_EQ(to_string(c[spec.tunable_index("vec")]), "1");
  EXPECT_DOUBLE_EQ(gemm_flops(args(10, 20, 30)), 12000);
  EXPECT_EQ(gemm_type_argument(DType::f64), "double");
}

}  // namespace
}  // namespace ktune
