#include <spmv/spmv_synthetic.hpp>

#include <ktune/error.hpp>
#include <ktune/tuner/verifier.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune {

namespace {

constexpr std::int64_t k_int_max = std::numeric_limits<std::int32_t>::max();

// How many rows of max_row a two-level mix needs for the class's middle coefficient of
// variation: cv = sqrt(p / (1 - p)) (max - mean) / mean for a share p of long rows.
std::int64_t long_rows(const SparseShape& s, double mean) {
  if (static_cast<double>(s.max_row) <= mean + 1) return 0;
  const double target[] = {0.25, 1, 4, 16};
  const double ratio = target[std::clamp<std::int64_t>(s.spread - 1, 0, 3)] * mean / (static_cast<double>(s.max_row) - mean);
  const double p = ratio * ratio / (1 + ratio * ratio);
  const auto most = s.max_row > 0 ? s.nnz / s.max_row : s.rows;
  return std::clamp<std::int64_t>(std::llround(p * static_cast<double>(s.rows)), 1, std::min(most, s.rows));
}

}  // namespace

CsrMatrix synthetic_csr(const SparseShape& s, DType dtype, std::uint64_t seed) {
  const auto fail = [&](const std::string& why) {
    throw InvalidArgument("a synthetic matrix of " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + ", " +
                          std::to_string(s.nnz) + " nonzeros, longest row " + std::to_string(s.max_row) + ": " + why);
  };
  if (s.rows < 1 || s.rows >= k_int_max || s.cols < 1 || s.cols > k_int_max || s.nnz < 0 || s.nnz > k_int_max)
    fail("rows must be 1 to 2^31 - 2, cols 1 to 2^31 - 1, nnz 0 to 2^31 - 1");
  const double mean = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  const std::int64_t even = (s.nnz + s.rows - 1) / s.rows;
  const std::int64_t max_row = s.max_row > 0 ? s.max_row : even;
  if (max_row > s.cols) fail("the longest row is longer than cols");
  if (max_row < even || s.nnz > s.rows * max_row) fail("nnz does not fit rows of at most the longest row");
  if (s.spread < 1 || s.spread > 4) fail("spread is a class from 1 to 4");
  SparseShape t = s;
  t.max_row = max_row;
  const std::int64_t k = long_rows(t, mean);
  std::vector<std::int64_t> len(static_cast<std::size_t>(s.rows));
  const std::int64_t rest = s.nnz - k * max_row, others = s.rows - k;
  for (std::int64_t r = 0; r < s.rows; ++r)
    len[static_cast<std::size_t>(r)] = r < k ? max_row : rest / std::max<std::int64_t>(others, 1) + ((r - k) < rest % std::max<std::int64_t>(others, 1) ? 1 : 0);
  std::uint64_t rng = seed;
  for (std::int64_t r = s.rows - 1; r > 0; --r)  // long rows anywhere
    std::swap(len[static_cast<std::size_t>(r)], len[static_cast<std::size_t>(splitmix64(rng) % static_cast<std::uint64_t>(r + 1))]);
  CsrMatrix m;
  m.rows = s.rows, m.cols = s.cols, m.dtype = dtype;
  m.offsets.resize(static_cast<std::size_t>(s.rows + 1));
  m.indices.reserve(static_cast<std::size_t>(s.nnz));
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::int64_t n = len[static_cast<std::size_t>(r)], width = s.cols / std::max<std::int64_t>(n, 1);
    const auto start = static_cast<std::int64_t>(splitmix64(rng) % static_cast<std::uint64_t>(s.cols));
    const std::size_t first = m.indices.size();
    for (std::int64_t i = 0; i < n; ++i)  // one column in each of n buckets of width cols / n: distinct
      m.indices.push_back(static_cast<std::int32_t>((start + i * s.cols / n + static_cast<std::int64_t>(splitmix64(rng) % static_cast<std::uint64_t>(width))) % s.cols));
    std::sort(m.indices.begin() + static_cast<std::ptrdiff_t>(first), m.indices.end());
    m.offsets[static_cast<std::size_t>(r + 1)] = static_cast<std::int32_t>(m.indices.size());
  }
  return m;
}

}  // namespace ktune
