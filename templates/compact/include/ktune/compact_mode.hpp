#pragma once
#include <optional>
#include <string_view>

namespace ktune {

// What a compaction keeps: the elements whose flag (a byte, e.g. a bool mask) is
// nonzero, or the elements that are nonzero themselves (a float's -0 is zero).
enum class CompactMode { flags, nonzero };
std::optional<CompactMode> parse_compact_mode(std::string_view name);
std::string_view to_string(CompactMode mode);

}  // namespace ktune
