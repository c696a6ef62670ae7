#pragma once
// A sparse matrix in CSR on the host: what the tuner reads from a matrix file or
// synthesizes, and what a problem's key is computed from.
#include <ktune/dtype.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

struct CsrMatrix {
  std::int64_t rows = 0, cols = 0;
  DType dtype = DType::f32;
  std::vector<std::int32_t> offsets;  // rows + 1, from 0 to nnz
  std::vector<std::int32_t> indices;  // nnz column indices, strictly increasing in each row
  std::vector<unsigned char> values;  // nnz elements of dtype (empty: structure only)
  std::int64_t nnz() const { return offsets.empty() ? 0 : offsets.back(); }
};

// What decides a product's speed besides the dtype, and so a record's key (its shape,
// in this order): rows, cols, nonzeros, the longest row, and the spread of the row
// lengths (their coefficient of variation, stddev / mean) as a class: 1 below 0.5
// (stencils, banded), 2 below 2, 3 below 8, 4 from 8 (power laws, a few dense rows).
// Every field is at least 1 for a matrix with nonzeros (records hold positive sizes).
struct SparseShape {
  std::int64_t rows = 0, cols = 0, nnz = 0, max_row = 0, spread = 1;
  std::vector<std::int64_t> key() const { return {rows, cols, nnz, max_row, spread}; }
};
SparseShape sparse_shape(const CsrMatrix& m);
std::int64_t spread_class(double coefficient_of_variation);

// Why the matrix cannot be used, or nullopt: sizes (rows and cols from 1 to 2^31 - 1,
// nnz below 2^31), offsets that do not start at 0, decrease or end elsewhere than nnz,
// column indices outside [0, cols), and indices not strictly increasing in a row
// (unsorted or duplicate entries: sort and sum them first, as torch's coalesce()).
std::optional<std::string> csr_problem(const CsrMatrix& m);

}  // namespace ktune
