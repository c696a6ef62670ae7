// The elementwise family on the device: every config of several expressions and
// dtypes verified at odd n against the float64 reference (fresh random inputs,
// poisoned outputs), and the public API with misaligned pointers, in place, stored
// winners and bad input.
#include "gpu_test_support.hpp"
#include "test_support.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/device.hpp>
#include <elementwise/elementwise_harness.hpp>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>

namespace ktune {
namespace {


struct OpCase {
  const char* expr;
  DType in, out;
  std::vector<std::string> scalar_names;
  std::vector<double> scalars;
};

TEST(ElementwiseGpu, EveryConfigVerifiedAtOddSizes) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  const KernelSpec& spec = KernelSpec::builtin("elementwise");
  const OpCase ops[] = {
      {"out = a * b + c", DType::f32, DType::f32, {}, {}},
      {"add", DType::f16, DType::f16, {}, {}},
      {"add", DType::bf16, DType::bf16, {}, {}},
      {"y = alpha * x + y", DType::f64, DType::f64, {"alpha"}, {0.75}},
      {"cast", DType::f32, DType::f16, {}, {}},
      {"cast", DType::f16, DType::f32, {}, {}},
      {"relu", DType::f32, DType::f32, {}, {}},
      {"s = a + b; d = a > 0 ? sigmoid(a) * b : exp(b) - sqrt(abs(a))", DType::f32, DType::f32, {}, {}},
  };
  const std::int64_t sizes[] = {1, 3, 17, 1000, 4097, 1000003};
  std::size_t verified = 0;
  for (const auto& oc : ops) {
    const ElementwiseOp op = make_elementwise_op(oc.expr, oc.in, oc.out, oc.scalar_names);
    // Configs and their compiled functions do not depend on n; geometry does.
    const std::int64_t align = 16 / std::max(size_of(op.in), size_of(op.out));
    const auto configs = enumerate(spec, dev.limits, elementwise_problem(op, 1 << 20, align));
    ASSERT_GE(configs.size(), 100u) << oc.expr;
    std::vector<std::string> names;
    for (const auto& c : configs)
      names.push_back(instantiate(spec, c, dev.limits, elementwise_problem(op, 1 << 20, align), k_elementwise_op_type)
                          .name_expression);
    const std::string source = spec.source() + elementwise_op_source(op);
    PrimaryContext ctx(dev.device);
    const LoadedSpace loaded = compile_and_load(source, names, dev.arch, "elementwise");
    const auto& functions = loaded.functions;
    for (const std::int64_t n : sizes) {
      ElementwiseHarness h(dev, op, n, oc.scalars, TimingProtocol{});
      std::size_t failed = 0;
      for (std::size_t i = 0; i < configs.size(); ++i) {
        if (!functions[i]) continue;  // its compile failure is reported
        const Instance inst = instantiate(spec, configs[i], dev.limits, h.problem(), k_elementwise_op_type);
        if (const auto wrong = h.verify(functions[i], inst)) {
          if (++failed <= 3) ADD_FAILURE() << oc.expr << " n=" << n << " " << config_to_string(spec, configs[i]) << ": " << *wrong;
        }
        ++verified;
      }
      EXPECT_EQ(failed, 0u) << oc.expr << " " << to_string(oc.in) << " n=" << n;
    }
  }
  std::printf("verified %zu (config, expression, n) combinations\n", verified);
  EXPECT_GE(verified, 8u * 6u * 100u);
}

class ElementwiseRuntimeGpu : public GpuRuntimeTest {
 protected:
  static std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i * 7 + seed)) * 2 + 0.25f;
    return v;
  }
  static void upload(CUdeviceptr p, const std::vector<float>& v) {
    driver::check(driver::api().cuMemcpyHtoD(p, v.data(), v.size() * 4), "cuMemcpyHtoD");
  }
  static std::vector<float> download(CUdeviceptr p, std::size_t n) {
    std::vector<float> v(n);
    driver::check(driver::api().cuCtxSynchronize(), "sync");
    driver::check(driver::api().cuMemcpyDtoH(v.data(), p, n * 4), "cuMemcpyDtoH");
    return v;
  }
};

TEST_F(ElementwiseRuntimeGpu, MisalignedPointersGetAValidConfig) {
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  const auto add = rt.elementwise("add", DType::f32);
  const std::size_t n = 100003;
  DeviceBuffer a(n * 4 + 64), b(n * 4 + 64), out(n * 4 + 64);
  const auto x = random_floats(n, 1), y = random_floats(n, 2);
  for (std::size_t offset : {0, 1, 2, 3}) {
    upload(a.get() + offset * 4, x);
    upload(b.get(), y);
    driver::check(driver::api().cuMemsetD8(out.get(), 0xA5, out.size()), "memset");
    void* o = reinterpret_cast<void*>(out.get() + 4 * ((offset + 1) % 4));
    const LaunchInfo& info =
        add({o}, {reinterpret_cast<const void*>(a.get() + offset * 4), reinterpret_cast<const void*>(b.get())},
            static_cast<std::int64_t>(n));
    EXPECT_EQ(info.match, MatchLevel::fallback);
    const auto got = download(out.get() + 4 * ((offset + 1) % 4), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], x[i] + y[i]) << "offset " << offset << " i " << i;
  }
}

