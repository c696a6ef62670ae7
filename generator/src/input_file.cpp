// Input files read as regular files only (input_file.hpp).
#include <ktune/generator/input_file.hpp>

#include <ktune/error.hpp>

#include <cerrno>
#include <cstring>

namespace ktune {

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
