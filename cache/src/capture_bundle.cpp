#include <ktune/cache/capture_bundle.hpp>
#include <ktune/generator/settings.hpp>
#include <ktune/cache/database.hpp>
#include <ktune/generator/json.hpp>

#include <ktune/generator/hash.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace ktune {
namespace fs = std::filesystem;

namespace {

constexpr char k_magic[8] = {'K', 'T', 'U', 'N', 'E', 'C', 'A', 'P'};
constexpr std::size_t k_prefix = 16;  // magic, version, header length

std::uint64_t hash_of(const std::vector<unsigned char>& bytes) {
  return fnv1a64(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

[[noreturn]] void fail(const fs::path& path, const std::string& why) {
  throw CaptureError(path.string() + ": " + why);
}

std::vector<unsigned char> compress_bytes(const std::vector<unsigned char>& raw, const fs::path& path) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<unsigned char> out(size);
  // The fastest level: capture runs inside the application, once per problem.
  if (compress2(out.data(), &size, raw.data(), static_cast<uLong>(raw.size()), Z_BEST_SPEED) != Z_OK)
    fail(path, "zlib could not compress a buffer");
  out.resize(size);
  return out;
}

// Writes all of `data` or throws with the reason (ENOSPC: the disk is full).
void write_all(int fd, const void* data, std::size_t size, const fs::path& path) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, std::string("cannot write: ") + std::strerror(errno));
    p += n, size -= static_cast<std::size_t>(n);
  }
}

class TempFile {
 public:
  explicit TempFile(const fs::path& final_path)
      : path_(final_path.string() + ".tmp-" + std::to_string(::getpid())) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(final_path, std::string("cannot create ") + path_.string() + ": " + std::strerror(errno));
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());  // linked into place or abandoned: the temporary name goes
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  const fs::path& path() const { return path_; }
  void close(const fs::path& final_path) {
    const int fd = fd_;
    fd_ = -1;
    if (::fsync(fd) != 0 || ::close(fd) != 0) fail(final_path, std::string("cannot write: ") + std::strerror(errno));
  }

 private:
  fs::path path_;
  int fd_ = -1;
};

struct Prefix {
  std::uint32_t version = 0, header_bytes = 0;
};

Prefix read_prefix(std::ifstream& in, std::uintmax_t file_size, const fs::path& path) {
  char magic[8] = {};
  if (file_size < k_prefix) fail(path, "truncated or not a capture bundle (" + std::to_string(file_size) + " bytes)");
  in.read(magic, 8);
  if (!std::equal(magic, magic + 8, k_magic)) fail(path, "not a ktune capture bundle (no KTUNECAP signature)");
  Prefix p;
  in.read(reinterpret_cast<char*>(&p.version), 4);
  in.read(reinterpret_cast<char*>(&p.header_bytes), 4);
  if (p.version != k_capture_format)
    throw CaptureVersionError(path.string() + ": capture format version " + std::to_string(p.version) + "; this ktune reads version " +
                   std::to_string(k_capture_format));
  if (k_prefix + p.header_bytes > file_size)
    fail(path, "truncated: its header needs " + std::to_string(p.header_bytes) + " bytes, the file has " +
                   std::to_string(file_size - k_prefix) + " after its signature");
  return p;
}

// The header's fields that readers take as given have their types: a listing or a
// prune reads each bundle's header, and one malformed field must make that bundle
// unusable, not stop the command.
void check_header_fields(const nlohmann::json& j, const fs::path& path) {
  const auto check = [&](const char* field, JsonType type) {
    if (const auto why = json_field_error(j, field, type)) fail(path, "corrupted: its header's " + *why);
  };
  for (const char* field : {"kind", "family", "variant", "dtype", "device", "captured_at", "source", "origin", "entry",
                            "type", "content_hash"})
    check(field, JsonType::string);
  check("shape", JsonType::integer_list);
  if (j.contains("shape") && j["shape"].size() > 16) fail(path, "corrupted: its header's 'shape' has more than 16 sizes");
  check("align", JsonType::integer);
  check("problem", JsonType::object);
  if (j.contains("problem"))
    for (const auto& [name, value] : j["problem"].items())
      if (!value.is_number_integer()) fail(path, "corrupted: its header's 'problem' is not an object of integers");
}

