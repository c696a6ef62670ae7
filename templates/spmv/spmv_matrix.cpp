#include <spmv/spmv_matrix.hpp>

#include <ktune/error.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>

#include <nlohmann/json.hpp>

namespace ktune {
namespace {

constexpr std::int64_t k_int_max = std::numeric_limits<std::int32_t>::max();
constexpr std::size_t k_header_max = 4096;

std::uint64_t next(std::uint64_t& s) {  // splitmix64
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool value_dtype(DType d) { return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16; }

[[noreturn]] void file_error(const std::string& path, const std::string& what) {
  throw InvalidArgument(path + ": " + what);
}

// The header's fields, checked: nothing is allocated before the sizes agree with the file.
CsrMatrix read_header(const std::string& path, const std::string& line) {
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    file_error(path, std::string("line 1: not a ktune matrix header (JSON: ") + e.what() + ")");
  }
  const auto text = [&](const char* name) {  // a string field, or ""
    return h.contains(name) && h[name].is_string() ? h[name].get<std::string>() : std::string();
  };
  if (!h.is_object() || text("format") != "ktune-csr") file_error(path, "line 1: not a ktune-csr matrix header");
  if (!h.contains("version") || h["version"] != 1) file_error(path, "line 1: version must be 1");
  const auto size = [&](const char* name, std::int64_t low, std::int64_t high) {
    if (!h.contains(name) || !h[name].is_number_integer()) file_error(path, std::string("line 1: no integer \"") + name + "\"");
    const auto v = h[name].get<std::int64_t>();
    if (v < low || v > high)
      file_error(path, std::string("line 1: ") + name + " " + std::to_string(v) + " is outside " + std::to_string(low) +
                           ".." + std::to_string(high));
    return v;
  };
  CsrMatrix m;
  m.rows = size("rows", 1, k_int_max - 1);
  m.cols = size("cols", 1, k_int_max);
  const std::int64_t nnz = size("nnz", 0, k_int_max);
  const auto dtype = parse_dtype(text("dtype"));
  if (!dtype || !value_dtype(*dtype)) file_error(path, "line 1: dtype must be f32, f64, f16 or bf16");
  m.dtype = *dtype;
  const std::string index = text("index");
  if (index == "i64") file_error(path, "line 1: i64 indices are not supported yet (nnz and rows must fit i32)");
  if (index != "i32") file_error(path, "line 1: index must be i32");
  m.offsets.assign(1, static_cast<std::int32_t>(nnz));  // (the expected nnz, until the offsets are read)
  return m;
}

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

CsrMatrix read_csr_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) file_error(path, "cannot open");
  in.seekg(0, std::ios::end);
  const auto file_bytes = static_cast<std::uint64_t>(std::max<std::streamoff>(in.tellg(), 0));
  in.seekg(0);
  std::string line;
  char c = 0;
  while (line.size() < k_header_max && in.get(c) && c != '\n') line += c;
  if (c != '\n') file_error(path, "line 1: no header line (a JSON object and a newline, in the first 4096 bytes)");
  CsrMatrix m = read_header(path, line);
  const auto nnz = static_cast<std::uint64_t>(m.offsets[0]);
  const std::uint64_t want = line.size() + 1 + 4 * static_cast<std::uint64_t>(m.rows + 1) + 4 * nnz +
                             nnz * static_cast<std::uint64_t>(size_of(m.dtype));
  if (file_bytes != want)
    file_error(path, "is " + std::to_string(file_bytes) + " bytes; its header says " + std::to_string(want));
  m.offsets.resize(static_cast<std::size_t>(m.rows + 1));
  m.indices.resize(static_cast<std::size_t>(nnz));
  m.values.resize(static_cast<std::size_t>(nnz) * static_cast<std::size_t>(size_of(m.dtype)));
  in.read(reinterpret_cast<char*>(m.offsets.data()), static_cast<std::streamsize>(4 * m.offsets.size()));
  in.read(reinterpret_cast<char*>(m.indices.data()), static_cast<std::streamsize>(4 * m.indices.size()));
  in.read(reinterpret_cast<char*>(m.values.data()), static_cast<std::streamsize>(m.values.size()));
  if (!in) file_error(path, "could not be read to its end");
  if (m.offsets.back() != static_cast<std::int32_t>(nnz))
    file_error(path, "its last row offset is " + std::to_string(m.offsets.back()) + ", its header's nnz " + std::to_string(nnz));
  if (const auto why = csr_problem(m)) file_error(path, *why);
  return m;
}

void write_csr_file(const std::string& path, const CsrMatrix& m) {
  if (const auto why = csr_problem(m)) throw InvalidArgument(path + ": not written: " + *why);
  if (m.values.empty() && m.nnz() > 0) throw InvalidArgument(path + ": not written: the matrix has no values");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const nlohmann::json h{{"format", "ktune-csr"}, {"version", 1}, {"rows", m.rows}, {"cols", m.cols},
                         {"nnz", m.nnz()}, {"dtype", to_string(m.dtype)}, {"index", "i32"}};
  out << h.dump() << '\n';
  out.write(reinterpret_cast<const char*>(m.offsets.data()), static_cast<std::streamsize>(4 * m.offsets.size()));
  out.write(reinterpret_cast<const char*>(m.indices.data()), static_cast<std::streamsize>(4 * m.indices.size()));
  out.write(reinterpret_cast<const char*>(m.values.data()), static_cast<std::streamsize>(m.values.size()));
  if (!out) throw Error(path + ": could not be written");
}

namespace {

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
    std::swap(len[static_cast<std::size_t>(r)], len[static_cast<std::size_t>(next(rng) % static_cast<std::uint64_t>(r + 1))]);
  CsrMatrix m;
  m.rows = s.rows, m.cols = s.cols, m.dtype = dtype;
  m.offsets.resize(static_cast<std::size_t>(s.rows + 1));
  m.indices.reserve(static_cast<std::size_t>(s.nnz));
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const std::int64_t n = len[static_cast<std::size_t>(r)], width = s.cols / std::max<std::int64_t>(n, 1);
    const auto start = static_cast<std::int64_t>(next(rng) % static_cast<std::uint64_t>(s.cols));
    const std::size_t first = m.indices.size();
    for (std::int64_t i = 0; i < n; ++i)  // one column in each of n buckets of width cols / n: distinct
      m.indices.push_back(static_cast<std::int32_t>((start + i * s.cols / n + static_cast<std::int64_t>(next(rng) % static_cast<std::uint64_t>(width))) % s.cols));
    std::sort(m.indices.begin() + static_cast<std::ptrdiff_t>(first), m.indices.end());
    m.offsets[static_cast<std::size_t>(r + 1)] = static_cast<std::int32_t>(m.indices.size());
  }
  return m;
}

}  // namespace ktune
