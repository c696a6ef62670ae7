// The GEMM family on the device: every config verified at odd shapes against the
// float64 reference kernel, and the public call (alpha, beta, pitches, bad input).
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <ktune/ktune.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/gemm_harness.hpp>

#include <cmath>

namespace ktune {
namespace {

TEST(GemmGpu, EveryConfigVerifiedAtOddShapes) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  std::size_t verified = 0;
  for (DType dtype : {DType::f32, DType::f64}) {
    const Problem widest{dtype, {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"align", 4}}};
    const auto configs = enumerate(spec, dev.limits, widest);
    std::vector<std::string> names;
    for (const auto& c : configs)
      names.push_back(instantiate(spec, c, dev.limits, widest, gemm_type_argument(dtype)).name_expression);
    const LoadedSpace loaded = compile_and_load(spec.source(), names, dev.arch, "gemm");
    const auto& functions = loaded.functions;
    // Odd shapes (scalar loads only) and 4-aligned shapes that are no multiple of any tile.
    const std::int64_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {33, 65, 17}, {129, 127, 131}, {100, 36, 260}, {260, 132, 68}};
    for (const auto& s : shapes) {
      GemmHarness h(dev, dtype, s[0], s[1], s[2], TimingProtocol{});
      std::size_t failed = 0;
      for (std::size_t i = 0; i < configs.size(); ++i) {
        if (!functions[i] || why_invalid(spec, configs[i], dev.limits, h.problem())) continue;
        const Instance inst = instantiate(spec, configs[i], dev.limits, h.problem(), gemm_type_argument(dtype));
        if (const auto wrong = h.verify(functions[i], inst))
          if (++failed <= 3) ADD_FAILURE() << h.describe() << " " << config_to_string(spec, configs[i]) << ": " << *wrong;
        ++verified;
      }
      EXPECT_EQ(failed, 0u) << h.describe();
    }
  }
  std::printf("gemm: verified %zu (config, dtype, shape) combinations\n", verified);
  EXPECT_GE(verified, 3000u);
}

// A few register-prefetch (buffer = 2) configs at one odd shape: small enough for
// compute-sanitizer racecheck (scripts/gpu-check.sh runs it over GemmRuntimeGpu.*).
class GemmRuntimeGpu : public GpuRuntimeTest {};

TEST_F(GemmRuntimeGpu, DoubleBufferedConfigsUnderSanitizers) {
  const KernelSpec& spec = KernelSpec::builtin("gemm");
  GemmHarness h(dev_, DType::f32, 100, 68, 260, TimingProtocol{});
  std::vector<Config> picked;
  for (const auto& c : enumerate(spec, dev_.limits, h.problem()))
    if (to_string(c[spec.tunable_index("buffer")]) == "2" && picked.size() < 6 &&
        (picked.empty() || picked.back()[0] != c[0] || picked.back()[2] != c[2]))
      picked.push_back(c);
  ASSERT_GE(picked.size(), 3u);
  std::vector<std::string> names;
  for (const auto& c : picked) names.push_back(instantiate(spec, c, dev_.limits, h.problem(), "float").name_expression);
  const CompileOutput out = compile_cubin(spec.source(), names, dev_.arch, "gemm double-buffered");
  Module module(out.cubin, "gemm double-buffered");
  for (std::size_t i = 0; i < picked.size(); ++i) {
    const auto wrong = h.verify(module.function(out.lowered_names[i]), instantiate(spec, picked[i], dev_.limits, h.problem(), "float"));
    EXPECT_FALSE(wrong) << config_to_string(spec, picked[i]) << ": " << *wrong;
  }
}

TEST_F(GemmRuntimeGpu, PitchedAlphaBetaAndBadInput) {
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  const std::int64_t m = 67, n = 45, k = 29, lda = 31, ldb = 47, ldc = 50;
  std::vector<float> a(static_cast<std::size_t>(m * lda)), b(static_cast<std::size_t>(k * ldb)),
      c(static_cast<std::size_t>(m * ldc));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(static_cast<int>(i % 3));
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dc(c.size() * 4);
  const auto& d = driver::api();
  driver::check(d.cuMemcpyHtoD(da.get(), a.data(), a.size() * 4), "HtoD");
  driver::check(d.cuMemcpyHtoD(db.get(), b.data(), b.size() * 4), "HtoD");
  driver::check(d.cuMemcpyHtoD(dc.get(), c.data(), c.size() * 4), "HtoD");
  void* C = reinterpret_cast<void*>(dc.get());
  const void* A = reinterpret_cast<const void*>(da.get());
  const void* B = reinterpret_cast<const void*>(db.get());
  const LaunchInfo& info = rt.gemm(C, A, B, m, n, k, lda, ldb, ldc, 2.0, -1.0, DType::f32);
  EXPECT_EQ(info.match, MatchLevel::fallback);
  std::vector<float> got(c.size());
  driver::check(d.cuCtxSynchronize(), "sync");
  driver::check(d.cuMemcpyDtoH(got.data(), dc.get(), got.size() * 4), "DtoH");
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < ldc; ++j) {
      const auto at = static_cast<std::size_t>(i * ldc + j);
      if (j >= n) {
        ASSERT_EQ(got[at], c[at]) << "pitch padding written at " << i << "," << j;
        continue;
      }
      double s = 0;  // small integers: exact in float
      for (std::int64_t q = 0; q < k; ++q) s += a[static_cast<std::size_t>(i * lda + q)] * b[static_cast<std::size_t>(q * ldb + j)];
      ASSERT_EQ(got[at], static_cast<float>(2 * s - c[at])) << i << "," << j;
    }
  expect_error([&] { rt.gemm(C, A, B, 0, n, k, lda, ldb, ldc, 1, 0, DType::f32); }, "sizes must be positive");
  expect_error([&] { rt.gemm(C, nullptr, B, m, n, k, lda, ldb, ldc, 1, 0, DType::f32); }, "null pointer");
  expect_error([&] { rt.gemm(C, A, B, m, n, k, k - 1, ldb, ldc, 1, 0, DType::f32); }, "smaller than k");
  expect_error([&] { rt.gemm(const_cast<void*>(A), A, B, m, n, k, lda, ldb, ldc, 1, 0, DType::f32); }, "C overlaps A");
  expect_error([&] { rt.gemm(C, A, B, m, n, k, lda, ldb, ldc, 1, 0, DType::f16); }, "dtype not supported");
}

}  // namespace
}  // namespace ktune
