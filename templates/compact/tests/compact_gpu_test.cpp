// The compact family on the device: every config verified at lengths that are not
// multiples of anything, for both modes, with and without indices, at several kept
// fractions (fresh random inputs, poisoned outputs, nothing written past the count),
// and the public call: bad input.
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <compact/compact_harness.hpp>
#include <ktune/error.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/device.hpp>

namespace ktune {
namespace {

struct Case {
  DType dtype;
  CompactMode mode;
  bool indices;
  double keep;
  bool clustered;
  std::vector<std::int64_t> lengths;
  std::string predicate = {};  // mode predicate
};

std::size_t verify_all(const Case& c) {
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const KernelSpec& spec = compact_spec();
  const Problem widest{c.dtype, {{"n", 1 << 22}}};
  const auto configs = enumerate(spec, dev.limits, widest);
  std::vector<std::string> names;
  for (const auto& cfg : configs)
    names.push_back(instantiate(spec, cfg, dev.limits, widest, compact_type_argument(c.dtype)).name_expression);
  // The problem's source: the template, and a predicate's specialization after it.
  const std::string source =
      compact_tuning_problem(compact_probe_args({c.dtype, 1000, c.mode, 0, 0, 0, 0, 0, c.predicate})).source;
  const LoadedSpace loaded = compile_and_load(source, names, dev.arch, "compact");
  std::size_t verified = 0;
  for (const std::int64_t n : c.lengths) {
    CompactHarness h(dev, c.dtype, n, c.mode, c.indices, c.keep, c.clustered, TimingProtocol{}, c.predicate);
    verified += verify_each_config(h, spec, configs, loaded, dev.limits, compact_type_argument(c.dtype));
  }
  return verified;
}

TEST(CompactGpu, EveryConfigAtOddLengthsAndFractions) {
  KTUNE_REQUIRE_GPU();
  std::size_t verified = 0;
  verified += verify_all({DType::f32, CompactMode::flags, false, 0.5, false, {1, 3, 1000, 4097, 1000003}});
  verified += verify_all({DType::f32, CompactMode::flags, true, 0.01, false, {77777, 1000003}});
  verified += verify_all({DType::f16, CompactMode::nonzero, false, 0.3, true, {300007}});
  verified += verify_all({DType::i64, CompactMode::flags, true, 1.0, false, {100003}});
  verified += verify_all({DType::u8, CompactMode::nonzero, true, 0.0, false, {5003}});
  verified += verify_all({DType::f32, CompactMode::predicate, true, 0, false, {100003}, "keep = x > 0 && x < 3"});
  verified += verify_all({DType::i32, CompactMode::predicate, false, 0, false, {4097}, "keep = x * x > 20 || x == 0"});
  EXPECT_GT(verified, 300u);
}

class CompactRuntimeGpu : public GpuRuntimeTest {};

TEST_F(CompactRuntimeGpu, CallAndBadInput) {
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  const std::int64_t n = 100003;
  std::vector<std::int32_t> host(static_cast<std::size_t>(n));
  std::vector<unsigned char> flags(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<std::int32_t>(i), flags[i] = i % 3 == 0;
  DeviceBuffer in(host.size() * 4), f(host.size()), out(host.size() * 4), idx(host.size() * 8), count(8);
  const auto& d = driver::api();
  driver::check(d.cuMemcpyHtoD(in.get(), host.data(), host.size() * 4), "cuMemcpyHtoD");
  driver::check(d.cuMemcpyHtoD(f.get(), flags.data(), flags.size()), "cuMemcpyHtoD");
  const auto p = [](const DeviceBuffer& b) { return reinterpret_cast<void*>(b.get()); };
  rt.compact(p(out), static_cast<std::int64_t*>(p(count)), p(in), p(f), n, DType::i32, CompactMode::flags,
             static_cast<std::int64_t*>(p(idx)));
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  std::int64_t kept = 0;
  driver::check(d.cuMemcpyDtoH(&kept, count.get(), 8), "cuMemcpyDtoH");
  ASSERT_EQ(kept, (n + 2) / 3);
  std::vector<std::int32_t> got(static_cast<std::size_t>(kept));
  std::vector<std::int64_t> got_idx(got.size());
  driver::check(d.cuMemcpyDtoH(got.data(), out.get(), got.size() * 4), "cuMemcpyDtoH");
  driver::check(d.cuMemcpyDtoH(got_idx.data(), idx.get(), got.size() * 8), "cuMemcpyDtoH");
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k], static_cast<std::int32_t>(3 * k)) << k;
    ASSERT_EQ(got_idx[k], static_cast<std::int64_t>(3 * k)) << k;
  }
  // Values and flags one element in (pointers not aligned for vectors: the narrow path).
  const auto at1 = [](const DeviceBuffer& b, std::size_t bytes) { return reinterpret_cast<void*>(b.get() + bytes); };
  rt.compact(p(out), static_cast<std::int64_t*>(p(count)), at1(in, 4), at1(f, 1), n - 1, DType::i32);
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  driver::check(d.cuMemcpyDtoH(&kept, count.get(), 8), "cuMemcpyDtoH");
  ASSERT_EQ(kept, (n - 1) / 3);  // flags[i + 1] set where i % 3 == 2
  driver::check(d.cuMemcpyDtoH(got.data(), out.get(), static_cast<std::size_t>(kept) * 4), "cuMemcpyDtoH");
  for (std::int64_t k = 0; k < kept; ++k) ASSERT_EQ(got[static_cast<std::size_t>(k)], static_cast<std::int32_t>(3 * k + 3)) << k;
  // By a predicate: the values above 50000 (in[i] = i), with their positions.
  const CompactIf above = rt.compact_if("keep = x > 50000", DType::i32);
  EXPECT_EQ(above.normalized(), "o0=(i0>50000)");
  above(p(out), static_cast<std::int64_t*>(p(count)), p(in), n, static_cast<std::int64_t*>(p(idx)));
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  driver::check(d.cuMemcpyDtoH(&kept, count.get(), 8), "cuMemcpyDtoH");
  ASSERT_EQ(kept, n - 50001);
  driver::check(d.cuMemcpyDtoH(got_idx.data(), idx.get(), 8), "cuMemcpyDtoH");
  EXPECT_EQ(got_idx[0], 50001);
  EXPECT_THROW(rt.compact_if("keep = x >", DType::i32), InvalidArgument);
  EXPECT_THROW(rt.compact_if("keep = a + b", DType::i32), InvalidArgument);
  EXPECT_THROW(rt.compact(p(out), static_cast<std::int64_t*>(p(count)), p(in), p(f), n, DType::i32,
                          CompactMode::predicate),
               InvalidArgument);
  EXPECT_THROW(rt.compact(p(in), static_cast<std::int64_t*>(p(count)), p(in), p(f), n, DType::i32), InvalidArgument);
  EXPECT_THROW(rt.compact(p(out), static_cast<std::int64_t*>(p(count)), p(in), nullptr, n, DType::i32), InvalidArgument);
  EXPECT_THROW(rt.compact(p(out), static_cast<std::int64_t*>(p(count)), p(in), p(f), 0, DType::i32), InvalidArgument);
}

