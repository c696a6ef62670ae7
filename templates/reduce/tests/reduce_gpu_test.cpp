// The reduction families on the device: every config verified at odd sizes against
// the float64 reference and its tolerance (fresh random inputs, poisoned results), and
// the public API: misaligned and pitched inputs, determinism, two streams, bad input.
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <ktune/error.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/runtime_impl.hpp>
#include <ktune/tuner/array_harness.hpp>
#include <reduce/reduce_family.hpp>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>

namespace ktune {
namespace {


// Compiles every config of (family, op, dtype) once and verifies each at every shape.
std::size_t verify_all(Lines kind, ReduceOp op, DType dtype,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& shapes) {
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = array_spec(reduce_family(), kind);
  const std::string type = reduce_family().type_argument({kind, static_cast<int>(op), dtype});
  const std::string& family = spec.family();
  const std::int64_t align = 16 / size_of(dtype);
  const Problem widest = kind == Lines::whole ? Problem{dtype, {{"n", 1 << 20}, {"align", align}}}
                                            : Problem{dtype, {{"rows", 1024}, {"cols", 4096}, {"align", align}}};
  const auto configs = enumerate(spec, dev.limits, widest);
  std::vector<std::string> names;
  for (const auto& c : configs)
    names.push_back(instantiate(spec, c, dev.limits, widest, type).name_expression);
  const LoadedSpace loaded = compile_and_load(spec.source(), names, dev.arch, family);
  std::size_t verified = 0;
  for (const auto& [rows, cols] : shapes) {
    ArrayHarness h(dev, reduce_family(), ArrayArgs::matrix(kind, static_cast<int>(op), dtype, rows, cols, cols, cols, 0, 0),
                   TimingProtocol{});
    verified += verify_each_config(h, spec, configs, loaded, dev.limits, type);
  }
  return verified;
}

TEST(ReduceGpu, EveryConfigWholeArrayOddSizes) {
  KTUNE_REQUIRE_GPU();
  const std::vector<std::pair<std::int64_t, std::int64_t>> sizes{{1, 1}, {1, 3}, {1, 1000}, {1, 4097}, {1, 1000003}};
  std::size_t verified = 0;
  verified += verify_all(Lines::whole, ReduceOp::sum, DType::f32, sizes);
  verified += verify_all(Lines::whole, ReduceOp::max, DType::f16, sizes);
  verified += verify_all(Lines::whole, ReduceOp::mean, DType::bf16, sizes);
  verified += verify_all(Lines::whole, ReduceOp::min, DType::f64, sizes);
  std::printf("reduce: verified %zu (config, op, dtype, n) combinations\n", verified);
  EXPECT_GE(verified, 4u * 5u * 100u);
}

TEST(ReduceGpu, EveryConfigRowsOddShapes) {
  KTUNE_REQUIRE_GPU();
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{1, 1}, {3, 5}, {33, 65}, {1000, 1}, {7, 4097}, {300, 700}};
  std::size_t verified = 0;
  verified += verify_all(Lines::rows, ReduceOp::sum, DType::f32, shapes);
  verified += verify_all(Lines::rows, ReduceOp::mean, DType::f16, shapes);
  verified += verify_all(Lines::rows, ReduceOp::max, DType::f64, shapes);
  std::printf("reduce_rows: verified %zu (config, op, dtype, shape) combinations\n", verified);
  EXPECT_GE(verified, 3u * 6u * 40u);
}

TEST(ReduceGpu, EveryConfigColumnsOddShapes) {
  KTUNE_REQUIRE_GPU();
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes{{1, 1}, {5, 3}, {65, 33}, {1, 1000}, {4097, 7}, {700, 300}};
  std::size_t verified = 0;
  verified += verify_all(Lines::cols, ReduceOp::sum, DType::f32, shapes);
  verified += verify_all(Lines::cols, ReduceOp::min, DType::bf16, shapes);
  verified += verify_all(Lines::cols, ReduceOp::mean, DType::f64, shapes);
  std::printf("reduce_cols: verified %zu (config, op, dtype, shape) combinations\n", verified);
  EXPECT_GE(verified, 3u * 6u * 20u);
}

class ReduceRuntimeGpu : public GpuRuntimeTest {
 protected:
  Runtime::Options options() const { return {(dir_ / "tuning.db").string(), false}; }

  // Values i % 17 - 8 (exact in float sums), uploaded at an element offset.
  static std::vector<float> values(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i % 17) - 8) + 0.5f;
    return v;
  }
  static float fetch(CUdeviceptr p) {
    float v;
    driver::check(driver::api().cuCtxSynchronize(), "sync");
    driver::check(driver::api().cuMemcpyDtoH(&v, p, 4), "cuMemcpyDtoH");
    return v;
  }
};

