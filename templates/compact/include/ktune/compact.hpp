#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/compact_mode.hpp>
#include <ktune/dtype.hpp>
#include <ktune/launch_info.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace ktune {

// A compaction by a predicate (CompactCalls::compact_if): keeps the elements of in for
// which the predicate holds, as compact() does for flags (out, count, indices alike).
class CompactIf {
 public:
  const LaunchInfo& operator()(void* out, std::int64_t* count, const void* in, std::int64_t n,
                               std::int64_t* indices = nullptr, Stream stream = nullptr) const;
  // The key the tuner stores winners under (with "predicate:"), e.g. "o0=(i0>0)".
  std::string normalized() const;

  struct State;

 private:
  friend class CompactCalls;
  explicit CompactIf(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// The compact family's calls. ktune::Runtime derives from this class: rt.compact(...),
// rt.compact_if(...).
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
  // A compaction by a predicate in the elementwise expression language, one input and
  // one output (`keep = x > 0 && x < 3`), on dtype elements. Throws ktune::Error on an
  // expression that does not parse (its column) or an unsupported dtype. Tune it with
  // `ktune tune compact --mode predicate --predicate EXPR`. Must not outlive the Runtime.
  CompactIf compact_if(const std::string& predicate, DType dtype);

 protected:
  CompactCalls() = default;
  ~CompactCalls() = default;
};

}  // namespace ktune
