#pragma once
// A user's kernel's outputs checked on the device: every element against the reference's
// within the tolerance, and the guard bytes past the output untouched. Only counts, the
// first few mismatches (index, got, want) and the norms come back to the host, so a
// check of 256 MB costs about a read of it instead of a copy to the host and a CPU loop.
#include <ktune/dtype.hpp>
#include <ktune/runtime/device.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

// The CUDA source of the check and norm kernels (no headers needed), for compile tests.
const char* output_check_source();
std::vector<std::string> output_check_kernels();

class OutputCheck {
 public:
  OutputCheck(const DeviceInfo& device, CUstream stream);
  ~OutputCheck();

  // |got - want| <= abs + rel |want| + ulp ulp(want); exact: the same bits (or both NaN).
  struct Bounds {
    bool exact = true;
    double abs = 0, rel = 0, ulp = 0;
  };
  struct Mismatch {
    std::size_t index;
    double got, want;
  };
  struct Result {
    std::size_t wrong = 0;
    std::vector<Mismatch> first;         // the first (lowest-index) few, when wrong > 0
    std::optional<std::size_t> guard;    // the first guard byte written, if any
  };
  // got and want hold `count` elements of `dtype`; got is followed by `guard_bytes` (at
  // most 256) bytes that must all still be `guard_byte`. Synchronizes the stream.
  Result check(DType dtype, CUdeviceptr got, CUdeviceptr want, std::size_t count, const Bounds& bounds,
               std::size_t guard_bytes, unsigned char guard_byte);

  struct Norms {
    double rms = 0, max_abs = 0;  // over the finite elements
  };
  Norms norms(DType dtype, CUdeviceptr values, std::size_t count);

 private:
  struct Kernels;
  std::unique_ptr<Kernels> kernels_;
  CUstream stream_;
  DeviceBuffer results_;  // 3 x u64: wrong, first index, first guard byte; then the norms
  unsigned blocks_;
};

}  // namespace ktune
