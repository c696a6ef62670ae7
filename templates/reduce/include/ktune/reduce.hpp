#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/dtype.hpp>
#include <ktune/launch_info.hpp>
#include <ktune/reduce_op.hpp>

#include <cstdint>

namespace ktune {

// The reduction families' calls.
// ktune::Runtime derives from this class (see <ktune/ktune.hpp>): call them as
// rt.reduce(...), rt.reduce_rows(...), rt.reduce_cols(...).
class ReduceCalls {
 public:
  // *out = op over in[0..n): sum, max, min or mean. The result is float for f32, f16
  // and bf16 inputs (their accumulator) and double for f64. Deterministic: the same
  // config on the same input gives the same bits (no atomics on values). Throws
  // ktune::Error on bad arguments (nothing launched). Calls on one stream share a
  // small workspace; calls on different streams get their own.
  const LaunchInfo& reduce(void* out, const void* in, std::int64_t n, ReduceOp op, DType dtype, Stream stream = nullptr);
  // out[r] = op over row r of in (rows x cols, pitch ld elements), results typed as
  // for reduce(); what softmax and layernorm reduce.
  const LaunchInfo& reduce_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                ReduceOp op, DType dtype, Stream stream = nullptr);
  // out[c] = op over column c of in (rows x cols, pitch ld elements), results typed as
  // for reduce().
  const LaunchInfo& reduce_cols(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                ReduceOp op, DType dtype, Stream stream = nullptr);

 protected:
  ReduceCalls() = default;
  ~ReduceCalls() = default;
};

}  // namespace ktune
