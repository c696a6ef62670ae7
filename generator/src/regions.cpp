#include <ktune/generator/regions.hpp>

namespace ktune {

std::optional<std::uintptr_t> region_bytes(const Region& r) {
  std::int64_t e = 0;
  if (__builtin_mul_overflow(r.rows - 1, r.ld, &e) || __builtin_add_overflow(e, r.cols, &e) ||
      __builtin_mul_overflow(e, r.elem, &e))
    return std::nullopt;
  return static_cast<std::uintptr_t>(e);
}

std::optional<std::string> region_problem(const std::vector<Region>& regions, bool in_place) {
  std::vector<std::uintptr_t> bytes;
  for (const Region& r : regions) {
    if (!r.ptr && !r.optional) return "null pointer (" + std::string(r.name) + ")";
    if (r.ptr % static_cast<std::uintptr_t>(r.elem)) return std::string(r.name) + " pointer not aligned to its element size";
    const auto b = region_bytes(r);
    if (!b) return std::string(r.name) + "'s size overflows 64 bits";
    bytes.push_back(*b);
  }
  for (std::size_t w = 0; w < regions.size(); ++w) {
    if (!regions[w].written || !regions[w].ptr) continue;
    for (std::size_t o = 0; o < regions.size(); ++o) {
      const Region &a = regions[w], &b = regions[o];
      if (o == w || !b.ptr || !(a.ptr < b.ptr + bytes[o] && b.ptr < a.ptr + bytes[w])) continue;
      const bool same = a.ptr == b.ptr && a.elem == b.elem && (a.rows == 1 || a.ld == b.ld) && bytes[w] == bytes[o];
      if (in_place && same) continue;
      return std::string(a.name) + " overlaps " + b.name + (in_place ? " (only exactly in place is allowed)" : "");
    }
  }
  return std::nullopt;
}

}  // namespace ktune
