#include <spmv/spmv_matrix_file.hpp>

#include <ktune/error.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace ktune {
namespace {

constexpr std::int64_t k_int_max = std::numeric_limits<std::int32_t>::max();
constexpr std::size_t k_header_max = 4096;

bool value_dtype(DType d) { return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16; }

[[noreturn]] void file_error(const std::string& path, const std::string& what) {
  throw InvalidArgument(path + ": " + what);
}

// The header's fields, checked: nothing is allocated before the sizes agree with the file.
CsrMatrix read_header(const std::string& path, const std::string& line, std::int64_t& nnz) {
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
  nnz = size("nnz", 0, k_int_max);
  const auto dtype = parse_dtype(text("dtype"));
  if (!dtype || !value_dtype(*dtype)) file_error(path, "line 1: dtype must be f32, f64, f16 or bf16");
  m.dtype = *dtype;
  const std::string index = text("index");
  if (index == "i64") file_error(path, "line 1: i64 indices are not supported yet (nnz and rows must fit i32)");
  if (index != "i32") file_error(path, "line 1: index must be i32");
  return m;
}


}  // namespace

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
  std::int64_t header_nnz = 0;
  CsrMatrix m = read_header(path, line, header_nnz);
  const auto nnz = static_cast<std::uint64_t>(header_nnz);
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
  const std::string aside = path + ".part-" + std::to_string(::getpid());
  {
    std::ofstream out(aside, std::ios::binary | std::ios::trunc);
    const nlohmann::json h{{"format", "ktune-csr"}, {"version", 1}, {"rows", m.rows}, {"cols", m.cols},
                           {"nnz", m.nnz()}, {"dtype", to_string(m.dtype)}, {"index", "i32"}};
    out << h.dump() << '\n';
    out.write(reinterpret_cast<const char*>(m.offsets.data()), static_cast<std::streamsize>(4 * m.offsets.size()));
    out.write(reinterpret_cast<const char*>(m.indices.data()), static_cast<std::streamsize>(4 * m.indices.size()));
    out.write(reinterpret_cast<const char*>(m.values.data()), static_cast<std::streamsize>(m.values.size()));
    out.close();
    if (!out) {
      std::remove(aside.c_str());
      throw Error(path + ": could not be written");
    }
  }
  std::error_code ec;
  std::filesystem::create_hard_link(aside, path, ec);  // fails where a file is there: never replaced
  std::remove(aside.c_str());
  if (ec) throw Error(path + ": not written: " + ec.message());
}

}  // namespace ktune