// Past 2^31 elements (u8, nonzero, positions, 1% kept near both ends of the range): the
// count and the positions past 2^31 are exact. Not a RuntimeGpu test, so the sanitizers'
// pass does not run it. Skips without the memory.
class CompactHugeGpu : public GpuRuntimeTest {};

TEST_F(CompactHugeGpu, LengthPast2To31WithPositions) {
  const std::int64_t n = (std::int64_t{1} << 31) + 77;
  const auto kept_at = [](std::int64_t i) { return (static_cast<std::uint64_t>(i) * 2654435761u >> 9) % 100 == 0; };
  std::vector<unsigned char> host(static_cast<std::size_t>(n));
  std::int64_t expected = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    host[static_cast<std::size_t>(i)] = kept_at(i) ? static_cast<unsigned char>(i % 255 + 1) : 0;
    expected += kept_at(i);
  }
  const std::size_t need = host.size() * 10;
  const auto& d = driver::api();
  std::size_t free_bytes = 0, total = 0;
  driver::check(d.cuMemGetInfo(&free_bytes, &total), "cuMemGetInfo");
  if (free_bytes < need + (std::size_t{1} << 30)) GTEST_SKIP() << "needs " << need << " bytes of GPU memory";
  DeviceBuffer in(host.size()), out(host.size()), idx(host.size() * 8), count(8);  // up to n each
  driver::check(d.cuMemcpyHtoD(in.get(), host.data(), host.size()), "cuMemcpyHtoD");
  const auto p = [](const DeviceBuffer& b) { return reinterpret_cast<void*>(b.get()); };
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  rt.compact(p(out), static_cast<std::int64_t*>(p(count)), p(in), nullptr, n, DType::u8, CompactMode::nonzero,
             static_cast<std::int64_t*>(p(idx)));
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  std::int64_t kept = 0;
  driver::check(d.cuMemcpyDtoH(&kept, count.get(), 8), "cuMemcpyDtoH");
  ASSERT_EQ(kept, expected);
  std::vector<unsigned char> got(static_cast<std::size_t>(kept));
  std::vector<std::int64_t> got_idx(got.size());
  driver::check(d.cuMemcpyDtoH(got.data(), out.get(), got.size()), "cuMemcpyDtoH");
  driver::check(d.cuMemcpyDtoH(got_idx.data(), idx.get(), got.size() * 8), "cuMemcpyDtoH");
  std::size_t k = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!kept_at(i)) continue;
    ASSERT_EQ(got_idx[k], i) << "kept element " << k;
    ASSERT_EQ(got[k], host[static_cast<std::size_t>(i)]) << "kept element " << k;
    ++k;
  }
  EXPECT_GT(got_idx.back(), std::int64_t{1} << 31);
}

}  // namespace
}  // namespace ktune
