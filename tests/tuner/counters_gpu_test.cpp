// Counters on the device: a user's kernel (y = 2 x over 256 MiB, more than any L2)
// collected with CUPTI's range profiler. The DRAM bytes it reads and writes are the
// array's within 5%, two collections agree, the replays leave a correct result, and a
// forced refusal is a null session with the reason. SKIPPED where CUPTI is missing or
// counters are restricted (said why). A kernel that faults in a pass is a ktune::Error
// naming the failure, never a signal (in a child process: the fault ends the context).
#include "gpu_test_support.hpp"

#include <ktune/ktune.hpp>
#include <ktune/runtime/launch.hpp>
#include <ktune/tuner/counters.hpp>

#include <cstdlib>

namespace ktune {
namespace {

const std::string k_scale = std::string(KTUNE_TEST_DATA_DIR) + "/user_kernels/scale.cu";
constexpr std::int64_t k_n = std::int64_t(1) << 26;  // floats: 256 MiB in, 256 MiB out

class CountersGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    KTUNE_REQUIRE_GPU();
    dev_ = query_device_ordinal(0);
    ctx_ = std::make_unique<PrimaryContext>(dev_.device);
  }
  DeviceInfo dev_;
  std::unique_ptr<PrimaryContext> ctx_;
};

TEST_F(CountersGpu, DramBytesOfACopyAreTheArraysAndReplaysLeaveTheResult) {
  std::string why;
  const auto session = CounterSession::open(0, ctx_->get(), default_counter_metrics(), why);
  if (!session) GTEST_SKIP() << "counters unavailable: " << why;
  EXPECT_GE(session->passes(), 1u);
  const std::string dir = ::testing::TempDir() + "ktune-counters-" + std::to_string(getpid());
  Runtime rt({dir + "/tuning.db", false});
  const Kernel k = rt.kernel(k_scale, "scale", {"float"});
  DeviceBuffer x(k_n * 4), y(k_n * 4 + 16);
  std::vector<float> in(static_cast<std::size_t>(k_n));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1013) - 500.0f;
  driver::check(driver::api().cuMemcpyHtoD(x.get(), in.data(), x.size()), "cuMemcpyHtoD");
  driver::check(driver::api().cuMemsetD8(y.get(), 0xff, y.size()), "cuMemsetD8");  // poisoned
  const auto launch = [&] {
    k.launch(Stream{}, {{"n", k_n}}, reinterpret_cast<void*>(y.get()), reinterpret_cast<const void*>(x.get()), k_n);
  };
  launch();  // compiled and loaded outside the collection
  driver::check(driver::api().cuCtxSynchronize(), "cuCtxSynchronize");
  const CounterValues a = session->collect(launch), b = session->collect(launch);
  const double bytes = static_cast<double>(k_n) * 4;
  for (const auto* v : {&a, &b}) {
    EXPECT_NEAR(v->at("dram__bytes_read.sum"), bytes, 0.05 * bytes);
    EXPECT_NEAR(v->at("dram__bytes_write.sum"), bytes, 0.05 * bytes);
    EXPECT_GT(v->at("gpu__time_duration.sum"), 0);
    EXPECT_GT(v->at("sm__cycles_elapsed.avg.per_second"), 1e8) << "an SM clock under 100 MHz";
  }
  EXPECT_NEAR(a.at("dram__bytes_read.sum"), b.at("dram__bytes_read.sum"), 0.02 * bytes);
  std::vector<float> out(in.size());
  driver::check(driver::api().cuMemcpyDtoH(out.data(), y.get(), x.size()), "cuMemcpyDtoH");
  for (std::size_t i = 0; i < out.size(); ++i)
    if (out[i] != 2 * in[i]) {
      ADD_FAILURE() << "element " << i << ": " << out[i] << " instead of " << 2 * in[i] << " after the replays";
      break;
    }
}

TEST_F(CountersGpu, AForcedRefusalIsANullSessionWithTheReason) {
  setenv("KTUNE_COUNTERS_REFUSED", "1", 1);
  std::string why;
  const auto session = CounterSession::open(0, ctx_->get(), default_counter_metrics(), why);
  unsetenv("KTUNE_COUNTERS_REFUSED");
  EXPECT_EQ(session, nullptr);
  EXPECT_NE(why.find("ERR_NVGPUCTRPERM"), std::string::npos) << why;
}

TEST_F(CountersGpu, AMetricTheChipLacksIsANullSessionNamingIt) {
  std::string why;
  const auto session = CounterSession::open(0, ctx_->get(), {"dram__bytes_read.sum", "dram__bytez_read.sum"}, why);
  EXPECT_EQ(session, nullptr);
  if (why.find("CUPTI") != std::string::npos && why.find("has no metric") == std::string::npos)
    GTEST_SKIP() << "counters unavailable: " << why;
  EXPECT_NE(why.find("has no metric 'dram__bytez_read.sum'"), std::string::npos) << why;
}

// In the child: a pass whose kernel traps. Exit 0 with the error text on stderr when
// collect throws ktune::Error.
void collect_a_faulting_kernel() {
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  std::string why;
  const auto session = CounterSession::open(0, ctx.get(), {"gpu__time_duration.sum"}, why);
  if (!session) std::exit(3);
  const LoadedSpace loaded = compile_and_load(
      "extern \"C\" __global__ void faulting(const int* armed) { if (*armed) __trap(); }", {"faulting"}, dev.arch, "test");
  DeviceBuffer armed(4);
  const int one = 1;
  driver::check(driver::api().cuMemcpyHtoD(armed.get(), &one, 4), "cuMemcpyHtoD");
  try {
    session->collect([&] {
      KernelParams<DevicePtr>::launch(loaded.functions.at(0), LaunchShape::linear(1, 32), nullptr, "faulting",
                                      DevicePtr{armed.get()});
    });
  } catch (const Error& e) {
    std::fprintf(stderr, "collect threw: %s\n", e.what());
    std::exit(0);
  }
  std::exit(1);
}

TEST(CountersGpuDeathTest, AKernelThatFaultsInAPassIsAnErrorNotASignal) {
  KTUNE_REQUIRE_GPU();
  {
    PrimaryContext ctx(query_device_ordinal(0).device);
    std::string why;
    if (!CounterSession::open(0, ctx.get(), {"gpu__time_duration.sum"}, why)) GTEST_SKIP() << "counters unavailable: " << why;
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child starts afresh: no CUDA state inherited
  EXPECT_EXIT(collect_a_faulting_kernel(), ::testing::ExitedWithCode(0), "collect threw: .*(cuCtxSynchronize|trap|illegal)");
}

}  // namespace
}  // namespace ktune
