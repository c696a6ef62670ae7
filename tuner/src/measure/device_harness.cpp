#include <ktune/tuner/harness.hpp>

namespace ktune {

DeviceHarness::DeviceHarness(const DeviceInfo& device) : context_(device.device), sm_count_(device.fingerprint.sm_count) {
  driver::check(driver::api().cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

DeviceHarness::~DeviceHarness() {
  timer_.reset();
  driver::api().cuStreamDestroy(stream_);
}

void DeviceHarness::start_timer(const DeviceInfo& device, const TimingProtocol& protocol) {
  timer_ = std::make_unique<Timer>(device, stream_, protocol);
}

TimingStats DeviceHarness::time_copy_ceiling() {
  const std::size_t half = ceiling_copy_bytes(bytes_moved());
  DeviceBuffer a(half), b(half);
  driver::check(driver::api().cuMemsetD8(a.get(), 0x5a, half), "cuMemsetD8");
  return timer().measure(
      [&] { driver::check(driver::api().cuMemcpyDtoDAsync(b.get(), a.get(), half, stream_), "cuMemcpyDtoDAsync"); });
}

}  // namespace ktune
