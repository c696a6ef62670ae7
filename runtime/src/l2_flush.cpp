#include <ktune/runtime/l2_flush.hpp>

#include <algorithm>

namespace ktune {

L2Flush::L2Flush(const DeviceInfo& device)
    : buffer_(static_cast<std::size_t>(std::max<std::int64_t>(device.fingerprint.l2_bytes, 1 << 20)) * 2),
      read_(device),
      blocks_(static_cast<unsigned>(device.fingerprint.sm_count * 4)) {
  driver::check(driver::api().cuMemsetD8(buffer_.get(), 0x5a, buffer_.size()), "cuMemsetD8", "L2 flush buffer");
}

void L2Flush::enqueue(CUstream stream) const { read_.enqueue(stream, buffer_.get(), buffer_.size(), blocks_, 512); }

}  // namespace ktune
