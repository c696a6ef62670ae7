#include <ktune/tuner/harness.hpp>

#include <ktune/error.hpp>

#include <unistd.h>

#include <chrono>

namespace ktune {
namespace {

std::string gb(double b) { return std::to_string(static_cast<long long>(b / 1e9 + 0.5)) + " GB"; }

}  // namespace

void require_memory(const std::string& what, double device_bytes, double host_bytes, double share) {
  std::size_t free = 0, total = 0;
  driver::check(driver::api().cuMemGetInfo(&free, &total), "cuMemGetInfo");
  const double phys = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (device_bytes > share * static_cast<double>(free))
    throw Error(what + " needs " + gb(device_bytes) + " of GPU memory to tune (" + gb(static_cast<double>(free)) +
                " free)");
  if (host_bytes > 0.8 * phys) throw Error(what + " needs " + gb(host_bytes) + " of host memory to verify (" + gb(phys) + ")");
}

std::uint64_t fresh_seed() {
  return static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
}

DeviceBuffer upload(const void* host, std::size_t bytes, std::size_t slack) {
  DeviceBuffer buffer(bytes + slack);
  driver::check(driver::api().cuMemcpyHtoD(buffer.get(), host, bytes), "cuMemcpyHtoD");
  return buffer;
}

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

void DeviceHarness::poison(const DeviceBuffer& buffer) {
  driver::check(driver::api().cuMemsetD8Async(buffer.get(), 0xFF, buffer.size(), stream_), "cuMemsetD8Async");
}

}  // namespace ktune
