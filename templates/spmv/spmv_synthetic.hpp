#pragma once
// Synthetic matrices of given statistics: what the tuner tunes without a matrix file,
// and how a stored record maps back to a matrix.
#include <spmv/spmv_matrix.hpp>

namespace ktune {

// A matrix with `shape`'s rows, cols and nnz, its longest row max_row (0: as even as
// possible) and row lengths spread as near its class as a two-level mix of lengths gets:
// rows of max_row at random positions, the others even; each row's columns spread over
// the columns with random jitter. Structure only (no values). Throws ktune::Error when
// the statistics cannot hold (max_row above cols, nnz above rows x max_row, ...).
CsrMatrix synthetic_csr(const SparseShape& shape, DType dtype, std::uint64_t seed);

}  // namespace ktune
