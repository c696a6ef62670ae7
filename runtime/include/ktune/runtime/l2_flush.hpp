#pragma once
#include <ktune/runtime/read_pass.hpp>

namespace ktune {

// Evicts the L2 by reading a buffer of twice its size. A read, not a memset: the L2
// is left holding clean lines, so the next kernel pays no write-back of the flush.
// Shared by the tuner's cold timing and Runtime::flush_l2, so an application times
// ktune's kernels exactly as the tuner did.
class L2Flush {
 public:
  explicit L2Flush(const DeviceInfo& device);  // in the current context
  void enqueue(CUstream stream) const;

 private:
  DeviceBuffer buffer_;
  ReadPass read_;
  unsigned blocks_;
};

}  // namespace ktune
