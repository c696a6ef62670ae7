#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ktune {

// Shared-memory layouts of a tile of `tile_n`-element rows stored as vec-wide element
// groups; host twin of ktune_smem_group() in the transpose template.
enum class SmemLayout { none, pad, xor_swizzle, shift };

std::optional<SmemLayout> parse_smem_layout(std::string_view name);  // "none", "pad", "xor", "shift"

// Index (in vec-wide groups) where group g of row r lives.
std::int64_t smem_group_index(SmemLayout layout, std::int64_t r, std::int64_t g, int tile_n, int vec);

// Shared-memory wavefronts one warp-wide request needs. Byte addresses per lane
// (nullopt = inactive lane); `access_bytes` per lane. Lanes are served in phases of
// 128 bytes (32 lanes for <= 4-byte accesses, 16 for 8-byte, 8 for 16-byte); within a
// phase the cost is the largest number of distinct 4-byte words mapped to one of the
// 32 banks (same word = broadcast).
int wavefronts(const std::vector<std::optional<std::int64_t>>& lane_addresses, int access_bytes);
// The wavefronts a conflict-free request of this access size needs.
int ideal_wavefronts(int access_bytes);

}  // namespace ktune
