#include "workload/bounded_line.hpp"

#include <ktune/error.hpp>

#include <cerrno>
#include <cstring>
#include <istream>

namespace ktune {

bool read_bounded_line(std::istream& in, std::string& line, std::size_t limit, bool& too_long, bool skip_rest) {
  line.clear();
  too_long = false;
  bool any = false;
  for (std::istream::int_type c; (c = in.get()) != std::istream::traits_type::eof();) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < limit) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
      if (!skip_rest) return true;
    }
  }
  return any;
}

std::ifstream open_regular_file(const std::filesystem::path& file, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw Error("cannot read " + what + " " + file.string() + ": no such file");
  if (!std::filesystem::is_regular_file(file, ec))
    throw Error(what + " " + file.string() + " is not a regular file (a FIFO, a device or a folder)");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot read " + what + " " + file.string() + ": " + std::strerror(errno));
  return in;
}

}  // namespace ktune