// zlib's deflate compresses by 1032:1 at most, so a buffer whose declared size exceeds
// that of its stored bytes is corrupted: nothing is allocated on its word.
constexpr std::uint64_t k_max_inflation = 1032;

void check_buffer_list(const nlohmann::json& buffers, const fs::path& path) {
  for (const auto& b : buffers) {
    for (const char* field : {"name", "phase", "hash"})
      if (json_field_error(b, field, JsonType::string, true)) fail(path, "corrupted: its header's buffer list is malformed");
    const auto size = [&](const char* field) {
      if (!b.contains(field) || !b[field].is_number_unsigned()) fail(path, "corrupted: its header's buffer list is malformed");
      return b[field].get<std::uint64_t>();
    };
    const std::uint64_t stored = size("stored"), bytes = size("bytes");
    if (bytes > 64 && (bytes - 64) / k_max_inflation > stored)  // (no product: it could wrap)
      fail(path, "corrupted: buffer " + b["name"].get<std::string>() + " declares " + std::to_string(bytes) +
                     " bytes from " + std::to_string(stored) + " stored (more than deflate can expand)");
  }
}

nlohmann::json parse_header(const std::string& text, const fs::path& path) {
  auto j = parse_json(text);
  if (j.is_discarded() || !j.is_object() || !j.contains("kind") || !j.contains("buffers") || !j["buffers"].is_array())
    fail(path, "corrupted: its header is not a capture description");
  check_header_fields(j, path);
  check_buffer_list(j["buffers"], path);
  return j;
}

// What the writer's content_hash covers: the header as captured (without the two fields
// the writer adds) and each buffer's hash, recomputed here from the data.
std::string content_hash_of(const nlohmann::json& header, const std::vector<CaptureBuffer>& buffers) {
  nlohmann::json described = header;
  described.erase("buffers");
  described.erase("content_hash");
  std::uint64_t content = fnv1a64(described.dump());
  for (const auto& b : buffers) content = fnv1a64(hex64(hash_of(b.bytes)), content);
  return hex64(content);
}

// Sizes were checked against the file (check_buffer_list, read_capture) before this.
CaptureBuffer read_buffer(std::ifstream& in, const nlohmann::json& b, const fs::path& path) {
  CaptureBuffer out;
  out.name = b.at("name").get<std::string>();
  out.phase = b.at("phase").get<std::string>();
  std::vector<unsigned char> stored(b.at("stored").get<std::size_t>());
  in.read(reinterpret_cast<char*>(stored.data()), static_cast<std::streamsize>(stored.size()));
  if (!in) fail(path, "cannot read buffer " + out.name);
  out.bytes.resize(b.at("bytes").get<std::size_t>());
  uLongf size = static_cast<uLongf>(out.bytes.size());
  if (uncompress(out.bytes.data(), &size, stored.data(), static_cast<uLong>(stored.size())) != Z_OK ||
      size != out.bytes.size())
    fail(path, "corrupted: buffer " + out.name + " (" + out.phase + ") does not decompress");
  if (hex64(hash_of(out.bytes)) != b.at("hash").get<std::string>())
    fail(path, "corrupted: buffer " + out.name + " (" + out.phase + ") does not match its hash");
  return out;
}

}  // namespace

const CaptureBuffer* CaptureBundle::find(const std::string& name, const std::string& phase) const {
  for (const auto& b : buffers)
    if (b.name == name && b.phase == phase) return &b;
  return nullptr;
}

