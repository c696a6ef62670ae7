#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/dtype.hpp>
#include <ktune/launch_info.hpp>

#include <cstdint>

namespace ktune {

// The transpose family's call.
// ktune::Runtime derives from this class (see <ktune/ktune.hpp>): call it as rt.transpose(...).
class TransposeCalls {
 public:
  // dst (cols x rows, pitch ld_dst) = transpose of src (rows x cols, pitch ld_src),
  // pitches in elements. Throws ktune::Error on invalid arguments (nothing launched).
  // A stored config that needs wider alignment than these pointers/pitches have is
  // never launched: the nearest valid tuned config, or the safe default, is.
  // The returned reference stays valid as long as the Runtime.
  const LaunchInfo& transpose(void* dst, const void* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_dst,
                       std::int64_t ld_src, DType dtype, Stream stream = nullptr);

 protected:
  TransposeCalls() = default;
  ~TransposeCalls() = default;
};

// transpose() on default_runtime().
const LaunchInfo& transpose(void* dst, const void* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_dst,
                            std::int64_t ld_src, DType dtype, Stream stream = nullptr);

}  // namespace ktune
