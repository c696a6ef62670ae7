// The device-side output check against known data: counts, the first mismatches and
// their values, every tolerance form, NaNs, the guard bytes, the norms; f32, f16, bf16,
// f64 and integers.
#include "gpu_test_support.hpp"
#include <ktune/tuner/output_check.hpp>

#include <ktune/generator/dtype.hpp>

#include <cmath>
#include <cstring>
#include <limits>

namespace ktune {
namespace {

class OutputCheckGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    KTUNE_REQUIRE_GPU();
    dev_ = query_device_ordinal(0);
    ctx_ = std::make_unique<PrimaryContext>(dev_.device);
    check_ = std::make_unique<OutputCheck>(dev_, nullptr);
  }
  // Device copies of got (with 256 guard bytes of 0xA5, byte `hit` of them 0 when set)
  // and want, as `dtype` elements.
  OutputCheck::Result run(DType dtype, const std::vector<double>& got, const std::vector<double>& want,
                          const OutputCheck::Bounds& bounds, int hit = -1) {
    const std::size_t elem = static_cast<std::size_t>(size_of(dtype)), n = got.size();
    std::vector<unsigned char> g(n * elem + 256, 0xA5), w(n * elem);
    for (std::size_t i = 0; i < n; ++i) {
      double_to_element(dtype, got[i], &g[i * elem]);
      double_to_element(dtype, want[i], &w[i * elem]);
    }
    if (hit >= 0) g[n * elem + static_cast<std::size_t>(hit)] = 0;
    got_ = DeviceBuffer(g.size()), want_ = DeviceBuffer(w.size() + 16);
    driver::check(driver::api().cuMemcpyHtoD(got_.get(), g.data(), g.size()), "upload");
    driver::check(driver::api().cuMemcpyHtoD(want_.get(), w.data(), w.size()), "upload");
    return check_->check(dtype, got_.get(), want_.get(), n, bounds, 256, 0xA5);
  }

  DeviceInfo dev_;
  std::unique_ptr<PrimaryContext> ctx_;
  std::unique_ptr<OutputCheck> check_;
  DeviceBuffer got_, want_;
};

OutputCheck::Bounds exact() { return {}; }
OutputCheck::Bounds tol(double abs, double rel, double ulp) { return {false, abs, rel, ulp}; }

TEST_F(OutputCheckGpu, CountsAndFirstMismatchesInOrder) {
  // A million f32 elements, four wrong: the count, and the three lowest with their values.
  const std::size_t n = 1 << 20;
  std::vector<double> want(n), got(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = got[i] = static_cast<double>(i % 1000) / 8;
  for (std::size_t i : {999999u, 70000u, 5u, 123456u}) got[i] += 1;
  const auto r = run(DType::f32, got, want, exact());
  EXPECT_EQ(r.wrong, 4u);
  ASSERT_EQ(r.first.size(), 3u);
  EXPECT_EQ(r.first[0].index, 5u);
  EXPECT_EQ(r.first[1].index, 70000u);
  EXPECT_EQ(r.first[2].index, 123456u);
  EXPECT_EQ(r.first[0].got, want[5] + 1);
  EXPECT_EQ(r.first[0].want, want[5]);
  EXPECT_FALSE(r.guard);
  EXPECT_EQ(run(DType::f32, want, want, exact()).wrong, 0u);
}

TEST_F(OutputCheckGpu, ToleranceForms) {
  // Off by d = 2^-10 (exact in f64) at 1 and at 100.
  const double d = 0x1p-10;
  const std::vector<double> want{1.0, 100.0, -3.0, 0.5};
  const std::vector<double> got{1.0 + d, 100.0 + d, -3.0, 0.5};
  EXPECT_EQ(run(DType::f64, got, want, exact()).wrong, 2u);
  EXPECT_EQ(run(DType::f64, got, want, tol(d, 0, 0)).wrong, 0u);  // |got - want| <= abs, the bound included
  EXPECT_EQ(run(DType::f64, got, want, tol(d / 2, 0, 0)).wrong, 2u);
  EXPECT_EQ(run(DType::f64, got, want, tol(0, 1e-5, 0)).wrong, 1u);          // d > 1e-5 * 1, d <= 1e-5 * 100
  EXPECT_EQ(run(DType::f64, got, want, tol(d / 2, d / 2, 0)).wrong, 0u);     // d / 2 + d / 2 * 1 = d
  EXPECT_EQ(run(DType::f64, got, want, tol(d / 4, d / 4, 0)).wrong, 1u);     // d / 2 at 1; 25 d at 100
  // ulp: f32 1 + 2^-23 is one ulp from 1; bf16 has 8 bits of mantissa (1 + 2^-7 one ulp).
  EXPECT_EQ(run(DType::f32, {1.0 + 0x1p-23}, {1.0}, tol(0, 0, 1)).wrong, 0u);
  EXPECT_EQ(run(DType::f32, {1.0 + 0x1p-22}, {1.0}, tol(0, 0, 1)).wrong, 1u);
  EXPECT_EQ(run(DType::bf16, {1.0 + 0x1p-7}, {1.0}, tol(0, 0, 1)).wrong, 0u);
  EXPECT_EQ(run(DType::bf16, {1.0 + 0x1p-6}, {1.0}, tol(0, 0, 1)).wrong, 1u);
  EXPECT_EQ(run(DType::f16, {1.0 + 0x1p-10}, {1.0}, tol(0, 0, 1)).wrong, 0u);
  EXPECT_EQ(run(DType::f16, {2.0 + 0x1p-8}, {2.0}, tol(0, 0, 1)).wrong, 1u);
  EXPECT_EQ(run(DType::i32, {7, 9}, {7, 8}, tol(1, 0, 0)).wrong, 0u);
  EXPECT_EQ(run(DType::i8, {7, 9}, {7, 8}, exact()).wrong, 1u);
}

TEST_F(OutputCheckGpu, NaNsAndGuards) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(run(DType::f32, {nan, 1.0}, {nan, 1.0}, exact()).wrong, 0u);  // both NaN
  EXPECT_EQ(run(DType::f32, {nan, 1.0}, {2.0, 1.0}, tol(1e30, 0, 0)).wrong, 1u);  // NaN is never close
  EXPECT_EQ(run(DType::f32, {1.0, 1.0}, {1.0, 1.0}, exact(), 17).guard, std::optional<std::size_t>(17));
  EXPECT_EQ(run(DType::f16, {1.0, 1.0}, {1.0, 1.0}, exact(), 255).guard, std::optional<std::size_t>(255));
}

TEST_F(OutputCheckGpu, Norms) {
  const std::vector<double> v{3.0, -4.0, 0.0, 0.0};
  run(DType::f32, v, v, exact());
  const OutputCheck::Norms n = check_->norms(DType::f32, want_.get(), v.size());
  EXPECT_DOUBLE_EQ(n.rms, std::sqrt(25.0 / 4));
  EXPECT_DOUBLE_EQ(n.max_abs, 4.0);
}

}  // namespace
}  // namespace ktune
