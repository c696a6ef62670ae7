// Salvage below SQLite: the record texts on the file's table leaf pages, read without
// the b-tree above them. When the results table's root or an interior page is damaged,
// SQLite cannot reach the leaves, yet the leaves (and the record texts on them, each
// with its checksum) are intact; this is how SQLite's own `.recover` finds them.
//
// The file format (sqlite.org/fileformat2.html): pages of `page_size` bytes (header
// offset 16), page 1 behind a 100-byte file header; a table leaf page has type 13, a
// cell count at +3 and the cells' offsets from +8; a cell is the payload size and the
// rowid (varints), the payload's local part and, when it overflows, the first overflow
// page's number. The payload is a record: a header of serial types, then the values.
#include "store.hpp"

#include <algorithm>
#include <fstream>
#include <set>

namespace ktune::store {
namespace {

// SQLite's varint at `o` in bytes[o, end): its value, and `o` moved past it; nullopt
// when it is cut short.
std::optional<std::uint64_t> varint(const std::string& bytes, std::size_t& o, std::size_t end) {
  std::uint64_t v = 0;
  for (int i = 0; i < 9; ++i) {
    if (o >= std::min(end, bytes.size())) return std::nullopt;
    const unsigned b = static_cast<unsigned char>(bytes[o++]);
    if (i == 8) return v << 8 | b;
    v = v << 7 | (b & 0x7f);
    if (!(b & 0x80)) return v;
  }
  return v;
}

class PageFile {
 public:
  explicit PageFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (bytes_.size() < 100 || bytes_.compare(0, 16, std::string("SQLite format 3\0", 16)) != 0) return;
    page_size_ = u16(16) == 1 ? 65536 : u16(16);
    if (page_size_ < 512 || (page_size_ & (page_size_ - 1)) != 0) page_size_ = 0;
    reserved_ = static_cast<unsigned char>(bytes_[20]);
  }
  std::size_t pages() const { return page_size_ ? bytes_.size() / page_size_ : 0; }
  std::size_t usable() const { return page_size_ - reserved_; }
  // Offset of page `n` (1-based) in the file.
  std::size_t at(std::size_t n) const { return (n - 1) * page_size_; }
  bool has(std::size_t offset, std::size_t length) const { return offset <= bytes_.size() && length <= bytes_.size() - offset; }
  unsigned u8(std::size_t o) const { return static_cast<unsigned char>(bytes_[o]); }
  unsigned u16(std::size_t o) const { return u8(o) << 8 | u8(o + 1); }
  std::uint32_t u32(std::size_t o) const { return std::uint32_t{u16(o)} << 16 | u16(o + 2); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::size_t page_size_ = 0, reserved_ = 0;
};

// The pages on the freelist (deleted rows' pages: never brought back), as far as the
// trunk chain can be read.
std::set<std::size_t> free_pages(const PageFile& f) {
  std::set<std::size_t> out;
  std::size_t trunk = f.u32(32);
  while (trunk >= 1 && trunk <= f.pages() && out.insert(trunk).second) {
    const std::size_t o = f.at(trunk);
    const std::size_t leaves = f.u32(o + 4);
    for (std::size_t i = 0; i < leaves && (i + 2) * 4 + 4 <= f.usable(); ++i) out.insert(f.u32(o + 8 + 4 * i));
    trunk = f.u32(o);
  }
  return out;
}

// A cell's whole payload: its local part, and the overflow chain after it. `hops`: what
// is left of the scan's budget of overflow pages (crafted chains that share pages
// cannot make the scan quadratic).
std::optional<std::string> payload(const PageFile& f, std::size_t cell, std::size_t page_end, std::size_t& hops) {
  std::size_t o = cell;
  const auto size = varint(f.bytes(), o, page_end);
  if (!size || !varint(f.bytes(), o, page_end)) return std::nullopt;  // payload size, rowid
  const std::size_t u = f.usable(), x = u - 35, m = (u - 12) * 32 / 255 - 23;
  if (*size > (std::uint64_t{1} << 30)) return std::nullopt;
  const std::size_t p = static_cast<std::size_t>(*size);
  std::size_t local = p;
  if (p > x) {
    const std::size_t k = m + (p - m) % (u - 4);
    local = k <= x ? k : m;
  }
  if (!f.has(o, local) || o + local > page_end) return std::nullopt;
  std::string out = f.bytes().substr(o, local);
  std::size_t next = p > local && f.has(o + local, 4) ? f.u32(o + local) : 0;
  while (out.size() < p) {
    if (next < 1 || next > f.pages() || hops == 0) return std::nullopt;  // a broken or looping chain
    --hops;
    const std::size_t at = f.at(next);
    const std::size_t take = std::min(p - out.size(), u - 4);
    out += f.bytes().substr(at + 4, take);
    next = f.u32(at);
  }
  return out;
}

// The text values of a record.
std::vector<std::string> record_texts(const std::string& r) {
  std::vector<std::string> out;
  std::size_t h = 0;
  const auto header = varint(r, h, r.size());
  if (!header || *header > r.size()) return out;
  std::size_t body = static_cast<std::size_t>(*header);
  static const std::size_t fixed[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
  while (h < static_cast<std::size_t>(*header)) {
    const auto type = varint(r, h, r.size());
    if (!type || *type == 10 || *type == 11) return out;
    const std::size_t length = *type < 10 ? fixed[*type] : static_cast<std::size_t>((*type - 12) / 2);
    if (length > r.size() || body > r.size() - length) return out;
    if (*type >= 13 && *type % 2 == 1) out.push_back(r.substr(body, length));
    body += length;
  }
  return out;
}

}  // namespace

std::vector<TuningRecord> scan_leaf_pages(const fs::path& path) {
  const PageFile f(path);
  std::vector<TuningRecord> out;
  if (!f.pages()) return out;
  const std::set<std::size_t> freed = free_pages(f);
  std::size_t hops = 2 * f.pages();  // each overflow page belongs to one cell
  for (std::size_t n = 1; n <= f.pages(); ++n) {
    if (freed.count(n)) continue;
    const std::size_t page = f.at(n), header = page + (n == 1 ? 100 : 0), end = page + f.usable();
    if (f.u8(header) != 13) continue;  // not a table leaf
    const unsigned cells = f.u16(header + 3);
    for (unsigned i = 0; i < cells && header + 8 + 2 * i + 2 <= end; ++i) {
      const std::size_t cell = page + f.u16(header + 8 + 2 * i);
      if (cell < header + 8 || cell >= end) continue;
      const auto body = payload(f, cell, end, hops);
      if (!body) continue;
      for (const auto& text : record_texts(*body)) {
        if (text.empty() || text.front() != '{') continue;
        try {
          TuningRecord r = TuningRecord::from_stored(text);  // its checksum proves it intact
          if (!r.invalid()) out.push_back(std::move(r));
        } catch (const std::exception&) {
        }
      }
    }
  }
  return out;
}

}  // namespace ktune::store
