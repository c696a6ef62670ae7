#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/dtype.hpp>
#include <ktune/launch_info.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace ktune {

// A CSR matrix in device memory, checked once, with the statistics its products are
// keyed by (rows, cols, nnz, the longest row, the spread class of the row lengths). It
// refers to the caller's arrays, which must outlive it and stay unchanged.
class SpmvMatrix {
 public:
  std::int64_t rows() const;
  std::int64_t cols() const;
  std::int64_t nnz() const;
  DType dtype() const;
  // {rows, cols, nnz, longest row, spread class 1..4}: the key of its records.
  std::vector<std::int64_t> key() const;

  struct State;

 private:
  friend class SpmvCalls;
  explicit SpmvMatrix(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
};

// The spmv family's calls. ktune::Runtime derives from this class: rt.spmv_matrix(...),
// rt.spmv(...).
class SpmvCalls {
 public:
  // A matrix from its CSR arrays in device memory: rows + 1 row offsets and nnz column
  // indices (i32), nnz values of dtype (f32, f64, f16, bf16). Copies the offsets and
  // indices to the host once, to check them and compute the key (synchronizes `stream`):
  // offsets from 0, never decreasing, ending at nnz; indices in [0, cols) and strictly
  // increasing in each row (sort and sum duplicates first). Throws ktune::Error on any
  // of that, on null or misaligned pointers, and on sizes outside 1..2^31 - 1.
  SpmvMatrix spmv_matrix(const void* offsets, const void* indices, const void* values, std::int64_t rows,
                         std::int64_t cols, std::int64_t nnz, DType dtype, Stream stream = nullptr);
  // y = alpha A x + beta y (beta 0: y is not read), x of cols and y of rows elements of
  // the matrix's dtype; f16 and bf16 accumulate in f32. Runs the winner stored for the
  // matrix's key (else the nearest, the model's pick or the default, as every call).
  // Throws ktune::Error on null or misaligned x or y, or y overlapping x or the matrix.
  const LaunchInfo& spmv(const SpmvMatrix& a, void* y, const void* x, double alpha = 1, double beta = 0,
                         Stream stream = nullptr);

 protected:
  SpmvCalls() = default;
  ~SpmvCalls() = default;
};

}  // namespace ktune
