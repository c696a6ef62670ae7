#pragma once
// What a family's validate() checks of the device memory a call touches, written once:
// each region is `rows` lines of `cols` elements of `elem` bytes, `ld` elements apart
// (a whole array: one line), at an address that must be set and aligned to its element;
// its size must not overflow 64 bits; a region written may not overlap another (unless
// it is exactly the same region, in place, where the family allows it).
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace ktune {

struct Region {
  const char* name;  // "input", "out", "C": messages say "<name> overlaps <other>"
  std::uintptr_t ptr;
  std::int64_t elem, rows, cols, ld;
  bool written = false;
  bool optional = false;  // may be null (then not used)
};

// The region's extent in bytes: (rows - 1) * ld + cols elements; nullopt on overflow.
std::optional<std::uintptr_t> region_bytes(const Region& r);

// Why the regions cannot be used, or nullopt: "null pointer (<name>)", "<name> pointer not
// aligned to its element size", "<name>'s size overflows 64 bits", "<name> overlaps
// <other>" (with `in_place`, exactly the same region is allowed). At most 8 regions;
// allocates nothing unless it fails (runtime calls validate on every launch).
std::optional<std::string> region_problem(std::initializer_list<Region> regions, bool in_place = false);

// Stand-in addresses as cuMemAlloc gives them, for the problem a tuning run sees before
// it allocates: the first region at 256, each next one past the one before it (`bytes`
// long, rounded up to 256 bytes). Absurd sizes give 256 again, and validation refuses
// the overlap rather than this wrapping.
constexpr std::uintptr_t k_first_probe_address = 256;
std::uintptr_t probe_address_after(std::uintptr_t previous, double bytes);

}  // namespace ktune
