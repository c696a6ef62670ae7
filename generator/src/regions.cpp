#include <ktune/generator/regions.hpp>

#include <ktune/error.hpp>

#include <array>

namespace ktune {

std::optional<std::uintptr_t> region_bytes(const Region& r) {
  std::int64_t e = 0;
  if (__builtin_mul_overflow(r.rows - 1, r.ld, &e) || __builtin_add_overflow(e, r.cols, &e) ||
      __builtin_mul_overflow(e, r.elem, &e))
    return std::nullopt;
  return static_cast<std::uintptr_t>(e);
}

std::optional<std::string> region_problem(std::initializer_list<Region> list, bool in_place) {
  std::array<std::uintptr_t, 8> bytes{};
  if (list.size() > bytes.size()) throw InvalidArgument("region_problem: more than 8 regions");
  const Region* regions = list.begin();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Region& r = regions[i];
    if (!r.ptr && !r.optional) return "null pointer (" + std::string(r.name) + ")";
    if (r.ptr % static_cast<std::uintptr_t>(r.elem)) return std::string(r.name) + " pointer not aligned to its element size";
    const auto b = region_bytes(r);
    if (!b) return std::string(r.name) + "'s size overflows 64 bits";
    bytes[i] = *b;
  }
  for (std::size_t w = 0; w < list.size(); ++w) {
    if (!regions[w].written || !regions[w].ptr) continue;
    for (std::size_t o = 0; o < list.size(); ++o) {
      const Region &a = regions[w], &b = regions[o];
      if (o == w || !b.ptr || !(a.ptr < b.ptr + bytes[o] && b.ptr < a.ptr + bytes[w])) continue;
      const bool same = a.ptr == b.ptr && a.elem == b.elem && (a.rows == 1 || a.ld == b.ld) && bytes[w] == bytes[o];
      if (in_place && same) continue;
      return std::string(a.name) + " overlaps " + b.name + (in_place ? " (only exactly in place is allowed)" : "");
    }
  }
  return std::nullopt;
}

std::uintptr_t probe_address_after(std::uintptr_t previous, double bytes) {
  if (!(bytes >= 0 && bytes < 1e18)) return k_first_probe_address;
  return previous + 256 + (static_cast<std::uintptr_t>(bytes) + 255) / 256 * 256;
}

}  // namespace ktune
