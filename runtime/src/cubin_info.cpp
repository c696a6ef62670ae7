#include <ktune/runtime/cubin_info.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

namespace ktune {
namespace {

// ELF64 little-endian, as NVRTC writes CUBINs; every read is bounds-checked.
class Image {
 public:
  explicit Image(const std::string& bytes) : b_(bytes) {}
  template <class T>
  bool read(std::uint64_t at, T& out) const {
    if (at > b_.size() || sizeof(T) > b_.size() - at) return false;
    std::memcpy(&out, b_.data() + at, sizeof(T));
    return true;
  }
  // The NUL-terminated string at `at`, or "" when it runs past the image.
  std::string string_at(std::uint64_t at) const {
    if (at >= b_.size()) return "";
    const auto end = b_.find('\0', at);
    return end == std::string::npos ? "" : b_.substr(at, end - at);
  }

 private:
  const std::string& b_;
};

struct Section {
  std::uint32_t name = 0, type = 0;
  std::uint64_t offset = 0, size = 0;
  std::uint32_t link = 0;
};

std::vector<Section> sections(const Image& img) {
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0;
  if (!img.read(0x28, shoff) || !img.read(0x3A, shentsize) || !img.read(0x3C, shnum) || shentsize < 64) return {};
  std::vector<Section> out;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t at = shoff + std::uint64_t{i} * shentsize;
    Section s;
    if (!img.read(at, s.name) || !img.read(at + 4, s.type) || !img.read(at + 24, s.offset) || !img.read(at + 32, s.size) ||
        !img.read(at + 40, s.link))
      return {};
    out.push_back(s);
  }
  return out;
}

// The .symtab index of `name`, or -1.
long long symbol_index(const Image& img, const std::vector<Section>& secs, const std::string& name) {
  constexpr std::uint32_t k_symtab = 2;
  for (const Section& s : secs) {
    if (s.type != k_symtab || s.link >= secs.size()) continue;
    const Section& strtab = secs[s.link];
    for (std::uint64_t i = 0; i < s.size / 24; ++i) {
      std::uint32_t n = 0;
      if (!img.read(s.offset + i * 24, n)) return -1;
      if (n < strtab.size && img.string_at(strtab.offset + n) == name) return static_cast<long long>(i);
    }
  }
  return -1;
}

}  // namespace

std::optional<CubinResources> cubin_resources(const std::string& cubin, const std::string& lowered_name) {
  const Image img(cubin);
  if (cubin.size() < 64 || cubin.compare(0, 4, "\x7f" "ELF") != 0 || cubin[4] != 2) return std::nullopt;
  const auto secs = sections(img);
  std::uint16_t shstrndx = 0;
  if (secs.empty() || !img.read(0x3E, shstrndx) || shstrndx >= secs.size()) return std::nullopt;
  const long long symbol = symbol_index(img, secs, lowered_name);
  if (symbol < 0) return std::nullopt;
  // `.nv.info` holds attributes of every kernel: (format, attribute, size) headers, the
  // per-kernel ones followed by (symbol index, value). EIATTR_REGCOUNT is 0x2f,
  // EIATTR_FRAME_SIZE 0x11 (as cuobjdump -res-usage reports REG and STACK).
  constexpr std::uint8_t k_regcount = 0x2f, k_frame_size = 0x11, k_sval = 0x04, k_nval = 0x01;
  CubinResources r;
  bool found = false;
  for (const Section& s : secs) {
    if (img.string_at(secs[shstrndx].offset + s.name) != ".nv.info") continue;
    std::uint64_t at = s.offset;
    const std::uint64_t end = s.offset + s.size;
    while (at + 4 <= end) {
      std::uint8_t format = 0, attribute = 0;
      std::uint16_t size = 0;
      if (!img.read(at, format) || !img.read(at + 1, attribute) || !img.read(at + 2, size)) return std::nullopt;
      if (format == k_nval) {
        at += 2;
        continue;
      }
      if (format == k_sval && size == 8 && (attribute == k_regcount || attribute == k_frame_size)) {
        std::uint32_t sym = 0, value = 0;
        if (!img.read(at + 4, sym) || !img.read(at + 8, value)) return std::nullopt;
        if (sym == static_cast<std::uint64_t>(symbol)) {
          (attribute == k_regcount ? r.registers : r.frame_bytes) = static_cast<int>(value);
          found = found || attribute == k_regcount;
        }
      }
      at += 4 + (format == k_sval ? size : 0);
    }
  }
  if (!found) return std::nullopt;
  return r;
}

}  // namespace ktune
