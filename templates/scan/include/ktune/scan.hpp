#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/dtype.hpp>
#include <ktune/launch_info.hpp>
#include <ktune/scan_op.hpp>

#include <cstdint>

namespace ktune {

// The scan family's calls. ktune::Runtime derives from this class: call them as
// rt.scan(...) and rt.scan_rows(...).
class ScanCalls {
 public:
  // out[i] = in[0] op ... op in[i] (inclusive), or in[0] op ... op in[i-1] (exclusive;
  // out[0] is the op's identity: 0, the lowest or the highest value), for n >= 1
  // elements of f32, f64, i32, i64, or f16/bf16 read and scanned in f32. out has the
  // scan's type (f32 for f16/bf16 input, else the input's); out == in scans in place;
  // any other overlap is refused. One pass over the data (decoupled look-back); integer
  // results are exact and reproducible. Throws ktune::Error on bad arguments (nothing
  // launched). Calls on one stream share a small workspace.
  const LaunchInfo& scan(void* out, const void* in, std::int64_t n, ScanOp op, DType dtype, bool exclusive = false,
                         Stream stream = nullptr);
  // Each row of in (rows x cols, pitch ld_in elements) scanned on its own into out
  // (pitch ld_out), as torch.cumsum(x, dim=-1); types, in place and errors as scan().
  const LaunchInfo& scan_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld_out,
                              std::int64_t ld_in, ScanOp op, DType dtype, bool exclusive = false,
                              Stream stream = nullptr);

 protected:
  ScanCalls() = default;
  ~ScanCalls() = default;
};

}  // namespace ktune
