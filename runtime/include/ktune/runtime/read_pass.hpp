#pragma once
#include <ktune/runtime/device.hpp>

#include <cstddef>
#include <memory>

namespace ktune {

// A kernel that reads every 16 bytes of a buffer once and writes nothing that matters:
// the cheapest pass that touches them all. The L2 flush reads twice the L2 with it; a
// harness whose kernels only read may time it on their input as their ceiling.
class ReadPass {
 public:
  explicit ReadPass(const DeviceInfo& device);  // compiles it, in the current context
  // Reads the bytes / 16 16-byte words at p (16-byte aligned) with blocks x threads.
  void enqueue(CUstream stream, CUdeviceptr p, std::size_t bytes, unsigned blocks, unsigned threads) const;

 private:
  DeviceBuffer sink_;
  std::unique_ptr<Module> module_;
  CUfunction kernel_ = nullptr;
};

}  // namespace ktune
