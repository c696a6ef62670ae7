#include <spmv/spmv_matrix.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune {
namespace {

constexpr std::int64_t k_int_max = std::numeric_limits<std::int32_t>::max();

}  // namespace

std::int64_t spread_class(double cv) { return cv < 0.5 ? 1 : cv < 2 ? 2 : cv < 8 ? 3 : 4; }

SparseShape sparse_shape(const CsrMatrix& m) {
  SparseShape s{m.rows, m.cols, m.nnz(), 0, 1};
  const double mean = static_cast<double>(s.nnz) / static_cast<double>(m.rows);
  double squares = 0;
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const std::int64_t len = m.offsets[static_cast<std::size_t>(r + 1)] - m.offsets[static_cast<std::size_t>(r)];
    s.max_row = std::max(s.max_row, len);
    squares += (static_cast<double>(len) - mean) * (static_cast<double>(len) - mean);
  }
  s.spread = mean > 0 ? spread_class(std::sqrt(squares / static_cast<double>(m.rows)) / mean) : 1;
  return s;
}

std::optional<std::string> csr_problem(const CsrMatrix& m) {
  if (m.rows < 1 || m.rows >= k_int_max || m.cols < 1 || m.cols > k_int_max)
    return "rows must be 1 to 2^31 - 2 and cols 1 to 2^31 - 1";
  if (m.offsets.size() != static_cast<std::size_t>(m.rows + 1)) return "the row offsets are not rows + 1";
  if (m.offsets[0] != 0) return "the row offsets start at " + std::to_string(m.offsets[0]) + ", not 0";
  if (m.indices.size() != static_cast<std::size_t>(std::max<std::int64_t>(m.nnz(), 0)))
    return "the last row offset (" + std::to_string(m.nnz()) + ") is not the number of column indices (" +
           std::to_string(m.indices.size()) + ")";
  if (!m.values.empty() && m.values.size() != m.indices.size() * static_cast<std::size_t>(size_of(m.dtype)))
    return "the values are not one per column index";
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const std::int32_t begin = m.offsets[static_cast<std::size_t>(r)], end = m.offsets[static_cast<std::size_t>(r + 1)];
    if (end < begin) return "row offsets decrease at row " + std::to_string(r);
    for (std::int32_t k = begin; k < end; ++k) {
      const std::int32_t c = m.indices[static_cast<std::size_t>(k)];
      if (c < 0 || c >= m.cols)
        return "row " + std::to_string(r) + ": column index " + std::to_string(c) + " is outside 0.." + std::to_string(m.cols - 1);
      if (k > begin && c <= m.indices[static_cast<std::size_t>(k - 1)])
        return "row " + std::to_string(r) + ": column indices not strictly increasing (unsorted or duplicate entries; "
               "sort and sum them first)";
    }
  }
  return std::nullopt;
}

}  // namespace ktune
