#pragma once
#include <ktune/runtime/device.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ktune {

// What cuMemcpy2DAsync does for a device-to-device copy into a 16-byte-aligned pitch, by a
// kernel: each thread writes 16 bytes of a destination row, read element by element from
// a source of any alignment. (The copy engine moved misaligned GEMM operands at about 1.3
// TB/s on an H200: up to half of a small GEMM's time.)
class PitchedCopy {
 public:
  explicit PitchedCopy(const DeviceInfo& device);  // compiles it, in the current context
  // rows x width_bytes from src (pitch src_pitch, aligned to elem_bytes: 1, 2, 4 or 8) to
  // dst (16-byte aligned, pitch a multiple of 16 and at least width_bytes); dst's bytes
  // past width_bytes in a row are left as they were. Throws InvalidArgument otherwise.
  void enqueue(CUstream stream, CUdeviceptr dst, std::size_t dst_pitch, CUdeviceptr src, std::size_t src_pitch,
               std::size_t rows, std::size_t width_bytes, std::size_t elem_bytes) const;
  // Its CUDA source and kernel names (for 1, 2, 4 and 8-byte elements), as NVRTC compiles them.
  static const char* source();
  static const std::vector<std::string>& kernel_names();

 private:
  std::unique_ptr<Module> module_;
  CUfunction kernels_[4] = {};  // by element size: 1, 2, 4, 8 bytes
};

}  // namespace ktune
