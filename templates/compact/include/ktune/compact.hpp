#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/compact_mode.hpp>
#include <ktune/dtype.hpp>
#include <ktune/launch_info.hpp>

#include <cstdint>

namespace ktune {

// The compact family's call. ktune::Runtime derives from this class: rt.compact(...).
class CompactCalls {
 public:
  // Stream compaction (torch.masked_select, and torch.nonzero with indices): out gets,
  // densely and in order, each in[i] with flags[i] != 0 (mode flags; flags are n bytes)
  // or with in[i] != 0 (mode nonzero; flags unused, may be null); indices, when not null,
  // gets their positions (int64); *count (an int64 in device memory) how many were kept.
  // out and indices hold up to n elements; nothing past the count is written. One pass
  // (decoupled look-back); the host is not synchronized (read count on the stream).
  // dtypes f32, f64, f16, bf16, i32, i64, u8. Throws ktune::Error on bad arguments
  // (nothing launched), including overlapping buffers.
  const LaunchInfo& compact(void* out, std::int64_t* count, const void* in, const void* flags, std::int64_t n,
                            DType dtype, CompactMode mode = CompactMode::flags, std::int64_t* indices = nullptr,
                            Stream stream = nullptr);

 protected:
  CompactCalls() = default;
  ~CompactCalls() = default;
};

}  // namespace ktune
