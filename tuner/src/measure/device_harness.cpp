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

}  // namespace ktune
