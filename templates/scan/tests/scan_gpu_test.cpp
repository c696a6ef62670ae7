// The scan family on the device: every config verified at lengths that are not
// multiples of anything (fresh random inputs, poisoned outputs, exact references), and
// the public call: in place, exclusive, misaligned pointers, bad input.
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <ktune/error.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/tuner/array_harness.hpp>
#include <scan/scan_family.hpp>

namespace ktune {
namespace {

// Compiles every config of (kind, op, dtype) once and verifies each at every shape
// ({1, n} for a whole array).
std::size_t verify_all(Lines kind, ScanOp op, DType dtype, bool exclusive,
                       const std::vector<std::pair<std::int64_t, std::int64_t>>& shapes) {
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = array_spec(scan_family(), kind);
  const std::string type = scan_family().type_argument({kind, static_cast<int>(op), dtype});
  const std::int64_t align = std::min<std::int64_t>(4, 16 / size_of(dtype));
  const Problem widest = kind == Lines::whole ? Problem{dtype, {{"n", 1 << 22}, {"align", align}}}
                                                 : Problem{dtype, {{"rows", 1000}, {"cols", 8192}, {"align", align}}};
  const auto configs = enumerate(spec, dev.limits, widest);
  std::vector<std::string> names;
  for (const auto& c : configs)
    names.push_back(instantiate(spec, c, dev.limits, widest, type).name_expression);
  const LoadedSpace loaded = compile_and_load(spec.source(), names, dev.arch, spec.family());
  std::size_t verified = 0;
  for (const auto& [rows, n] : shapes) {
    ArrayHarness h(dev, scan_family(), ArrayArgs::matrix(kind, static_cast<int>(op), dtype, rows, n, n, n, 0, 0, exclusive),
                   TimingProtocol{});
    verified += verify_each_config(h, spec, configs, loaded, dev.limits, type);
  }
  return verified;
}

constexpr Lines whole = Lines::whole, rows = Lines::rows;

TEST(ScanGpu, EveryConfigSumF32AtOddLengths) {
  KTUNE_REQUIRE_GPU();
  EXPECT_GT(verify_all(whole, ScanOp::sum, DType::f32, false, {{1, 1}, {1, 3}, {1, 1000}, {1, 4097}, {1, 1000003}}), 1000u);
}

TEST(ScanGpu, EveryConfigOfTheOtherTypesAndOps) {
  KTUNE_REQUIRE_GPU();
  std::size_t verified = 0;
  verified += verify_all(whole, ScanOp::sum, DType::i32, true, {{1, 7}, {1, 100003}});
  verified += verify_all(whole, ScanOp::sum, DType::i64, false, {{1, 999}, {1, 300007}});
  verified += verify_all(whole, ScanOp::max, DType::f64, true, {{1, 5}, {1, 200003}});
  verified += verify_all(whole, ScanOp::min, DType::f16, false, {{1, 77777}});
  verified += verify_all(whole, ScanOp::sum, DType::bf16, true, {{1, 123457}});
  EXPECT_GT(verified, 1000u);
}

TEST(ScanGpu, EveryConfigRowsAtOddShapes) {
  KTUNE_REQUIRE_GPU();
  std::size_t verified = 0;
  verified += verify_all(rows, ScanOp::sum, DType::f32, false, {{1, 1}, {3, 1000}, {257, 4097}, {33, 30001}});
  verified += verify_all(rows, ScanOp::sum, DType::i32, true, {{101, 999}});
  verified += verify_all(rows, ScanOp::max, DType::bf16, false, {{77, 3001}});
  EXPECT_GT(verified, 300u);
}

class ScanRuntimeGpu : public GpuRuntimeTest {};
class ScanHugeGpu : public GpuRuntimeTest {};

TEST_F(ScanRuntimeGpu, InPlaceExclusiveAndMisaligned) {
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  const std::int64_t n = 1000003;
  std::vector<std::int32_t> host(static_cast<std::size_t>(n) + 1);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::int32_t>(i % 13) - 6;
  DeviceBuffer buf(host.size() * 4), out(host.size() * 4);
  const auto& d = driver::api();
  driver::check(d.cuMemcpyHtoD(buf.get(), host.data(), host.size() * 4), "cuMemcpyHtoD");
  // Misaligned by one element (a narrower config runs), in place.
  void* p = reinterpret_cast<void*>(buf.get() + 4);
  rt.scan(p, p, n, ScanOp::sum, DType::i32);
  std::vector<std::int32_t> got(host.size());
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  driver::check(d.cuMemcpyDtoH(got.data(), buf.get(), got.size() * 4), "cuMemcpyDtoH");
  EXPECT_EQ(got[0], host[0]);  // untouched
  std::int32_t run = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    run += host[static_cast<std::size_t>(i) + 1];
    if (got[static_cast<std::size_t>(i) + 1] != run) {
      ADD_FAILURE() << "element " << i << ": " << got[static_cast<std::size_t>(i) + 1] << " != " << run;
      break;
    }
  }
  // Exclusive max into another buffer.
  rt.scan(reinterpret_cast<void*>(out.get()), reinterpret_cast<void*>(buf.get()), 5, ScanOp::max, DType::i32, true);
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  std::int32_t five[5];
  driver::check(d.cuMemcpyDtoH(five, out.get(), sizeof five), "cuMemcpyDtoH");
  EXPECT_EQ(five[0], -2147483647 - 1);
  EXPECT_THROW(rt.scan(reinterpret_cast<void*>(buf.get() + 4), reinterpret_cast<void*>(buf.get()), 100, ScanOp::sum,
                       DType::i32),
               InvalidArgument);
  EXPECT_THROW(rt.scan(p, p, 0, ScanOp::sum, DType::i32), InvalidArgument);
  // Rows of a pitched matrix (3 x 1000 in a pitch of 1001, starting one element in), exclusive.
  const std::int64_t r = 3, c = 1000, ld = 1001;
  rt.scan_rows(reinterpret_cast<void*>(out.get()), reinterpret_cast<void*>(buf.get() + 4), r, c, ld, ld, ScanOp::sum,
               DType::i32, true);
  std::vector<std::int32_t> rows_out(static_cast<std::size_t>(r * ld));
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  driver::check(d.cuMemcpyDtoH(rows_out.data(), out.get(), rows_out.size() * 4), "cuMemcpyDtoH");
  driver::check(d.cuMemcpyDtoH(host.data(), buf.get(), host.size() * 4), "cuMemcpyDtoH");  // the scanned input
  for (std::int64_t i = 0; i < r; ++i) {
    std::int32_t acc = 0;
    for (std::int64_t j = 0; j < c; ++j) {
      const auto k = static_cast<std::size_t>(i * ld + j);
      ASSERT_EQ(rows_out[k], acc) << "row " << i << " col " << j;
      acc += host[k + 1];
    }
  }
}

// Past 2^31 elements (int32 in place, 8.6 GB): 64-bit offsets through the whole chain.
// Not a RuntimeGpu test, so the sanitizers' pass does not run it. Skips without the memory.
TEST_F(ScanHugeGpu, LengthPast2To31InPlace) {
  const std::int64_t n = (std::int64_t{1} << 31) + 77;
  const std::size_t bytes = static_cast<std::size_t>(n) * 4;
  const auto& d = driver::api();
  std::size_t free_bytes = 0, total = 0;
  driver::check(d.cuMemGetInfo(&free_bytes, &total), "cuMemGetInfo");
  if (free_bytes < bytes + (std::size_t{1} << 30)) GTEST_SKIP() << "needs " << bytes << " bytes of GPU memory";
  const auto value = [](std::int64_t i) { return static_cast<std::int32_t>((static_cast<std::uint64_t>(i) * 2654435761u >> 7) % 7) - 3; };
  std::vector<std::int32_t> host(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = value(i);
  DeviceBuffer buf(bytes);
  driver::check(d.cuMemcpyHtoD(buf.get(), host.data(), bytes), "cuMemcpyHtoD");
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  void* p = reinterpret_cast<void*>(buf.get());
  rt.scan(p, p, n, ScanOp::sum, DType::i32);
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  driver::check(d.cuMemcpyDtoH(host.data(), buf.get(), bytes), "cuMemcpyDtoH");
  std::uint32_t run = 0;  // int32 sums wrap; unsigned arithmetic says how
  for (std::int64_t i = 0; i < n; ++i) {
    run += static_cast<std::uint32_t>(value(i));
    ASSERT_EQ(static_cast<std::uint32_t>(host[static_cast<std::size_t>(i)]), run) << "element " << i;
  }
}

}  // namespace
}  // namespace ktune