TEST_F(ElementwiseRuntimeGpu, InPlaceAxpyWithAStoredWinner) {
  // A stored record with vec 4 and a grid-stride loop: the exact level must launch it.
  const std::string db = (dir_ / "tuning.db").string();
  Runtime rt(Runtime::Options{db, false});
  auto axpy = rt.elementwise("y = alpha * x + y", DType::f32, DType::f32, {"alpha"});
  const std::int64_t n = 1 << 20;
  {
    TuningRecord r;
    r.device_key = dev_.fingerprint.key();
    r.family = "elementwise";
    r.variant = axpy.normalized();
    r.dtype = "f32";
    r.shape = {n};
    r.align = 4;
    r.config = {{"vec", 4}, {"items", 2}, {"block", 128}, {"grid_stride", 1}, {"waves", 2}};
    r.template_hash = KernelSpec::builtin("elementwise").source_hash();
    r.median_us = 1;
    Database(db).put(r);
  }
  DeviceBuffer x(n * 4), y(n * 4);
  const auto hx = random_floats(n, 3), hy = random_floats(n, 4);
  upload(x.get(), hx);
  upload(y.get(), hy);
  const LaunchInfo& info = axpy({reinterpret_cast<void*>(y.get())},
                                {reinterpret_cast<const void*>(x.get()), reinterpret_cast<const void*>(y.get())}, n,
                                nullptr, {2.5});
  EXPECT_EQ(info.match, MatchLevel::exact);
  EXPECT_EQ(info.config, "vec=4 items=2 block=128 grid_stride=1 waves=2");
  const auto got = download(y.get(), static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_FLOAT_EQ(got[i], std::fma(2.5f, hx[i], hy[i])) << i;
  // A call with misaligned pointers does not get the stored vec 4 config.
  const LaunchInfo& odd = axpy({reinterpret_cast<void*>(y.get() + 4)},
                               {reinterpret_cast<const void*>(x.get() + 4), reinterpret_cast<const void*>(y.get() + 4)},
                               n - 1, nullptr, {1.0});
  EXPECT_NE(odd.match, MatchLevel::exact);
  EXPECT_NE(odd.config.find("vec=1"), std::string::npos) << odd.config;
}

TEST_F(ElementwiseRuntimeGpu, BadInputLaunchesNothing) {
  Runtime rt(Runtime::Options{(dir_ / "tuning.db").string(), false});
  const auto fma = rt.elementwise("out = a * b + c", DType::f32);
  const std::size_t n = 4096;
  DeviceBuffer a(n * 4), b(n * 4), c(n * 4), out(n * 4);
  driver::check(driver::api().cuMemsetD8(out.get(), 0xA5, out.size()), "memset");
  const auto p = [](const DeviceBuffer& d, std::size_t off = 0) { return reinterpret_cast<void*>(d.get() + off); };
  expect_error([&] { fma({p(out)}, {p(a), p(b), p(c)}, 0); }, "n must be positive");
  expect_error([&] { fma({p(out)}, {p(a), nullptr, p(c)}, n); }, "null input pointer");
  expect_error([&] { fma({p(out)}, {p(a), p(b)}, n); }, "expects 3 input pointer(s), got 2");
  expect_error([&] { fma({p(a, 8)}, {p(a), p(b), p(c)}, n); }, "partially overlaps");
  expect_error([&] { fma({p(out, 2)}, {p(a), p(b), p(c)}, n); }, "output pointer not aligned");
  expect_error([&] { fma({p(out)}, {p(a), p(b), p(c)}, n, nullptr, {1.0}); }, "expects 0 scalar(s), got 1");
  expect_error([&] { rt.elementwise("out = a +", DType::f32); }, "unexpected end of the expression");
  expect_error([&] { rt.elementwise("add", DType::i32); }, "dtype i32 is not supported");
  const auto untouched = download(out.get(), n);
  std::uint32_t bits;
  std::memcpy(&bits, &untouched[0], 4);
  EXPECT_EQ(bits, 0xA5A5A5A5u);
  for (float v : untouched) ASSERT_EQ(std::memcmp(&v, &untouched[0], 4), 0);
}

}  // namespace
}  // namespace ktune