TEST_F(ReduceRuntimeGpu, MisalignedDeterministicAndTwoStreams) {
  Runtime rt(options());
  const std::size_t n = 1000003;
  const auto host = values(n);
  double expect = 0;
  for (float v : host) expect += v;
  DeviceBuffer in(n * 4 + 64), out(64);
  for (std::size_t offset : {0, 1, 3}) {
    driver::check(driver::api().cuMemcpyHtoD(in.get() + offset * 4, host.data(), n * 4), "HtoD");
    const LaunchInfo& info = rt.reduce(reinterpret_cast<void*>(out.get()), reinterpret_cast<const void*>(in.get() + offset * 4),
                                       static_cast<std::int64_t>(n), ReduceOp::sum, DType::f32);
    EXPECT_EQ(info.match, MatchLevel::model);
    EXPECT_EQ(fetch(out.get()), static_cast<float>(expect)) << "offset " << offset;
  }
  // Same config, same input: the same bits, every time (no atomics on values).
  rt.reduce(reinterpret_cast<void*>(out.get()), reinterpret_cast<const void*>(in.get()), static_cast<std::int64_t>(n),
            ReduceOp::mean, DType::f32);
  const float first = fetch(out.get());
  for (int k = 0; k < 5; ++k) {
    rt.reduce(reinterpret_cast<void*>(out.get()), reinterpret_cast<const void*>(in.get()), static_cast<std::int64_t>(n),
              ReduceOp::mean, DType::f32);
    const float again = fetch(out.get());
    EXPECT_EQ(std::memcmp(&first, &again, 4), 0);
  }
  // Two streams at once: each has its own workspace.
  driver::check(driver::api().cuMemcpyHtoD(in.get(), host.data(), n * 4), "HtoD");
  CUstream s1 = nullptr, s2 = nullptr;
  driver::check(driver::api().cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  driver::check(driver::api().cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  for (int k = 0; k < 20; ++k) {
    rt.reduce(reinterpret_cast<void*>(out.get() + 16), reinterpret_cast<const void*>(in.get()), static_cast<std::int64_t>(n),
              ReduceOp::sum, DType::f32, reinterpret_cast<Stream>(s1));
    rt.reduce(reinterpret_cast<void*>(out.get() + 32), reinterpret_cast<const void*>(in.get()), static_cast<std::int64_t>(n),
              ReduceOp::sum, DType::f32, reinterpret_cast<Stream>(s2));
  }
  EXPECT_EQ(fetch(out.get() + 16), static_cast<float>(expect));
  EXPECT_EQ(fetch(out.get() + 32), static_cast<float>(expect));
  driver::api().cuStreamDestroy(s1);
  driver::api().cuStreamDestroy(s2);
}

// Captured in a CUDA graph on a stream the runtime has never seen (as torch.cuda.graph
// does), after an eager call and as a problem's very first call: the graph owns its
// workspace, replays give the sums of the data copied in since, nothing synchronizes.
TEST_F(ReduceRuntimeGpu, CapturedOnAFreshStreamAndReplayed) {
  Runtime rt(options());
  const std::size_t n = 1000003, m = 77777;
  DeviceBuffer in(n * 4), out(64);
  auto host = values(n);
  driver::check(driver::api().cuMemcpyHtoD(in.get(), host.data(), n * 4), "HtoD");
  const auto sum = [&](std::int64_t count, std::size_t at, CUstream s) {
    rt.reduce(reinterpret_cast<void*>(out.get() + at), reinterpret_cast<const void*>(in.get()), count, ReduceOp::sum,
              DType::f32, reinterpret_cast<Stream>(s));
  };
  sum(static_cast<std::int64_t>(n), 0, nullptr);  // eager first, on the legacy stream
  fetch(out.get());
  for (auto& v : host) v = -2 * v;
  driver::check(driver::api().cuMemcpyHtoD(in.get(), host.data(), n * 4), "HtoD");
  capture_and_replay([&](CUstream s) {
    sum(static_cast<std::int64_t>(n), 0, s);
    sum(static_cast<std::int64_t>(m), 16, s);  // first call of this problem: loaded under capture
  });
  double expect_n = 0, expect_m = 0;
  for (std::size_t i = 0; i < n; ++i) (i < m ? expect_m : expect_n) += host[i];
  EXPECT_EQ(fetch(out.get()), static_cast<float>(expect_n + expect_m));
  EXPECT_EQ(fetch(out.get() + 16), static_cast<float>(expect_m));
}

// Streams that come and go leave no pile of workspaces: at most Workspaces::k_max_streams.
TEST_F(ReduceRuntimeGpu, WorkspacesOfGoneStreamsAreBounded) {
  Runtime rt(options());
  const std::size_t n = 4099;
  DeviceBuffer in(n * 4), out(64);
  const auto host = values(n);
  double expect = 0;
  for (float v : host) expect += v;
  driver::check(driver::api().cuMemcpyHtoD(in.get(), host.data(), n * 4), "HtoD");
  for (std::size_t k = 0; k < Workspaces::k_max_streams + 50; ++k) {
    CUstream s = nullptr;
    driver::check(driver::api().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    rt.reduce(reinterpret_cast<void*>(out.get()), reinterpret_cast<const void*>(in.get()), static_cast<std::int64_t>(n),
              ReduceOp::sum, DType::f32, reinterpret_cast<Stream>(s));
    driver::check(driver::api().cuStreamDestroy(s), "cuStreamDestroy");  // with its work still queued
  }
  EXPECT_EQ(fetch(out.get()), static_cast<float>(expect));
  EXPECT_LE(ImplAccess::of(rt).workspaces.eager_count(), Workspaces::k_max_streams);
}

TEST_F(ReduceRuntimeGpu, PitchedRowsAndBadInput) {
  Runtime rt(options());
  const std::int64_t rows = 129, cols = 1001, ld = 1003;
  const auto host = values(static_cast<std::size_t>(rows * ld));
  DeviceBuffer in(host.size() * 4), out(static_cast<std::size_t>(rows) * 4);
  driver::check(driver::api().cuMemcpyHtoD(in.get(), host.data(), host.size() * 4), "HtoD");
  rt.reduce_rows(reinterpret_cast<void*>(out.get()), reinterpret_cast<const void*>(in.get()), rows, cols, ld,
                 ReduceOp::max, DType::f32);
  std::vector<float> got(static_cast<std::size_t>(rows));
  driver::check(driver::api().cuCtxSynchronize(), "sync");
  driver::check(driver::api().cuMemcpyDtoH(got.data(), out.get(), got.size() * 4), "DtoH");
  for (std::int64_t r = 0; r < rows; ++r) {
    float m = -1e30f;
    for (std::int64_t c = 0; c < cols; ++c) m = std::max(m, host[static_cast<std::size_t>(r * ld + c)]);
    ASSERT_EQ(got[static_cast<std::size_t>(r)], m) << "row " << r;
  }
  driver::check(driver::api().cuMemsetD8(out.get(), 0xA5, out.size()), "memset");
  void* o = reinterpret_cast<void*>(out.get());
  const void* i = reinterpret_cast<const void*>(in.get());
  // Columns of the same pitched matrix.
  rt.reduce_cols(reinterpret_cast<void*>(out.get()), reinterpret_cast<const void*>(in.get()), 13, 100, ld, ReduceOp::sum,
                 DType::f32);
  std::vector<float> sums(100);
  driver::check(driver::api().cuCtxSynchronize(), "sync");
  driver::check(driver::api().cuMemcpyDtoH(sums.data(), out.get(), sums.size() * 4), "DtoH");
  for (std::int64_t c = 0; c < 100; ++c) {
    float s = 0;
    for (std::int64_t r = 0; r < 13; ++r) s += host[static_cast<std::size_t>(r * ld + c)];
    ASSERT_EQ(sums[static_cast<std::size_t>(c)], s) << "column " << c;
  }
  driver::check(driver::api().cuMemsetD8(out.get(), 0xA5, out.size()), "memset");
  expect_error([&] { rt.reduce(o, i, 0, ReduceOp::sum, DType::f32); }, "sizes must be positive");
  expect_error([&] { rt.reduce(o, nullptr, 10, ReduceOp::sum, DType::f32); }, "null pointer");
  expect_error([&] { rt.reduce(o, i, 10, ReduceOp::sum, DType::u8); }, "dtype not supported");
  expect_error([&] { rt.reduce(reinterpret_cast<void*>(in.get() + 8), i, 10, ReduceOp::sum, DType::f32); },
               "output overlaps input");
  expect_error([&] { rt.reduce(o, reinterpret_cast<const void*>(in.get() + 2), 10, ReduceOp::sum, DType::f32); },
               "input pointer not aligned");
  expect_error([&] { rt.reduce_rows(o, i, rows, cols, cols - 1, ReduceOp::sum, DType::f32); }, "is smaller than cols");
  expect_error([&] { rt.reduce_rows(o, i, std::int64_t{1} << 31, 2, 2, ReduceOp::sum, DType::f32); }, "below 2^31");
  std::uint32_t bits = 0;
  driver::check(driver::api().cuMemcpyDtoH(&bits, out.get(), 4), "DtoH");
  EXPECT_EQ(bits, 0xA5A5A5A5u);  // nothing launched
}

}  // namespace
}  // namespace ktune
