#include <ktune/generator/layout_model.hpp>

#include <algorithm>
#include <array>

namespace ktune {

std::optional<SmemLayout> parse_smem_layout(std::string_view name) {
  if (name == "none") return SmemLayout::none;
  if (name == "pad") return SmemLayout::pad;
  if (name == "xor") return SmemLayout::xor_swizzle;
  if (name == "shift") return SmemLayout::shift;
  return std::nullopt;
}

std::int64_t smem_group_index(SmemLayout layout, std::int64_t r, std::int64_t g, int tile_n, int vec) {
  const std::int64_t groups = tile_n / vec;
  switch (layout) {
    case SmemLayout::pad: return r * (groups + 1) + g;
    case SmemLayout::xor_swizzle: return r * groups + (g ^ ((r / vec) % groups));
    case SmemLayout::shift: return r * groups + (g + r / vec) % groups;
    case SmemLayout::none: break;
  }
  return r * groups + g;
}

int ideal_wavefronts(int access_bytes) { return std::max(1, 32 * access_bytes / 128); }

int wavefronts(const std::vector<std::optional<std::int64_t>>& lane_addresses, int access_bytes) {
  const int lanes_per_phase = access_bytes <= 4 ? 32 : 128 / access_bytes;
  int total = 0;
  // A phase is at most 128 bytes of accesses, one word per 4 bytes: 32 words, sorted and
  // deduplicated in place (the model ranks whole spaces; a map of sets a request made the
  // replays 4x slower).
  std::array<std::int64_t, 32> words;
  for (std::size_t base = 0; base < lane_addresses.size(); base += static_cast<std::size_t>(lanes_per_phase)) {
    std::size_t n = 0;
    for (std::size_t l = base; l < std::min(lane_addresses.size(), base + lanes_per_phase); ++l) {
      if (!lane_addresses[l]) continue;
      for (std::int64_t b = *lane_addresses[l]; b < *lane_addresses[l] + access_bytes && n < words.size(); b += 4)
        words[n++] = b / 4;
    }
    std::sort(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n));
    const auto end = std::unique(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(n));
    std::array<int, 32> per_bank{};
    for (auto w = words.begin(); w != end; ++w) ++per_bank[static_cast<std::size_t>(((*w % 32) + 32) % 32)];
    total += *std::max_element(per_bank.begin(), per_bank.end());
  }
  return std::max(total, 1);
}

}  // namespace ktune
