// The timing protocol on the device: batching of short kernels, cold vs hot.
#include "gpu_test_support.hpp"

#include <ktune/generator/transpose_family.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/runtime/transpose_launch.hpp>
#include <ktune/tuner/transpose_harness.hpp>

namespace ktune {
namespace {

struct Kernel {
  std::unique_ptr<Module> module;
  CUfunction function = nullptr;
  Instance instance;
};

Kernel compile_default(const DeviceInfo& dev, const Problem& problem) {
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  Kernel k;
  k.instance = instantiate(spec, transpose_default_config(spec), dev.limits, problem);
  const CompileOutput out = compile_cubin(spec.source(), {k.instance.name_expression}, dev.arch, "transpose");
  k.module = std::make_unique<Module>(out.cubin, "timing test");
  k.function = k.module->function(out.lowered_names.front());
  prepare_function(k.function, k.instance);
  return k;
}

TEST(TimingGpu, ShortKernelsAreBatchedAndLongOnesAreNot) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  for (bool cold : {true, false}) {
    TimingProtocol protocol;
    protocol.cold = cold;
    TransposeHarness small(dev, DType::f32, 256, 256, protocol);  // 0.5 MB: a few microseconds
    const Kernel k = compile_default(dev, small.problem());
    ASSERT_FALSE(small.verify(k.function, k.instance));
    const auto launch = [&] { small.launch(k.function, k.instance); };
    const TimingStats batched = small.timer().measure(launch);
    EXPECT_GT(batched.batch, 1) << "cold " << cold;
    EXPECT_GT(batched.median_us, 0.0);
    EXPECT_LT(batched.median_us, protocol.batch_below_us);
    // One launch between events pays the event resolution and launch gaps that the
    // graph amortizes: it cannot be faster than the batched figure by more than noise.
    const TimingStats single = summarize(small.timer().sample(launch, 30, 1));
    EXPECT_GT(single.median_us, batched.median_us * 0.8) << "cold " << cold;
  }
  TransposeHarness big(dev, DType::f32, 8192, 4096, TimingProtocol{});  // 256 MB moved: ~70 us
  const Kernel k = compile_default(dev, big.problem());
  const TimingStats t = big.timer().measure([&] { big.launch(k.function, k.instance); });
  EXPECT_EQ(t.batch, 1);
  EXPECT_GT(t.median_us, 20.0);
}

}  // namespace
}  // namespace ktune