bool write_capture(const fs::path& path, CaptureBundle bundle) {
  if (fs::exists(path)) return false;
  std::vector<std::vector<unsigned char>> stored;
  nlohmann::json list = nlohmann::json::array();
  const std::string content = content_hash_of(bundle.header, bundle.buffers);
  for (const auto& b : bundle.buffers) {
    stored.push_back(compress_bytes(b.bytes, path));
    list.push_back({{"name", b.name}, {"phase", b.phase}, {"bytes", b.bytes.size()}, {"stored", stored.back().size()},
                    {"hash", hex64(hash_of(b.bytes))}});
  }
  bundle.header["buffers"] = list;
  bundle.header["content_hash"] = content;
  const std::string header = bundle.header.dump();
  const std::uint32_t version = k_capture_format, header_bytes = static_cast<std::uint32_t>(header.size());
  TempFile tmp(path);
  write_all(tmp.fd(), k_magic, 8, path);
  write_all(tmp.fd(), &version, 4, path);
  write_all(tmp.fd(), &header_bytes, 4, path);
  write_all(tmp.fd(), header.data(), header.size(), path);
  for (const auto& s : stored) write_all(tmp.fd(), s.data(), s.size(), path);
  tmp.close(path);
  // link() never replaces: a bundle another process wrote meanwhile is kept.
  if (::link(tmp.path().c_str(), path.c_str()) == 0) return true;
  if (errno == EEXIST) return false;
  fail(path, std::string("cannot link it into place: ") + std::strerror(errno));
}

CaptureBundle read_capture(const fs::path& path, bool with_data) {
  std::error_code ec;
  const std::uintmax_t file_size = fs::file_size(path, ec);
  if (ec) fail(path, "cannot read: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
  const Prefix prefix = read_prefix(in, file_size, path);
  std::string text(prefix.header_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  CaptureBundle bundle;
  bundle.header = parse_header(text, path);
  std::uintmax_t expected = k_prefix + prefix.header_bytes;
  try {
    for (const auto& b : bundle.header["buffers"]) {
      const std::uintmax_t stored = b.at("stored").get<std::uintmax_t>();
      if (stored > file_size) fail(path, "truncated: buffer " + b.at("name").get<std::string>() + " needs " +
                                             std::to_string(stored) + " bytes, the file has " + std::to_string(file_size));
      expected += stored;  // never wraps: both terms are at most the file's size
      if (expected > file_size)
        fail(path, "truncated: " + std::to_string(file_size) + " bytes, less than its buffers need");
    }
  } catch (const nlohmann::json::exception&) {
    fail(path, "corrupted: its header's buffer list is malformed");
  }
  if (expected > file_size)
    fail(path, "truncated: " + std::to_string(file_size) + " bytes of the " + std::to_string(expected) + " it needs");
  if (expected < file_size)
    fail(path, "corrupted: " + std::to_string(file_size - expected) + " bytes past its end");
  if (!with_data) return bundle;
  try {
    for (const auto& b : bundle.header["buffers"]) bundle.buffers.push_back(read_buffer(in, b, path));
  } catch (const nlohmann::json::exception&) {
    fail(path, "corrupted: its header's buffer list is malformed");
  }
  bundle.content_hash = content_hash_of(bundle.header, bundle.buffers);
  return bundle;
}

std::vector<fs::path> capture_files(const fs::path& file_or_folder) {
  std::error_code ec;
  if (!fs::is_directory(file_or_folder, ec)) {
    if (!fs::exists(file_or_folder, ec)) throw CaptureError(file_or_folder.string() + ": no such file or folder");
    return {file_or_folder};
  }
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(file_or_folder))
    if (e.is_regular_file() && e.path().extension() == ".ktcap") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path capture_folder(const fs::path& database) {
  const std::string dir = settings::capture_dir();
  return dir.empty() ? database.parent_path() / "captures" : fs::path(dir);
}

std::string capture_file_name(const std::string& family, const std::string& variant, const std::string& dtype,
                              const std::vector<std::int64_t>& shape, std::int64_t align) {
  // A variant may be an expression or a long hash: its hash keeps the name short and safe.
  std::string name = family + "-" + hex64(fnv1a64(variant)).substr(0, 8) + "-" + dtype + "-" + shape_to_string(shape) +
                     "-a" + std::to_string(align);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return name + ".ktcap";
}

}  // namespace ktune
